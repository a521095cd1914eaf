# The two quickstart commands of README.md, plus the benchmark environment.
#
#   make demo    create .venv if missing, install the package, run the tour
#   make test    create .venv if missing, install the package with its test
#                extras, run the whole test suite
#
# Every recipe calls the virtual environment's python by path, so nothing
# depends on an activated shell. Installs are recorded in stamp files inside
# .venv and redone only when pyproject.toml changes, so running a target twice
# is cheap and does the same thing. PYTHON picks the interpreter that creates
# the environment (default python3, which must be 3.11 or newer).

PYTHON ?= python3
VENV ?= .venv
VPY := $(VENV)/bin/python
PIP := $(VPY) -m pip install --disable-pip-version-check --quiet
BENCH_VENV ?= /tmp/tt-bench
PYTEST_ARGS ?=

.PHONY: demo test bench clean

demo: $(VENV)/.installed
	$(VPY) -m tensortypes demo

test: $(VENV)/.installed-test
	$(VPY) -m pytest $(PYTEST_ARGS)

# The comparison with PyTensor runs in its own environment: PyTensor must never
# be importable from the test environment.
bench:
	test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --disable-pip-version-check --quiet -e . -r benchmarks/requirements.txt
	$(BENCH_VENV)/bin/python benchmarks/lattice.py

$(VPY):
	$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "tensortypes needs Python 3.11 or newer; run make with PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(VPY)
	$(PIP) -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(VPY)
	$(PIP) -e '.[test]'
	touch $@ $(VENV)/.installed

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
