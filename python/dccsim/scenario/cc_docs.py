"""The congestion-control parameter tables of docs/scenario.md, from the engine's declaration
(``engine.describe_algorithms()``; each algorithm's ``cc_params!`` in crates/engine/src/cc/<name>.rs).
`python -m dccsim.scenario.docs` writes them with the scenario-key tables (block "cc parameters")."""

from __future__ import annotations

from .. import engine


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return head + ("." if dot else "")


def _default(k: dict) -> str:
    v = k["default"]
    if v is None:
        return "derived"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        v = int(v)
    unit = f" {k['unit']}" if k["unit"] else ""
    return f"{v}{unit}"


def tables(algorithms: list[dict] | None = None) -> str:
    """Markdown: per algorithm its source, a table of its parameters, and its rules."""
    out = []
    for a in engine.describe_algorithms() if algorithms is None else algorithms:
        out.append(f"**`{a['name']}`** — {_cell(a['source'])}")
        out.append("")
        out.append("| key | symbol | allowed | default | meaning | default from |")
        out.append("|---|---|---|---|---|---|")
        for k in a["keys"]:
            key = f"`{k['key']}`" + (f" (was `{k['alias']}`)" if k.get("alias") else "")
            row = (key, k["symbol"], k["allowed"], _default(k), _first_sentence(k["doc"]), k["source"])
            out.append("| " + " | ".join(_cell(c) for c in row) + " |")
        if a["rules"]:
            out.append("")
            out.append("Rules: " + "; ".join(f"`{r['key']}` {_cell(r['message'])}" for r in a["rules"]) + ".")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
