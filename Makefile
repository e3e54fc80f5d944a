# rpcarena: `make arena` sets everything up and runs the quick default arena; `make test` runs the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
SYSTEM_PYTHON ?= python3

.PHONY: arena setup system natives test bench clean

arena: setup system natives
	$(VENV)/bin/rpcarena run --out results/arena.json

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(SYSTEM_PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

system:
	scripts/install-system.sh

natives: setup system
	$(VENV)/bin/rpcarena build

test: setup system
	$(PY) -m pytest -q -p no:cacheprovider

bench: setup system natives
	$(PY) benchmarks/harness_overhead.py

clean:
	rm -rf $(VENV) results
