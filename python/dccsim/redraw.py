"""`dccsim figures RUN_DIR`: draw a run's figure afterwards, from the run's own files.

For runs made with `--no-figures` (a long full-scale run, where only the numbers were wanted at
first) and for runs interrupted with Ctrl-C (`complete: false`: the finished variants are kept, the
figure never drawn). The inputs are what the run wrote: `scenario.toml` (the variants), the
metrics of every finished variant in `summary.json`, and the Parquet tables the figure reads, read
back with the column types the run had (`results.table_columns()`), so the figure is the one the
run would have drawn (test: byte-identical PNG). The figure is written via a temporary name and
listed in `summary.json`; nothing else in the directory changes.
"""

from __future__ import annotations

import json
from pathlib import Path

from .errors import ScenarioError


# Tables added after the first results schema: an older run may lack them (read as empty). Every
# run writes all the others, empty ones included, so a missing one was deleted: reported as such.
LATER_TABLES = ("pfc", "packets", "packet_int", "trace")


def _tables(variant_dir: Path, names, field: str) -> dict:
    """{table: {column: numpy array}} as `runner.frames` gives them, from the variant's Parquet
    files. A missing table (but one of LATER_TABLES) or an unreadable one raises ScenarioError
    naming the file, never a pyarrow error or a misleading "no samples"."""
    from . import results

    out = {}
    for name in names:
        f = variant_dir / f"{name}.parquet"
        t = None if not f.exists() and name in LATER_TABLES else results.read_table(f, field)
        cols = {} if t is None else {c: t.column(c).to_numpy(zero_copy_only=False) for c in t.column_names}
        out[name] = results.typed_columns(name, results.with_not_applicable(name, cols))
    return out


def draw(run_dir, fixed_scale: bool = False) -> Path:
    """Draw the figure of the run in `run_dir`; returns its path. `fixed_scale`: axes from the
    scenario, not the data (figure_layout.py), as if the run had `[experiment] fixed_scale`. Bad input (not a run, no analysis
    with a figure, no finished variant, a variant the scenario does not name) raises ScenarioError
    naming `run_dir`."""
    from . import results
    from .analysis import ANALYSES
    from .scenario import loads

    d = Path(run_dir)
    field = "run_dir"
    try:
        summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
        text = (d / "scenario.toml").read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise ScenarioError(
            field, f"{str(d)!r} is not a run directory (no {Path(e.filename).name})"
        ) from None
    except (OSError, ValueError) as e:
        raise ScenarioError(field, f"cannot read the run in {str(d)!r}: {e}") from None
    name = summary.get("analysis")
    analysis = ANALYSES.get(name) if name else None
    if analysis is None:
        raise ScenarioError(field, f"the run in {str(d)!r} has no analysis that draws a figure")
    order = summary.get("order") or []
    if not order:
        raise ScenarioError(field, f"the run in {str(d)!r} has no finished variant to draw")
    scn = loads(text)  # as the run read it (runner.variant_job)
    if fixed_scale:
        from .figure_layout import with_fixed_scale

        scn = with_fixed_scale(scn)
    by_slug = {v.slug: v for v in scn.variants()}
    names = analysis.FIGURE_TABLES or list(results.table_columns())
    series = {}
    for slug in order:
        if slug not in by_slug:
            raise ScenarioError(field, f"variant {slug!r} of {str(d)!r} is not in its scenario.toml")
        series[slug] = (by_slug[slug], _tables(d / slug, names, field), summary["runs"][slug]["metrics"])
    path = d / analysis.FIGURE
    from . import figure_file

    figure_file.write_figure(path, lambda p: analysis.figure(scn, series, p))
    if summary.get("figures") != [analysis.FIGURE]:
        summary["figures"] = [analysis.FIGURE]
        results.write_json(d / "summary.json", summary)
    return path
