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
# In parallel where pytest-xdist is installed (a cold run compiles every kernel: 5 minutes on the H200's 16 cores),
# each test named as it ends, so that a run cut short still says which passed.
par=$($py -c 'import xdist' 2>/dev/null && echo "-n ${JOBS:-16}")
$py -m pytest -v -rf --tb=short $par -p no:warnings -p no:cacheprovider tests/gemm/test_gpu.py tests/gemm/test_gpu_layouts.py \
    tests/gemm/test_gpu_batched.py tests/gemm/test_gpu_launch.py tests/gemm/test_gpu_gluon.py ${PYTEST_ARGS:-} 2>&1 | tee "$out/tests.log"
$py bench/gemm.py --gpu-only ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.log"
