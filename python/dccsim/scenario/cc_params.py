"""The parameters of the congestion controllers, as the engine declares them.

Each algorithm declares its parameters in its own file (crates/engine/src/cc/<name>.rs,
``cc_params!``): type, unit, range, paper symbol, description, the source of its default, and
its cross-field rules. This module names no algorithm: it reads that declaration
(``engine.describe_algorithms()``) and has the engine check a scenario's table
(``engine.check_cc``), so a scenario is refused at load time with the dotted field of the mistake
(``experiment.variants[0].cc.gama``) instead of after the simulation starts. The front adds only
what JSON cannot carry to the engine (a NaN or infinity is refused here) and the warning for a
renamed key (``variant``, now ``law``).
"""

from __future__ import annotations

import functools
import math
import sys

from .. import engine
from ..errors import ScenarioError

_warned: set[str] = set()


@functools.cache
def algorithms() -> dict[str, dict]:
    """{name: the engine's description of the algorithm} (``engine.describe_algorithms``)."""
    return {a["name"]: a for a in engine.describe_algorithms()}


def needs_int(algorithm: str) -> bool:
    """The controller reads INT (the engine refuses to run it with ``switch.int = false``)."""
    a = algorithms().get(algorithm)
    return bool(a and a["caps"]["needs_int"])


def _finite(value, field: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(field, f"must be finite, got {value!r}")
    if isinstance(value, list):
        for i, x in enumerate(value):
            _finite(x, f"{field}[{i}]")


def _renamed(algorithm: str, params: dict, prefix: str) -> dict:
    """Old spellings of keys (``variant`` for ``law``) under the new name, with a warning (once
    per place in a run). The engine has already refused a table that gives both."""
    out = dict(params)
    for k in algorithms()[algorithm]["keys"]:
        old = k.get("alias")
        if not old or old not in out:
            continue
        out[k["key"]] = out.pop(old)
        where = f"{prefix}.{old}"
        if where not in _warned:
            _warned.add(where)
            print(f"dccsim: warning: {where} is renamed {prefix}.{k['key']}", file=sys.stderr)
    return {k: out[k] for k in sorted(out)}


def check(algorithm: str, params: dict, prefix: str) -> dict:
    """Check `params` of `algorithm` (field names `<prefix>.<key>`); returns them, renamed keys
    under their new names."""
    if algorithm not in algorithms():  # the caller checks the name; the engine would refuse it
        return params
    for key, value in params.items():
        _finite(value, f"{prefix}.{key}")
    engine.check_cc(algorithm, params, prefix)  # reads an old key too, naming it as written
    return _renamed(algorithm, params, prefix)  # warns only for a table that passed
