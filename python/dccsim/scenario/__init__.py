"""Scenario files: TOML with units  ->  validated `Scenario`  ->  engine JSON (docs/engine-api.md).

Layout (imports only flow downwards, no cycles)::

    fields.py          converters for one field each (units, integers, choices) and the Table reader
    schema.py          the engine's sections ([topology], [switch], [host], [metrics]) as it declares them
    front_sections.py  the sections only the front reads (top-level keys, [workload]), declared once
    cc_params.py       the algorithms' parameters, from the engine's description
    model.py           the validated Scenario (frozen dataclasses, engine units)   <- to_engine.py
    parse.py           TOML text / dict  ->  Scenario (every field checked)       <- fields, model
    workload.py        [workload] -> model.Workload, from front_sections' declaration
    toml_out.py        Scenario  ->  TOML with exact units (`dccsim show`)       <- model
    docs.py            the generated key tables of docs/scenario.md

Every validation error is a :class:`~dccsim.errors.ScenarioError` whose field is the user-facing
dotted name (``topology.host_rate``, ``flows[2].src``, ``experiment.variants[1].cc.algorithm``) and
whose message states what is allowed.
"""

from __future__ import annotations

from ..errors import ScenarioError
from .model import (
    CcSpec,
    Ecn,
    Experiment,
    Flow,
    Host,
    Link,
    Metrics,
    Scenario,
    Pfc,
    Switch,
    Topology,
    Variant,
    Workload,
    slugify,
)
from .parse import from_dict, known_algorithms, load, loads
from .toml_out import dump_toml, to_dict

__all__ = [
    "CcSpec",
    "Ecn",
    "Experiment",
    "Flow",
    "Host",
    "Pfc",
    "Link",
    "Metrics",
    "Scenario",
    "ScenarioError",
    "Switch",
    "Topology",
    "Variant",
    "Workload",
    "dump_toml",
    "from_dict",
    "known_algorithms",
    "load",
    "loads",
    "slugify",
    "to_dict",
]
