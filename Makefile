# Set-up and checks. Every target creates .venv when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: test lint typecheck imports unit demo bench stress-journal clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

test: lint typecheck imports unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

imports: $(STAMP)
	$(BIN)/lint-imports

unit: $(STAMP)
	$(BIN)/pytest -q

demo: $(STAMP)
	$(BIN)/python -m xcsh.cli.demo

bench: $(STAMP)
	$(BIN)/python bench/structural.py

stress-journal: $(STAMP)
	$(BIN)/python bench/stress_journal.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache

.PHONY: bench-loop
bench-loop: $(STAMP)
	$(BIN)/python bench/loop_bench.py

.PHONY: bench-startup
bench-startup: $(STAMP)
	$(BIN)/python bench/startup.py
