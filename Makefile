# NK Planner: the two commands a new user needs.
#   make run   creates .venv, installs requirements.txt, starts the app on the sample data
#   make test  installs the dev requirements (and Debian's chromium when missing and root), runs ruff and every test
# Both are idempotent: the virtual environment is rebuilt only when a requirements file changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8501
# pytest-xdist: one worker per core, at most 4 (each browser worker runs its own app server and Chromium). On the
# 2-core reference machine two workers beat three: the same code took 456 s against 487 s wall, 853 s against 944 s
# of CPU (a third worker's Chromium, server and collection, and the contention, cost more than its waits gave
# back; docs/benchmarks.md). loadgroup hands out one test at a time, slow tests first, and keeps each xdist_group
# on one worker (tests/conftest.py). `make test XDIST=` runs in one process.
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)
XDIST  ?= -n $(WORKERS) --dist loadgroup

.PHONY: run test test-fast test-quick fuzz lint sample-data bench chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(VENV)/.installed $@

run: $(VENV)/.installed
	$(BIN)/python -m ui.serve app.py --server.port $(PORT)

chromium:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "No /usr/bin/chromium and not root: browser tests will be skipped (they fail under CI=true)"; fi

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Some images set PYTHONDONTWRITEBYTECODE=1; the tests may cache bytecode: pytest keeps its rewritten test modules
# (collection 4 s instead of 10 s per worker from the second run), and every app server and CLI subprocess that the
# tests start finds nkcore and ui compiled.
test test-fast test-quick: export PYTHONDONTWRITEBYTECODE =

# Every test, in parallel, with the linters beside them (mypy keeps one core busy for about 25 s: run first, it left
# the other idle); their output follows pytest's, and either failing fails the target. The ten slowest tests are
# listed at the end of pytest's output.
test: $(VENV)/.installed-dev chromium
	@log=$$(mktemp); $(MAKE) --no-print-directory lint >$$log 2>&1 & linters=$$!; \
	$(BIN)/python -m pytest $(XDIST) --durations=10; tests=$$?; \
	wait $$linters; linted=$$?; echo "--- the linters (ruff check, ruff format --check, mypy):"; cat $$log; rm -f $$log; \
	[ $$linted -eq 0 ] || echo "make test: the linters failed (above)"; \
	[ $$tests -eq 0 ] && [ $$linted -eq 0 ]

# Everything but the browser tests (no chromium needed), after the linters.
test-fast: $(VENV)/.installed-dev lint
	$(BIN)/python -m pytest $(XDIST) -m "not browser" --durations=10

# The edit loop's smallest set, no linters: nkcore's unit tests and doctests (no browser, AppTest or fuzz test, no
# slow or shared-data test), stop at the first failure.
test-quick: $(VENV)/.installed-dev
	$(BIN)/python -m pytest $(XDIST) -m "not browser and not slow and not shared" \
	  --ignore=tests/browser --ignore=tests/app --ignore=tests/fuzz -x -q

# The fuzz suite with the long hypothesis profile (CI runs it with the bounded default profile).
fuzz: $(VENV)/.installed-dev
	NKP_FUZZ_PROFILE=long $(BIN)/python -m pytest $(XDIST) tests/fuzz -q

sample-data: $(VENV)/.installed
	$(BIN)/python -m nkcore.sample_data

bench: $(VENV)/.installed-dev
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# The coverage table (issue 53): every interval and test, nominal against simulated coverage / type I error.
# `make coverage` runs the long profile and writes docs/coverage.md; `make coverage PROFILE=short` (CI, under 5 min).
PROFILE ?= long
.PHONY: coverage
coverage: $(VENV)/.installed-dev
	nice -n 10 $(BIN)/python -m benchmarks.coverage --profile $(PROFILE) --out docs/coverage.md
