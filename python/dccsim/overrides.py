"""Command-line overrides: `--set dotted.key=value` (repeatable) on `run`, `sweep` and `show`.

Each override is applied to the scenario's raw TOML table (the file as written, or the catalog
experiment's file) before validation, so the edited scenario is checked exactly like a file:
an error names the dotted field, an unknown key gets the file's "unknown key; allowed: ..." line.

The value is read as a TOML value (`0.8`, `true`, `[1, 2]`, `"x"`, `{ kind = "step", k = "5KB" }`)
and, when it is not one, taken as a string (`2MiB`, `hpcc`, `25Gbps`). Keys are the dotted names
of `dccsim show` with list indices: `experiment.variants[0].cc.algorithm`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional, Sequence

from .errors import ScenarioError

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)((?:\[[0-9]+\])*)")
_INDEX = re.compile(r"\[([0-9]+)\]")


def parse_value(text: str) -> Any:
    """`text` as a TOML value, or the string itself when it is not one."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse(item: str) -> tuple[str, Any]:
    """ "a.b[1].c=value" -> ("a.b[1].c", value)."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ScenarioError("--set", f"expected dotted.key=value (e.g. cc.gamma=0.8), got {item!r}")
    return key, parse_value(value.strip())


def apply(data: dict, key: str, value: Any) -> None:
    """data[a][b][i][c] = value for key "a.b[i].c". Tables on the way are created when missing;
    list elements must exist. Errors name the key."""
    node: Any = data
    path = ""
    parts = key.split(".")
    for n, part in enumerate(parts):
        m = _SEGMENT.fullmatch(part)
        if not m:
            raise ScenarioError(
                key, f"bad key segment {part!r}; write dotted names like cc.gamma or flows[0].size"
            )
        steps: list = [m.group(1)] + [int(i) for i in _INDEX.findall(m.group(2))]
        for k, step in enumerate(steps):
            last = n == len(parts) - 1 and k == len(steps) - 1
            if isinstance(step, str):
                if not isinstance(node, dict):
                    raise ScenarioError(path or key, "is not a table, so it has no key " + repr(step))
                path = f"{path}.{step}" if path else step
                if last:
                    node[step] = value
                    return
                if step not in node:
                    if k + 1 < len(steps):
                        raise ScenarioError(path, f"has no element [{steps[k + 1]}] (it is not set)")
                    node[step] = {}
                node = node[step]
            else:
                if not isinstance(node, list) or step >= len(node):
                    size = f"{len(node)} elements" if isinstance(node, list) else "not a list"
                    raise ScenarioError(f"{path}[{step}]", f"no such element ({path} has {size})")
                path = f"{path}[{step}]"
                if last:
                    node[step] = value
                    return
                node = node[step]


def digest(sets: Sequence[str]) -> str:
    """8 hex digits naming a list of overrides (the default output directory of `run --set`)."""
    import hashlib

    return hashlib.sha256("\n".join(sets).encode("utf-8")).hexdigest()[:8]


def add_variant(data: dict, item: str) -> None:
    """`--add-variant NAME=ALGORITHM` (or `NAME=PLUGIN.bpf.c`/`.o`, a plugin: docs/plugins.md): a
    variant of that name running that controller, appended
    to the experiment's variants (after them, so `--set experiment.variants[N].cc.KEY=VALUE`
    reaches it) and marked `added`: in the table and the figure, left out of the paper's claims."""
    name, sep, algorithm = item.partition("=")
    if not sep or not name.strip() or not algorithm.strip():
        raise ScenarioError(
            "--add-variant",
            f"expected NAME=ALGORITHM or NAME=PLUGIN.bpf.c (e.g. 'My AIMD=reno'), got {item!r}",
        )
    exp = data.setdefault("experiment", {})
    if not isinstance(exp, dict):
        raise ScenarioError("experiment", "must be a table")
    variants = exp.get("variants")
    if variants is None:  # a plain scenario: its own controller is the first variant
        cc = data.get("cc", {})
        variants = exp["variants"] = [
            {"name": cc.get("algorithm", "scenario") if isinstance(cc, dict) else "scenario", "cc": cc}
        ]
    what = algorithm.strip()
    plugin = what.endswith((".c", ".o"))  # a file given on the command line: relative to the cwd
    cc = {"plugin": str(Path(what).expanduser().resolve())} if plugin else {"algorithm": what}
    variants.append({"name": name.strip(), "cc": cc, "added": True})


def resolve(data: dict, name: str, base_dir: Optional[Path], sets: Sequence[str], added: Sequence[str] = ()):
    """The raw scenario table `data` (named `name`, its relative paths relative to `base_dir`)
    with the overrides `sets` applied, validated."""
    from .scenario import from_dict

    for item in added:
        add_variant(data, item)
    for item in sets:
        key, value = parse(item)
        apply(data, key, value)
    return from_dict(data, default_name=name, base_dir=base_dir)
