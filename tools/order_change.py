"""How much a change of the engine moved the docs' checked numbers.

    python3 tools/order_change.py OLD_REV [NEW_REV]

Compares the `check-docs` tagged tables (docs/experiments.md, docs/models.md) of two git
revisions, cell by cell in the tagged columns (rows matched by their first cell, numbers in
parentheses skipped as `make check-docs` skips them), and prints the distribution of the
relative change |new - old| / max(|new|, |old|) and, per experiment, how many numbers moved.
NEW_REV defaults to the work tree. docs/parallel.md ("What the order moves") reports its output
for the change from the insertion order to the order by content.
"""

import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from dccsim import docs_check  # noqa: E402

DOCS = ("docs/experiments.md", "docs/models.md")


def text_at(rev: str | None, path: str) -> str:
    if rev is None:
        return Path(path).read_text()
    return subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, text=True, check=True).stdout


def tables(text: str, tmp: Path) -> dict[str, list]:
    tmp.write_text(text)
    out = defaultdict(list)
    for t in docs_check.tagged_tables([tmp]):
        out[t.command].append(t)
    return out


def changes(old_rev: str, new_rev: str | None) -> list[tuple[float, str]]:
    moved = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d) / "doc.md"
        for path in DOCS:
            old = tables(text_at(old_rev, path), tmp)
            new = tables(text_at(new_rev, path), tmp)
            for command, new_tables in new.items():
                for t_new, t_old in zip(new_tables, old.get(command, [])):
                    old_rows = {docs_check.label_of(c[0]): c for _, c in t_old.rows}
                    for _, cells in t_new.rows:
                        before = old_rows.get(docs_check.label_of(cells[0]))
                        if before is None:
                            continue
                        for col in t_new.cols:
                            if col > len(cells) or col > len(before):
                                continue
                            a = docs_check.numbers(before[col - 1])
                            b = docs_check.numbers(cells[col - 1])
                            if len(a) != len(b):
                                continue
                            for x, y in zip(map(float, a), map(float, b)):
                                scale = max(abs(x), abs(y))
                                moved.append((abs(y - x) / scale if scale else 0.0, command))
    return moved


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    moved = changes(argv[0], argv[1] if len(argv) == 2 else None)
    if not moved:
        print("no tagged numbers in common")
        return 1
    rel = sorted(r for r, _ in moved)
    n = len(rel)
    print(f"{n} numbers, {sum(r == 0 for r in rel)} unchanged")
    for q in (0.5, 0.75, 0.9, 0.95, 0.99):
        print(f"  {round(q * 100)}th percentile of the change: {rel[int(q * (n - 1))] * 100:.1f} %")
    per = defaultdict(list)
    for r, command in moved:
        per[command].append(r)
    for command, rs in sorted(per.items(), key=lambda kv: (-statistics.median(kv[1]), kv[0])):
        print(
            f"  {command:34s} {len(rs):3d} numbers, {sum(r > 0 for r in rs):3d} moved, "
            f"median {statistics.median(rs) * 100:.1f} %, max {max(rs) * 100:.1f} %"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
