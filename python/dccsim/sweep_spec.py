"""Sweep specifications (`dccsim sweep spec.toml`): a base experiment or scenario file plus a
grid, expanded into points. Format (docs/python-front.md):

    [sweep]
    base = "powertcp-incast"          # catalog name, or a scenario file (relative to this spec)
    variants = ["PowerTCP", "HPCC"]   # optional: only these variants of the base
    seeds = [1, 2]                    # optional: default [the base's seed]
    out = "sweeps/incast-gamma"       # optional: default sweeps/<spec file stem>
    figures = false                   # optional: draw each point's figure

    [grid]                            # dotted scenario keys (as in `dccsim show`) -> values
    "cc.gamma" = [0.8, 0.9]
    "topology.host_rate" = ["10Gbps", "25Gbps"]
    "experiment.variants[1].cc.eta" = [0.9, 0.95]

A point is one combination of grid values and one seed. Its id is a hash of its values, its seed
and the resolved base scenario (so a point keeps its directory when the grid grows, and a changed
base never reuses an old point), and every point's scenario is resolved, and so validated, before
anything runs.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .errors import ScenarioError

SWEEP_KEYS = {"base", "variants", "seeds", "out", "figures"}
_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)((?:\[[0-9]+\])*)")


@dataclass(frozen=True)
class Point:
    id: str
    params: dict  # dotted key -> value, in grid order
    seed: int


@dataclass
class SweepSpec:
    name: str
    base_text: str  # the base scenario as resolved TOML (`dccsim show` form)
    variants: Optional[list]
    seeds: list
    grid: dict  # dotted key -> list of values
    out: Path
    figures: bool

    def points(self) -> list[Point]:
        keys = list(self.grid)
        out = []
        for values in itertools.product(*(self.grid[k] for k in keys)):
            params = dict(zip(keys, values))
            for seed in self.seeds:
                out.append(Point(point_id(params, seed, self.base_text), params, seed))
        return out


def point_id(params: dict, seed: int, base_text: str) -> str:
    """A hash of the point's values, its seed and the resolved base scenario: a point of a changed
    base never takes the directory (and finished results) of the old base's point."""
    base = hashlib.sha256(base_text.encode("utf-8")).hexdigest()
    text = json.dumps({"params": params, "seed": seed, "base": base}, sort_keys=True, separators=(",", ":"))
    return "p-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def set_dotted(data: dict, key: str, value: Any, field: str) -> None:
    """data[a][b][i][c] = value for key "a.b[i].c"; tables on the way are created, list
    indices must exist."""
    parts = key.split(".")
    node: Any = data
    for n, part in enumerate(parts):
        m = _SEGMENT.fullmatch(part)
        if not m:
            raise ScenarioError(
                field, f"bad key segment {part!r}; write dotted names like 'cc.gamma' or 'flows[0].size'"
            )
        name, idx = m.group(1), [int(i) for i in re.findall(r"\[([0-9]+)\]", m.group(2))]
        last = n == len(parts) - 1 and not idx
        if not isinstance(node, dict):
            raise ScenarioError(field, f"{'.'.join(parts[:n])} is not a table")
        if last:
            node[name] = value
            return
        node = node.setdefault(name, {} if not idx else [])
        for k, i in enumerate(idx):
            if not isinstance(node, list) or i >= len(node):
                raise ScenarioError(field, f"{name} has no element [{i}]")
            if n == len(parts) - 1 and k == len(idx) - 1:
                node[i] = value
                return
            node = node[i]


def scenario_for(base_text: str, params: dict, seed: int, name: str):
    """The base scenario with the point's values set and its seed; validated."""
    from .scenario import from_dict, loads, to_dict

    data = copy.deepcopy(to_dict(loads(base_text, default_name=name)))
    for key, value in params.items():
        set_dotted(data, key, value, f"grid.{key}")
    data["seed"] = seed
    try:
        return from_dict(data, default_name=name)
    except ScenarioError as e:
        raise ScenarioError(
            e.field, f"{e.message} (sweep point {json.dumps(params, sort_keys=True)})"
        ) from None


def _table(data: dict, key: str) -> dict:
    v = data.get(key, {})
    if not isinstance(v, dict):
        raise ScenarioError(key, "must be a table")
    return v


def load(path, out: Optional[str] = None, sets=()) -> SweepSpec:
    """`sets`: `--set dotted.key=value` overrides of the base scenario (overrides.py)."""
    from .experiments import resolve
    from .scenario import dump_toml

    from .bounded_read import load_toml_file

    path = Path(path)
    data = load_toml_file(path, "sweep")  # regular file, size and depth limits (bounded_read.py)
    unknown = set(data) - {"sweep", "grid"}
    if unknown:
        raise ScenarioError(sorted(unknown)[0], "unknown table; allowed: [sweep], [grid]")
    sw, grid = _table(data, "sweep"), _table(data, "grid")
    bad = set(sw) - SWEEP_KEYS
    if bad:
        raise ScenarioError(
            f"sweep.{sorted(bad)[0]}", f"unknown key; allowed: {', '.join(sorted(SWEEP_KEYS))}"
        )
    if "base" not in sw or not isinstance(sw["base"], str):
        raise ScenarioError("sweep.base", "missing: a catalog experiment name or a scenario file")
    base = sw["base"]
    rel = path.parent / base
    try:
        scn = resolve(str(rel) if base.endswith(".toml") or rel.is_file() else base, sets)
    except ScenarioError as e:
        if e.field not in ("scenario", "experiment"):
            raise  # a field of the base scenario: named as in that file
        raise ScenarioError("sweep.base", e.message) from None
    seeds = sw.get("seeds", [scn.seed])
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and s >= 0 for s in seeds):
        raise ScenarioError("sweep.seeds", "a non-empty list of integers >= 0")
    variants = sw.get("variants")
    if variants is not None:
        if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
            raise ScenarioError("sweep.variants", "a list of variant names")
        for v in variants:
            try:
                scn.variant(v)  # raises naming the allowed variants
            except ScenarioError as e:
                raise ScenarioError("sweep.variants", e.message) from None
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ScenarioError(f"grid.{key}", "a non-empty list of values")
    spec = SweepSpec(
        name=path.stem,
        base_text=dump_toml(scn),
        variants=variants,
        seeds=list(seeds),
        grid=dict(grid),
        out=Path(out or sw.get("out") or Path("sweeps") / path.stem),
        figures=bool(sw.get("figures", False)),
    )
    for key, values in grid.items():
        texts = [json.dumps(v, sort_keys=True) for v in values]
        for i, t in enumerate(texts):
            if t in texts[:i]:
                raise ScenarioError(f"grid.{key}", f"value {t} is listed twice; each value must appear once")
    if len(set(seeds)) != len(seeds):
        raise ScenarioError("sweep.seeds", "a seed is listed twice; each seed must appear once")
    for p in spec.points():  # validate every point before anything runs
        s = scenario_for(spec.base_text, p.params, p.seed, scn.name)
        [s.to_engine_config(v) for v in s.variants()]
    return spec
