"""`dccsim claims DIR[:VARIANTS] ...` — an experiment's claims over variants run in several invocations.

A paper-scale experiment takes hours, so its variants are often run in pieces (`dccsim run
EXPERIMENT --variant ...`), each into its own directory. This command evaluates the experiment's
claims over the union of their variants, exactly as one run of all of them would (the analysis's
`claims` over the per-variant metrics stored in each summary.json), and prints the report table.
It writes nothing.

The pieces must be one experiment: the same experiment name, seed, analysis, scenario.toml and
flow list (flows_input.parquet) — otherwise the comparison would pair different flows. A variant
may come from one directory only; `DIR:slug1,slug2` takes only those variants of DIR.
`--allow-different-scenarios` relaxes the first rule (experiment name, scenario.toml, flow list)
to a warning per difference, for pieces that differ in what their variants do not use — e.g. a
variant of `powertcp-load` at 60 % beside `powertcp-websearch`'s run of the same point, or a
run made before a scenario key that the variant does not read was added. Seed and analysis must
still agree; whether the paired variants ran on the same flows is then the user's to check.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from .errors import ScenarioError


def _source(arg: str) -> tuple[Path, set[str] | None]:
    """DIR or DIR:slug1,slug2 (a directory whose name holds ':' is taken whole)."""
    if not Path(arg).is_dir() and ":" in arg:
        d, picks = arg.rsplit(":", 1)
        return Path(d), {p for p in picks.split(",") if p}
    return Path(arg), None


def _window(t: str, lo: int, hi: int) -> str:
    return ("…" if lo else "") + t[lo:hi] + ("…" if len(t) > hi else "")


def _first_difference(a: str, b: str, context: int = 30) -> str:
    """Where two texts first differ: the line, and a short window of each around the first
    differing character (a description line can be a paragraph long)."""
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            k = next((j for j, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            lo, hi = max(0, k - context), k + context
            return f"line {i}, column {k + 1}: {_window(x, lo, hi)!r} vs {_window(y, lo, hi)!r}"
    return "one is longer"


def merge(args: list[str], allow_different: bool = False) -> tuple[object, dict]:
    """(scenario, summary) of the union of the runs in `args`; ScenarioError naming what differs
    (with allow_different, the experiment, scenario and flow-list differences go to "warnings")."""
    from .analysis import ANALYSES
    from .scenario import loads

    if not args:
        raise ScenarioError("claims", "give at least one result directory")
    first: dict | None = None
    runs: dict[str, dict] = {}
    sources: dict[str, str] = {}
    complete = True
    warnings: list[str] = []
    texts: dict[str, str] = {}

    def differs(field: str, message: str) -> None:
        if not allow_different:
            raise ScenarioError(field, message)
        warnings.append(f"{field}: {message}")

    for arg in args:
        d, picks = _source(arg)
        try:
            summary = json.loads((d / "summary.json").read_text())
            text = (d / "scenario.toml").read_text()
            flows = (d / "flows_input.parquet").read_bytes()
        except (OSError, ValueError) as e:
            raise ScenarioError(str(d), f"not a result directory of `dccsim run` ({e})") from None
        if not isinstance(summary, dict) or not isinstance(summary.get("runs"), dict):
            raise ScenarioError(f"{d}/summary.json", "not a run's summary (no `runs` table)")
        if first is None:
            first = {"dir": d, "summary": summary, "text": text, "flows": flows}
        ref = first["summary"]
        for key in ("experiment", "seed", "analysis", "schema"):
            if summary.get(key) != ref.get(key):
                field, message = (
                    f"{d}: {key}",
                    f"is {summary.get(key)!r}, but {ref.get(key)!r} in {first['dir']}",
                )
                if key != "experiment":  # only the name may differ, and only when allowed
                    raise ScenarioError(field, message)
                differs(field, message)
        if text != first["text"]:
            differs(
                f"{d}/scenario.toml",
                f"differs from {first['dir']}'s ({_first_difference(first['text'], text)}): not one experiment",
            )
        if flows != first["flows"]:
            differs(f"{d}/flows_input.parquet", f"differs from {first['dir']}'s: not the same flows")
        if picks is not None and picks - set(summary["runs"]):
            raise ScenarioError(
                str(arg),
                f"no variant {sorted(picks - set(summary['runs']))} here; it has {list(summary['runs'])}",
            )
        for slug, run in summary["runs"].items():
            if picks is not None and slug not in picks:
                continue
            if slug in runs:
                raise ScenarioError(
                    slug, f"is in both {sources[slug]} and {d}; pick one with DIR:{slug} or leave it out"
                )
            if not isinstance(run, dict) or not isinstance(run.get("metrics"), dict):
                raise ScenarioError(f"{d}/summary.json: runs.{slug}", "has no metrics (not a run's summary)")
            runs[slug] = run
            sources[slug] = str(d)
        texts[str(d)] = text
        complete = complete and bool(summary.get("complete"))
    ref = first["summary"]
    if ref.get("analysis") not in ANALYSES:
        raise ScenarioError(f"{first['dir']}: analysis", f"{ref.get('analysis')!r} has no claims to evaluate")
    scn = loads(first["text"], default_name=ref["experiment"])
    # the first scenario's variants in its order, then those only another piece's scenario has
    # (pieces of different scenarios), so that the report lists every merged variant
    variants = {v.slug: v for v in scn.variants() if v.slug in runs}
    for d, text in texts.items():
        if len(variants) < len(runs) and text != first["text"]:
            for v in loads(text, default_name=ref["experiment"]).variants():
                if v.slug in runs and sources[v.slug] == d:
                    variants.setdefault(v.slug, v)
    order = list(variants)
    scn = dataclasses.replace(
        scn, experiment=dataclasses.replace(scn.experiment, variants=tuple(variants.values()))
    )
    metrics = {slug: runs[slug]["metrics"] for slug in order}
    merged = {
        **{k: ref[k] for k in ("schema", "experiment", "title", "seed", "analysis")},
        "order": order,
        "runs": {slug: runs[slug] for slug in order},
        "sources": {slug: sources[slug] for slug in order},
        "all_sources_complete": complete,
        "warnings": warnings,
        "claims": ANALYSES[ref["analysis"]].claims(*scn.for_claims(metrics)),
    }
    return scn, merged


def main(args: list[str], as_json: bool, allow_different: bool = False) -> int:
    from . import runner
    from .results import json_text

    scn, merged = merge(args, allow_different)
    if as_json:
        sys.stdout.write(json_text({k: v for k, v in merged.items() if k != "runs"}))
        return 0
    print(runner.report(scn, merged))
    print()
    for slug, d in merged["sources"].items():
        print(f"{slug}: {d}")
    for w in merged["warnings"]:
        print(f"warning: {w}")
    if not merged["all_sources_complete"]:
        print(
            "note: some directories hold an interrupted run (complete: false); only its finished variants are used"
        )
    return 0
