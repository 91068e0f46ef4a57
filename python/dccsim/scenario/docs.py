"""The generated tables of docs/scenario.md, from the engine's declarations.

    python -m dccsim.scenario.docs           # rewrite the generated blocks in docs/scenario.md
    python -m dccsim.scenario.docs --check   # exit 1 (naming the block) when the file differs

A block sits between ``<!-- BEGIN GENERATED: NAME -->`` and ``<!-- END GENERATED: NAME -->``;
everything outside the markers is written by hand. `make lint` (and so CI) runs ``--check``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable

from .. import units
from . import cc_docs, front_sections, schema

DOC = Path(__file__).resolve().parents[3] / "docs" / "scenario.md"

_FORMAT = {"size": units.format_size_exact, "time": units.format_time_exact, "rate": units.format_rate_exact}


def _value(k: schema.Key, v) -> str:
    if k.required:
        return "required"
    if v is None:
        return "absent"
    if k.type in _FORMAT and isinstance(v, int):
        return f'`"{_FORMAT[k.type](v)}"`'
    if isinstance(v, str):
        return f'`"{v}"`'
    if isinstance(v, bool):
        return f"`{str(v).lower()}`"
    if isinstance(v, list):
        return "`[]`" if not v else f"`{schema.to_toml_value(k, v)}`"
    if isinstance(v, dict):
        return f"`{v.get('kind', v)}`"
    return f"`{v}`"


def _range(k: schema.Key) -> str:
    if k.type == "choice":
        return " | ".join(f'`"{c}"`' for c in k.choices)
    if k.min is None and k.max is None:
        return ""
    fmt = _FORMAT.get(k.type, lambda x: f"{int(x)}" if k.type == "count" else f"{x:g}")

    def end(x):
        return fmt(int(x)) if k.type in _FORMAT else fmt(x)

    if k.max is None:
        return f"{'>' if k.min_open else '≥'} {end(k.min)}"
    lo = "(" if k.min_open else "["
    hi = ")" if k.max_open else "]"
    return f"{lo}{end(k.min)}, {end(k.max)}{hi}"


def _type(k: schema.Key) -> str:
    if k.section is None and k.type in ("table", "tables"):
        return {"table": "table", "tables": "list of tables"}[k.type]  # a section documented above
    return {
        "table": f"table (`[{k.section}]`)",
        "tables": f"list of tables (`[{k.section}]`)",
        "names": "list of names",
        "lists": "list of lists of integers",
    }.get(k.type, k.type)


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _all() -> dict[str, schema.Section]:
    """Every declared section, in the order a scenario file writes them: the top-level keys and
    the engine's sections, then [workload] (front_sections.py)."""
    front = front_sections.sections()
    return {"scenario": front.pop("scenario"), **schema.sections(), **front}


def _place(name: str) -> tuple[str, str]:
    """(heading, the dotted prefix of its keys in a scenario) of a section: a kind of a tagged
    section is written in that section's table (`[topology]` with `kind = "fattree"`); a
    sub-section written inline (key "") in its parent's table; the top-level keys in none."""
    if name == "scenario":
        return "top-level keys", ""
    sec = _all()[name]
    if sec.tag:
        return f'`[{sec.tag["of"]}]` with `kind = "{sec.tag["kind"]}"`', sec.tag["of"]
    for parent in _all().values():
        if any(k.inline and k.section == name for k in parent.keys):
            heading, prefix = _place(parent.name)
            return f"{heading}: its `{name}` keys", prefix
    return f"`[{name}]`", name


def section_table(name: str) -> str:
    """One section's keys as a Markdown table, then its rules."""
    sec = _all()[name]
    heading, prefix = _place(name)
    kinds = any(k.kinds for k in sec.keys)  # a kind-tagged section declared as one (workload)
    rows = [
        f"#### {heading}",
        "",
        "| key | type | default | allowed | what it is | source of the default |"
        + (" kinds |" if kinds else ""),
        "|---|---|---|---|---|---|" + ("---|" if kinds else ""),
    ]
    for k in sec.keys:
        if not k.key:
            continue
        rows.append(
            f"| `{k.key}` | {_type(k)} | {_value(k, k.default)} | {_cell(_range(k))} | {_cell(k.doc)} "
            f"| {_cell(k.source)} |" + (f" {', '.join(k.kinds) or 'all'} |" if kinds else "")
        )
    if sec.rules:
        rows += ["", "Rules across keys:", ""]
        rows += [f"- `{schema_dotted(prefix, key)}`: {_cell(msg)}" for key, msg in sec.rules]
    return "\n".join(rows)


def schema_dotted(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def scenario_keys() -> str:
    return "\n\n".join(section_table(n) for n in _all())


# name -> generator of the block's text (other declarations add their blocks here)
BLOCKS: dict[str, Callable[[], str]] = {
    "scenario keys": scenario_keys,
    "cc parameters": lambda: cc_docs.tables().rstrip("\n"),
}


def render(text: str) -> str:
    """`text` with every generated block rewritten."""
    for name, make in BLOCKS.items():
        begin, end = f"<!-- BEGIN GENERATED: {name} -->", f"<!-- END GENERATED: {name} -->"
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        if not pattern.search(text):
            raise SystemExit(f"docs/scenario.md: no block {begin!r} ... {end!r}")
        block = f"{begin}\n{make()}\n{end}"
        text = pattern.sub(lambda _m, block=block: block, text)
    return text


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    old = DOC.read_text(encoding="utf-8")
    new = render(old)
    if "--check" in argv:
        if new != old:
            print(
                "docs/scenario.md: the generated tables differ from the engine's declarations; "
                "run `python -m dccsim.scenario.docs`"
            )
            return 1
        return 0
    if new != old:
        DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
