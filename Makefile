# dccsim developer entry points. `make demo` and `make test` work on a fresh machine: they
# install what they need (Python build tools and packages; the Rust toolchain must exist).
PY ?= python3
PIP := $(PY) -m pip
export CARGO_TERM_COLOR := never

.PHONY: install demo test lint test-rust test-python bench

# Build the Rust engine into the Python package and install it with its dependencies.
install:
	$(PIP) install -q --disable-pip-version-check --upgrade maturin
	$(PIP) install -q --disable-pip-version-check -e '.[test]'

# The main job: PowerTCP's 10:1 incast (paper Fig. 4), table on stdout, figure in runs/.
demo: install
	$(PY) -m dccsim run powertcp-incast

# The whole test suite: formatting and lint, engine (Rust) and Python (unit + integration).
test: install lint test-rust test-python

# Formatting and lint are part of the suite: rustfmt (rustfmt.toml) and ruff (pyproject.toml).
lint:
	cargo fmt --all --check
	$(PY) -m ruff format --check python tests
	$(PY) -m ruff check python tests

test-rust:
	cargo test --release -p dccsim-engine

test-python:
	$(PY) -m pytest -q tests

bench: install
	$(PY) -m dccsim bench
