#!/usr/bin/env bash
# On a CUDA machine (the lent H200): the GPU tests of intdot.gemm, then the GPU benchmark.
# Run from the repository root; writes logs to ${OUT:-/tmp/intdot-gpu}.
set -uo pipefail
out=${OUT:-/tmp/intdot-gpu}
mkdir -p "$out"
export PYTHONPATH=$PWD/src:${PYTHONPATH:-} PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv | tee "$out/gpu.txt"
$py -c 'import torch, triton, numpy; print("torch", torch.__version__, "triton", triton.__version__, "numpy", numpy.__version__)' | tee -a "$out/gpu.txt"
# The device's Python has its own packages; warnings from them are not this project's errors there.
$py -m pytest -q -p no:warnings -p no:cacheprovider tests/gemm/test_gpu.py tests/gemm/test_gpu_layouts.py tests/gemm/test_gpu_batched.py tests/gemm/test_gpu_launch.py ${PYTEST_ARGS:-} 2>&1 | tee "$out/tests.log"
$py bench/gemm.py --gpu-only ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.log"
