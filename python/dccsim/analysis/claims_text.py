"""The "paper claim | ours | verdict" lines that close every analysis report."""

from __future__ import annotations


def claim_lines(claim_rows: list[dict]) -> list[str]:
    lines = ["paper claim | ours | verdict"]
    for c in claim_rows:
        lines.append(f"{c['variant']}: {c['claim']} | {c['measured']} | {c['verdict']}")
    return lines
