"""The catalog of named experiments: one packaged TOML scenario per experiment, and `resolve`,
which turns what a user names on the command line (an experiment or a scenario file) into a
scenario.

The analysis an experiment runs is named inside its file (`[experiment] analysis`).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Optional

from ..errors import ScenarioError
from ..scenario import Scenario, load, loads
from ..scenario.fields import did_you_mean
from ..targets import is_scenario_file


def _files() -> dict:
    return {p.name[:-5]: p for p in resources.files(__name__).iterdir() if p.name.endswith(".toml")}


def list_experiments() -> list[str]:
    return sorted(_files())


def text(name: str) -> str:
    files = _files()
    if name not in files:
        hint = did_you_mean(name, files)
        raise ScenarioError(
            "experiment", f"unknown experiment {name!r}{hint}; allowed: {', '.join(sorted(files))}"
        )
    return files[name].read_text(encoding="utf-8")


def get(name: str) -> Scenario:
    return loads(text(name), default_name=name)


def resolve(target: str, sets=(), added=()) -> Scenario:
    """An experiment name from the catalog, or a path to a TOML scenario file; `sets` are
    `--set dotted.key=value` overrides of its raw TOML, `added` are `--add-variant NAME=ALG`
    variants beside the experiment's own (overrides.py)."""
    if sets or added:
        from .. import overrides

        return overrides.resolve(*raw_scenario(target), sets, added)
    if is_scenario_file(target):
        return load(target)
    return get(target)


def raw_scenario(target: str) -> tuple[dict, str, Optional[Path]]:
    """The raw TOML table of a scenario file or catalog experiment (read as `scenario.load` reads
    it: bounded, depth-limited), its default name and the directory its relative paths are
    relative to."""
    from ..bounded_read import read_text, toml_loads

    if is_scenario_file(target):
        path = Path(target)
        raw_text, name, base_dir = read_text(path, "scenario"), path.stem, path.parent
    else:
        raw_text, name, base_dir = text(target), target, None
    return toml_loads(raw_text.removeprefix("\ufeff"), "scenario"), name, base_dir


def default_out(target: str, scn: Scenario, sets=()) -> Path:
    """runs/<file stem or catalog name>-seed<N> (never the `name` written inside the file);
    with edits (`--set` overrides, `--add-variant`s), runs/<stem>-set-<hash of the edits>-seed<N>,
    so that a variation does not collide with the unedited run."""
    from .. import outdir

    stem = Path(target).stem if is_scenario_file(target) else target
    if sets:
        from ..overrides import digest

        stem = f"{stem}-set-{digest(sets)}"
    return outdir.default_dir(stem, scn.seed)
