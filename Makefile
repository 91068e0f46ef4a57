# dccsim developer entry points. `make demo` and `make test` work on a fresh machine: they
# install what they need (Python build tools and packages; the Rust toolchain must exist).
PY ?= python3
PIP := $(PY) -m pip
export CARGO_TERM_COLOR := never

.PHONY: install dev demo test lint test-rust test-python testbed-deps bench bench-main-job check-docs

# Build the Rust engine into the Python package and install it with its dependencies; byte-compile
# the editable sources once (with PYTHONDONTWRITEBYTECODE set, ~35 modules would otherwise be
# recompiled, ≈ 45 ms, on every dccsim start).
install:
	$(PIP) install -q --disable-pip-version-check --upgrade maturin
	$(PIP) install -q --disable-pip-version-check -e '.[test]'
	$(PY) -m compileall -q python/dccsim

# Development build (docs/write-an-algorithm.md): the engine with the dev-opt profile (no LTO,
# parallel codegen, incremental; the same results as release) swapped into the editable install, so
# a one-line engine change is a runnable `dccsim` in seconds. Needs `make install` once.
dev:
	cargo build --profile dev-opt -p dccsim-py
	cp target/dev-opt/lib_engine.so python/dccsim/_engine.abi3.so.tmp
	mv python/dccsim/_engine.abi3.so.tmp python/dccsim/_engine.abi3.so

# The main job: PowerTCP's 10:1 incast (paper Fig. 4), table on stdout, figure in runs/.
demo: install
	$(PY) -m dccsim run powertcp-incast

# The whole test suite: formatting and lint, engine (Rust) and Python (unit + integration), and
# the docs' tagged result tables against the runs that print them.
test: install lint test-rust test-python check-docs

# Formatting and lint are part of the suite: rustfmt (rustfmt.toml), ruff (pyproject.toml) and
# tools/check_imports.py (no import cycle between dccsim modules).
lint:
	cargo fmt --all --check
	rustfmt --check --edition 2021 crates/engine/src/cc/*.rs  # modules declared by build.rs: not reached by cargo fmt
	$(PY) -m ruff format --check python tests tools
	$(PY) -m ruff check python tests tools
	$(PY) -m dccsim.scenario.docs --check
	$(PY) tools/check_imports.py

test-rust:
	cargo test --release -p dccsim-engine -p dccsim-chart

# As root, the testbed tests run: install their tools first and fail loudly if that fails.
# Not root: they are skipped, and pytest's summary says how many and why (tests/testbed/conftest.py).
# TESTBED=skip opts out explicitly (e.g. on a shared machine where another run uses the testbed).
TESTBED ?= auto
testbed-deps:
	@if [ "$(TESTBED)" = skip ]; then echo "make: TESTBED=skip: the testbed tests are deselected"; \
	elif [ "$$(id -u)" = 0 ]; then .ci/testbed-deps.sh || { echo "make: error: .ci/testbed-deps.sh failed; the testbed tests cannot run (TESTBED=skip to deselect them)" >&2; exit 1; }; \
	else echo "make: not root: the testbed tests will be skipped (they need root and .ci/testbed-deps.sh)"; fi

test-python: testbed-deps
	$(PY) -m pytest -q tests $(if $(filter skip,$(TESTBED)),--ignore=tests/testbed)

# Rerun every experiment whose result table in docs/ is tagged (`<!-- check-docs: run NAME; cols … -->`)
# and fail when a number there differs from what the run prints (python/dccsim/docs_check.py;
# ≈ 15 short experiments, under a minute).
check-docs: install
	$(PY) -m dccsim.docs_check

bench: install
	$(PY) -m dccsim bench

# The main job's whole-process time pinned to one core, 11 runs, min/median/max with the load
# average (issue 28 item 4; docs/benchmarks.md). TREES="A/python B/python" alternates checkouts.
bench-main-job: install
	$(PY) tools/main_job_bench.py --runs 11 $(foreach t,$(TREES),--tree $(t))
