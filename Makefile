# The README's two commands: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
INTDOT  = $(VENV)/bin/intdot

.PHONY: demo test bench oracles clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[fast,test]'
	touch $@

demo: $(VENV)/.installed
	@bash scripts/demo.sh $(INTDOT)

test: $(VENV)/.installed
	$(PY) -m pytest -q $(PYTEST_ARGS)

bench: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[fast,bench]'
	$(PY) bench/builtins.py
	$(PY) bench/arm.py

oracles:
	bash scripts/install-oracles.sh

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .oracle-cache
