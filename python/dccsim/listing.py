"""What `dccsim list` and `dccsim show --algorithm` print: the named experiments and the
engine's algorithms with their parameters, defaults and sources (from `dccsim._engine`, so the
listing cannot drift from what the engine accepts)."""

from __future__ import annotations

import re

from . import engine
from .errors import ScenarioError


def experiments_table() -> list[dict]:
    """[{name, title, analysis, variants: [{name, algorithm}]}] in catalog order; an experiment
    that does not load gets an "error" instead (one broken file must not hide the others)."""
    from . import experiments

    out = []
    for name in experiments.list_experiments():
        try:
            scn = experiments.get(name)
        except ScenarioError as e:
            out.append({"name": name, "error": str(e)})
            continue
        title = scn.experiment.title if scn.experiment and scn.experiment.title else scn.description
        out.append(
            {
                "name": name,
                "title": title or "",
                "analysis": scn.experiment.analysis if scn.experiment else None,
                "variants": [{"name": v.name, "algorithm": v.cc.algorithm} for v in scn.variants()],
            }
        )
    return out


def first_sentence(text: str) -> str:
    return re.split(r"\.\s+(?=[A-Z])", text.strip())[0] if text else ""


def algorithms_table() -> list[dict]:
    """engine.describe_algorithms() (name, source, params with defaults, choices)."""
    return engine.describe_algorithms()


def algorithm(name: str) -> dict:
    algs = algorithms_table()
    for a in algs:
        if a["name"] == name:
            return a
    raise ScenarioError("algorithm", f"unknown {name!r}; allowed: {', '.join(a['name'] for a in algs)}")


def _value(v) -> str:
    return (
        "(not set: derived by the algorithm from its variant and the flow's path)" if v is None else repr(v)
    )


def format_algorithms(algs: list[dict]) -> str:
    """One line per algorithm: name, its variants (if it has a `variant` parameter), source."""
    lines = []
    for a in algs:
        variants = a["choices"].get("variant")
        extra = f"  variants: {', '.join(variants)}" if variants else ""
        lines.append(f"{a['name']:16s} {a['source']}{extra}")
        lines.append(f"{'':16s} parameters: {', '.join(f'{k}={_short(v)}' for k, v in a['params'].items())}")
    return "\n".join(lines)


def _short(v) -> str:
    return "derived" if v is None else repr(v)


def format_algorithm(a: dict) -> str:
    """`dccsim show --algorithm NAME`: every parameter on its own line with its default."""
    lines = [f"{a['name']}: {a['source']}", "", "parameters (default):"]
    width = max((len(k) for k in a["params"]), default=0)
    for k, v in a["params"].items():
        choice = a["choices"].get(k)
        allowed = f"   one of: {', '.join(choice)}" if choice else ""
        lines.append(f"  {k:{width}s}  {_value(v)}{allowed}")
    lines.append("")
    lines.append("Set them beside `algorithm` in [cc] (plain SI numbers, e.g. seconds, bits/s, bytes).")
    return "\n".join(lines)
