"""The catalog of named experiments: one packaged TOML scenario per experiment.

The analysis an experiment runs is named inside its file (`[experiment] analysis`).
"""

from __future__ import annotations

from importlib import resources

from ..errors import ScenarioError
from ..scenario import Scenario, loads


def _files() -> dict:
    return {p.name[:-5]: p for p in resources.files(__name__).iterdir() if p.name.endswith(".toml")}


def list_experiments() -> list[str]:
    return sorted(_files())


def text(name: str) -> str:
    files = _files()
    if name not in files:
        raise ScenarioError("experiment", f"unknown experiment {name!r}; allowed: {', '.join(sorted(files))}")
    return files[name].read_text(encoding="utf-8")


def get(name: str) -> Scenario:
    return loads(text(name), default_name=name)
