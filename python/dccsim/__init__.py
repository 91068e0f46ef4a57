"""dccsim: a datacenter congestion-control simulator (Rust engine, Python front)."""

from __future__ import annotations

from .errors import ScenarioError

__all__ = ["ScenarioError", "__version__"]


def __getattr__(name: str):
    """`dccsim.__version__`, resolved on first use (PEP 562): importing importlib.metadata costs
    ≈ 50 ms, paid otherwise by every `dccsim` command (docs/benchmarks.md, front end). The engine
    carries the same number (maturin takes the package version from the Cargo workspace, and the
    engine module exports CARGO_PKG_VERSION); the package metadata answers when it is not built."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import engine

    try:
        version = engine.version()
    except Exception:  # no engine in this checkout: the installed distribution's metadata
        version = None
    if not version:
        from importlib.metadata import PackageNotFoundError, version as dist_version

        try:
            version = dist_version("dccsim")
        except PackageNotFoundError:
            version = "0.0.0+unknown"
    globals()["__version__"] = version
    return version
