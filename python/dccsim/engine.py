"""The only module that talks to the compiled engine (``dccsim._engine``).

Input errors the engine reports as ``ValueError("<field>: <message>")`` are re-raised as
:class:`~dccsim.errors.ScenarioError` so the CLI treats them like front-side validation errors.
"""

from __future__ import annotations

import json

from .errors import EngineUnavailable, InvariantViolation, ScenarioError


def _module():
    try:
        from . import _engine  # type: ignore[attr-defined]
    except ImportError as e:
        raise EngineUnavailable(
            "the compiled engine dccsim._engine is not installed; build it with "
            "`maturin develop --release` (or `pip install .`)"
        ) from e
    return _engine


def require() -> None:
    """Raise EngineUnavailable (with the build hint) unless the engine can be imported."""
    _module()


def available() -> bool:
    try:
        _module()
    except EngineUnavailable:
        return False
    return True


def algorithms() -> list[str]:
    """Controller names this engine build knows."""
    return list(_module().algorithms())


def schema() -> dict:
    """The engine's result tables: {table: [(column, dtype)]}, dtype "int64" | "float64" | "string"."""
    return {k: [tuple(c) for c in v] for k, v in _module().schema().items()}


def describe_algorithms() -> list[dict]:
    """Every algorithm: {"name", "source", "params": {name: default or None}, "choices": {...},
    "keys": [{key, type, unit, min, max, min_open, max_open, default, symbol, doc, source, alias}],
    "rules": [{key, message}], "caps": {"needs_int", "study_nic", "linux_host_queue"}} (crates/engine/src/cc/)."""
    return json.loads(_module().describe_algorithms())


def scenario_schema() -> str:
    """The scenario sections the engine declares, as JSON (scenario/schema.py reads it)."""
    return _module().scenario_schema()


def check_section(section: str, values: dict, prefix: str) -> None:
    """The engine's check of one scenario section (its engine JSON): ranges and cross-field rules;
    a ScenarioError naming `prefix.key` when one fails."""
    try:
        _module().check_section(section, json.dumps(values), prefix)
    except ValueError as e:
        field, _, msg = str(e).partition(": ")
        raise ScenarioError(field, msg) from None


def check_cc(algorithm: str, params: dict, prefix: str) -> None:
    """The engine's check of `algorithm`'s parameters (names, types, ranges, cross-field rules);
    ScenarioError naming `<prefix>.<key>`."""
    try:
        _module().check_cc(algorithm, json.dumps(params), prefix)
    except ValueError as e:
        field, _, msg = str(e).partition(": ")
        raise ScenarioError(field, msg) from None


def topology_facts(topology: dict) -> tuple[int, tuple[str, ...], int]:
    """(hosts, node names with hosts first, egress ports) of a topology in the engine's JSON form,
    as the engine builds it; ScenarioError naming the field when it cannot be built."""
    try:
        hosts, names, ports = _module().topology_facts(json.dumps(topology))
    except ValueError as e:
        field, _, msg = str(e).partition(": ")
        raise ScenarioError(field, msg) from None
    return hosts, tuple(names), ports


def line_chart(spec: str, xs: list, ys: list, font: str, path: str) -> None:
    """Draw a chart described by `spec` (JSON, crates/chart) natively and write its PNG (chart.py)."""
    _module().line_chart(spec, xs, ys, font, path)


def poll_events() -> int:
    """Events between two calls of a run's `progress` callback."""
    return int(_module().POLL_EVENTS)


def version() -> str | None:
    mod = _module()
    return getattr(mod, "__version__", None) or getattr(mod, "VERSION", None)


def run(config: dict, progress=None) -> dict:
    """Run one resolved engine configuration (docs/engine-api.md) and return the engine's dict:
    "summary" (counters) and the tables of `schema()` as {column: numpy array (str: list)}.
    `progress(now_ps)`, when given, is called every `POLL_EVENTS` events with the simulated time."""
    mod = _module()
    text = json.dumps(config, sort_keys=True)
    try:
        return mod.run(text, progress)
    except mod.InvariantViolation as e:
        raise InvariantViolation(str(e)) from None
    except ValueError as e:
        msg = str(e)
        field, sep, rest = msg.partition(": ")
        if sep and field and " " not in field:
            raise ScenarioError(field, rest) from None
        raise ScenarioError("scenario", msg) from None
