# The README's two commands: `make demo` (the main job) and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
INTDOT  = $(VENV)/bin/intdot
# PyTorch's CPU build gives intdot.gemm its fastest exact CPU path (torch._int_mm) and lets the tests check it.
# `make TORCH= test` skips it: gemm then uses float BLAS, and the torch tests skip with a reason.
TORCH  ?= torch==2.13.0
# Triton's interpreter runs the CUDA backend's kernels on the CPU, so the tests check their logic where no GPU is
# lent (tests/gemm/test_gpu_interpret.py); the release is the one on the lent H200. `make TRITON= test` skips it.
TRITON ?= triton==3.6.0
EXTRAS ?= fast,test,demo,dask,elf,onnx

.PHONY: demo test lint tour bench oracles clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(if $(TORCH),$(PY) -m pip install -q $(TORCH))
	$(if $(TRITON),$(PY) -m pip install -q '$(TRITON); sys_platform == "linux" and platform_machine == "x86_64"')
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $@

demo: $(VENV)/.installed
	$(INTDOT) demo

# The suite runs a worker a core (pytest-xdist): 6-8 minutes on two cores, 14 in one process.
# `make JOBS=0 test` runs it in one process.
JOBS ?= auto
# Then the quantized-model tests again, against ONNX Runtime for AArch64 under qemu-user (INTDOT_ORT=arm: Arm's
# kernels and defaults; tests/quant/conftest.py lists where intdot does not match them yet). Where
# scripts/install-oracles.sh has not installed it they skip, with that reason. `make ARM_ORT= test` leaves them out.
ARM_ORT ?= tests/quant
test: $(VENV)/.installed
	$(PY) -m pytest -q -n $(JOBS) $(PYTEST_ARGS)
	$(if $(ARM_ORT),INTDOT_ORT=arm $(PY) -m pytest -q -n $(JOBS) $(ARM_ORT))

# ruff: lint and format check (CI runs it before the tests).
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check src tests bench scripts
	$(VENV)/bin/ruff format --check src tests bench scripts

tour: $(VENV)/.installed
	@bash scripts/tour.sh $(INTDOT)

bench: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[fast,bench]'
	$(PY) bench/builtins.py
	$(PY) bench/arm.py
	$(PY) bench/cli.py
	$(PY) bench/gemm.py
	$(PY) -m pip install -q -e '.[onnx]'
	$(PY) bench/quant.py

oracles:
	bash scripts/install-oracles.sh

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .oracle-cache
