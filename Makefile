# Two commands do all set-up on a fresh machine:
#   make run    start a table: embedded broker, hub, simulated sandtimers
#   make test   run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
ARGS   ?=

.PHONY: run test lint bench clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "companion needs Python 3.11 or newer (found: $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  echo "python3 -m venv failed: on Debian or Raspberry Pi OS run: sudo apt-get install -y python3-venv"; exit 1; }
	$(BIN)/python -m pip install -q --upgrade pip

# The hub alone is `pip install .`; the extras add the in-process broker (broker), the Pi node (pi)
# and the USB-serial bridge (serial). `make run` takes the broker so a machine without mosquitto
# still starts a table; the tests take everything. (The first line removes the distribution's old
# name, "companion", from a venv made before it was renamed.)
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@$(BIN)/python -m pip uninstall -q -y companion >/dev/null 2>&1 || true
	$(BIN)/python -m pip install -q -e '.[broker]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	@$(BIN)/python -m pip uninstall -q -y companion >/dev/null 2>&1 || true
	$(BIN)/python -m pip install -q -e '.[test,broker,pi,serial]'
	touch $(VENV)/.installed $@

# MicroPython (WebAssembly build, run by Node.js) for the node-core tests
MPY_DIR := tests/micropython
$(MPY_DIR)/node_modules/.installed: $(MPY_DIR)/package.json $(MPY_DIR)/package-lock.json
	cd $(MPY_DIR) && npm ci --no-audit --no-fund --silent
	touch $@

# axe-core (accessibility checks run in the browser tests of the pages)
BROWSER_DIR := tests/browser
$(BROWSER_DIR)/node_modules/.installed: $(BROWSER_DIR)/package.json $(BROWSER_DIR)/package-lock.json
	cd $(BROWSER_DIR) && npm ci --no-audit --no-fund --silent
	touch $@

run: $(VENV)/.installed
	$(BIN)/companion run $(ARGS)

# The suite on TEST_WORKERS workers (its tests mostly wait on brokers, hubs and Chromium), then the
# tests that compare latencies within a run (marked "alone") one at a time, so no other test's load
# lands between their quiet stretch and their flood. Exit status 5 is "nothing selected" (ARGS naming
# only one kind).
TEST_WORKERS ?= 3
# Bytecode caches on for the tests even where the environment turns them off
# (PYTHONDONTWRITEBYTECODE=1): otherwise every worker rewrites the asserts of every test module
# (about 12 s of CPU each) and every hub, node and CLI process a test starts compiles the package
# again. They go to __pycache__ folders, which git ignores.
test: export PYTHONDONTWRITEBYTECODE :=
test: $(VENV)/.installed-test $(MPY_DIR)/node_modules/.installed $(BROWSER_DIR)/node_modules/.installed
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not alone" $(ARGS) || [ $$? -eq 5 ]
	$(BIN)/python -m pytest -m alone $(ARGS) || [ $$? -eq 5 ]

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(VENV)/.installed
	$(BIN)/companion bench $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info

# Full-sized robustness runs (docs/testing.md); `make test` runs the same tests CI-sized.
#   make faults   kill -9 x100, 4 nodes offline x3 rounds, 6 torn logs per kind, 5 rounds of forgeries,
#                 8 bursts of 1,500 web connections, 1,200 half-open under 1,024 files, 30 s MQTT floods,
#                 a full disk x3 rounds, a clock step back, Ctrl+C x20 under load, club kill -9 x6 and resume
#   make soak     8 tables x 8 nodes, a whole 30-minute master clock, random hub kills and node dropouts
#   make fuzz     the hypothesis fuzz tests with FUZZ_EXAMPLES generated inputs
FUZZ_EXAMPLES ?= 200000

.PHONY: faults soak fuzz

faults: $(VENV)/.installed-test
	COMPANION_FAULT_SIZE=full $(BIN)/python -m pytest -s tests/faults --ignore=tests/faults/test_soak.py $(ARGS)

soak: $(VENV)/.installed-test
	COMPANION_FAULT_SIZE=full $(BIN)/python -m pytest -s tests/faults/test_soak.py $(ARGS)

fuzz: $(VENV)/.installed-test
	COMPANION_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -k fuzz tests/core tests/hub $(ARGS)
