"""The "paper claim | ours | verdict" lines that close every analysis report."""

from __future__ import annotations


def ran(scenario, metrics: dict):
    """(variant, its metrics) for the scenario's variants that ran, in the scenario's order (a
    partial run lacks some)."""
    for v in scenario.variants():
        m = metrics.get(v.slug)
        if m is not None:
            yield v, m


def claim_lines(claim_rows: list[dict]) -> list[str]:
    lines = ["paper claim | ours | verdict"]
    for c in claim_rows:
        lines.append(f"{c['variant']}: {c['claim']} | {c['measured']} | {c['verdict']}")
    return lines


def aligned(rows: list[tuple]) -> list[str]:
    """Rows of strings as left-aligned columns, a dashed rule under the first (the header)."""
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(x) for c, x in zip(r, w)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * x for x in w))
    return lines
