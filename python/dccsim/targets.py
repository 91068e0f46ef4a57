"""What a command's scenario argument names: a scenario file or an experiment of the catalog.

One rule for `dccsim run`, `dccsim show` and `dccsim testbed run`: the argument is a file when it
ends in `.toml` or is a regular file; anything else, a directory included (e.g. an earlier
`--out testbed-shared-4` in the working directory), is an experiment name."""

from __future__ import annotations

from pathlib import Path


def is_scenario_file(target: str) -> bool:
    return target.endswith(".toml") or Path(target).is_file()
