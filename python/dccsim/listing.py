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
    return "(not set: derived by the algorithm from its law and the flow's path)" if v is None else repr(v)


def format_algorithms(algs: list[dict]) -> str:
    """One line per algorithm: name, its laws (if it has a `law` parameter), source."""
    lines = []
    for a in algs:
        laws = a["choices"].get("law")
        extra = f"  laws: {', '.join(laws)}" if laws else ""
        lines.append(f"{a['name']:16s} {a['source']}{extra}")
        lines.append(f"{'':16s} parameters: {', '.join(f'{k}={_short(v)}' for k, v in a['params'].items())}")
    return "\n".join(lines)


def _short(v) -> str:
    return "derived" if v is None else repr(v)


def format_algorithm(a: dict) -> str:
    """`dccsim show --algorithm NAME`: every parameter on its own line with its default, unit,
    paper symbol and allowed values; then the rules across parameters."""
    lines = [f"{a['name']}: {a['source']}", "", "parameters (default):"]
    width = max((len(k) for k in a["params"]), default=0)
    for k in a["keys"]:
        choice = k.get("choices")
        allowed = f"   one of: {', '.join(choice)}" if choice else ""
        unit = f" {k['unit']}" if k["unit"] and k["default"] is not None else ""
        symbol = f"   ({k['symbol']})" if k["symbol"] else ""
        lines.append(f"  {k['key']:{width}s}  {_value(k['default'])}{unit}{allowed}{symbol}")
    if a["rules"]:
        lines.append("")
        lines.append("rules:")
        lines.extend(f"  {r['key']}: {r['message']}" for r in a["rules"])
    lines.append("")
    lines.append(
        "Set them beside `algorithm` in [cc] (plain numbers in the unit their name says: _us, _bps, _bytes, _mss)."
    )
    return "\n".join(lines)
