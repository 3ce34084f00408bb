# The two commands of the quick start: `make demo` and `make test`. Each sets itself up.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NOTEBOOKS := $(wildcard notebooks/*.ipynb)
WORKERS ?= 2

.PHONY: demo test install lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/nl2sql demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(WORKERS) tests $(if $(NOTEBOOKS),--nbval --nbval-current-env $(NOTEBOOKS))

lint: $(STAMP)
	$(BIN)/ruff check nl2sql tests
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/cold_start.py
	$(BIN)/python benchmarks/kernel_start.py
	$(BIN)/python benchmarks/schema_scale.py
	$(BIN)/python benchmarks/soak.py --runs 1000
	$(BIN)/python benchmarks/warm_ask.py
	$(BIN)/python benchmarks/warm_cpu.py
	$(BIN)/python benchmarks/aggregator.py
	$(BIN)/python benchmarks/bench_workers.py
	$(BIN)/python benchmarks/rowcap_memory.py

clean:
	rm -rf $(VENV) .nl2sql build *.egg-info
