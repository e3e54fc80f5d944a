# rpcarena: `make arena` sets everything up and runs the quick default arena; `make test` runs the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
SYSTEM_PYTHON ?= python3

.PHONY: arena setup system natives test test-python test-native check conformance lint bench clean

arena: setup system natives
	$(VENV)/bin/rpcarena run --force --out results/arena.json --report results/arena.html

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(SYSTEM_PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,cluster]'
	touch $@

system:
	scripts/install-system.sh

natives: setup system
	$(VENV)/bin/rpcarena build

test: test-native test-python

# Test files spread over the cores (xdist): a module's tests stay on one worker, and the modules
# marked serial (timing- and CPU-sensitive) run one after another on one (tests/conftest.py).
TEST_WORKERS ?= auto
PYTEST := $(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadgroup

test-python: setup system natives
	$(PYTEST) --durations=25 -m "not conformance"

# The schema conformance corpus on every mechanism that serves a user's schema, against the table
# in docs/schemas.md (about 20 minutes on 2 CPUs, a Rust variant built per schema group included);
# CI runs it after `make test`.
conformance: setup system natives
	$(PYTEST) -m conformance

# The edit loop: the static checks and the unit tier (every test that starts no process), in minutes.
check: lint
	$(PYTEST) -m "not e2e"

# The delay line's timing checks (its round trip and throughput against the configured link) measure
# durations: they are a benchmark (`make bench`), not a test; its loss and order check stays a test.
DELAY_TIMING := TestRoundTripMatchesConfiguredRTT|TestBulkThroughputMatchesRate

# Each worker's own tests: every shared vector through its servers, its drive loop, its errors.
test-native: system
	cd delayline && go vet ./... && go test -short -count=1 -skip "$(DELAY_TIMING)" ./...
	cd workers/go && sh test.sh
	cd workers/rust && cargo test --release --locked -q
	cd workers/java && mvn -q -B test
	cd workers/node && sh test.sh

# Static checks, as CI runs them: ruff and mypy (strict on the whole package), go vet and gofmt,
# clippy with warnings as errors and rustfmt, node --check.
lint: setup system
	$(VENV)/bin/ruff check src tests benchmarks tools fuzz
	$(VENV)/bin/mypy
	cd workers/go && sh lint.sh
	cd workers/rust && cargo clippy --release --locked --all-targets -q -- -D warnings && cargo fmt --check
	cd workers/node && sh lint.sh

bench: setup system natives
	$(PY) benchmarks/harness_overhead.py
	$(PY) benchmarks/wire_bytes.py
	$(PY) benchmarks/delay_line.py
	cd delayline && go test -count=1 -v -run "$(DELAY_TIMING)" ./calibration/
	$(PY) benchmarks/significance.py
	$(PY) benchmarks/timing_claims.py

clean:
	rm -rf $(VENV) results
