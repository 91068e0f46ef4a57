"""Check the result tables of the docs against what the runs print (`make check-docs`).

A result table in docs/*.md is tagged with the command that prints its numbers, in an HTML
comment alone on a line before the table (blank lines between are allowed):

    <!-- check-docs: run powertcp-incast; cols 2-4 -->
    | variant | peak queue | < 10% of peak after | throughput | paper |
    |---|---|---|---|---|
    | PowerTCP | 332 KB | 274 µs | 98.3% / 97.3% | drains … |

``run NAME`` runs ``dccsim run NAME --no-figures`` once (tables tagged with the same command
share the run) and reads its stdout. ``cols`` lists the columns (1-based, ranges allowed) whose
numbers are results; other columns (paper claims, verdicts) are not checked. For every row, the
numbers of those columns must be printed by the run on the lines that start with the row's label
(its first cell, before two spaces or a colon, with the indented lines under a ``label:`` line;
``match any``: anywhere in the output): a number
written with k decimals in the docs matches a printed number that rounds to it at k decimals, so
a table may print fewer digits than the run. Text in parentheses is not checked (the docs keep
earlier measurements there). `--list` prints the tags; `--only NAME` checks one command's tables.

Exit 1 with one line per number that the run does not print; 2 on a malformed tag.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TAG = re.compile(r"^\s*<!--\s*check-docs:\s*(.*?)\s*-->\s*$")
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
PARENS = re.compile(r"\([^()]*\)")


@dataclass
class Table:
    path: Path
    line: int  # 1-based line of the tag
    command: str
    cols: list[int]
    match_any: bool
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # (line, cells)


def rel(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def parse_cols(spec: str) -> list[int]:
    out = []
    for part in spec.replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_tag(text: str, where: str) -> tuple[str, list[int], bool]:
    command, cols, match_any = None, None, False
    for part in (p.strip() for p in text.split(";")):
        if part.startswith("run "):
            command = part
        elif part.startswith("cols "):
            try:
                cols = parse_cols(part[5:])
            except ValueError:
                raise ValueError(
                    f"{where}: cols {part[5:]!r}: column numbers and ranges, e.g. 2-4,6"
                ) from None
        elif part == "match any":
            match_any = True
        else:
            raise ValueError(f"{where}: unknown part {part!r} (run NAME; cols A-B,C; match any)")
    if not command or not cols:
        raise ValueError(f"{where}: a tag needs 'run NAME' and 'cols …'")
    return command, cols, match_any


def tagged_tables(paths) -> list[Table]:
    tables = []
    for path in paths:
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            m = TAG.search(line)
            if not m:
                continue
            where = f"{rel(path)}:{i + 1}"
            command, cols, match_any = parse_tag(m.group(1), where)
            t = Table(path, i + 1, command, cols, match_any)
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j + 1 >= len(lines) or not lines[j].lstrip().startswith("|"):
                raise ValueError(f"{where}: no table after the tag")
            j += 2  # header and separator
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                t.rows.append((j + 1, cells(lines[j])))
                j += 1
            tables.append(t)
    return tables


def label_of(cell: str) -> str:
    return cell.replace("**", "").replace("`", "").strip()


def numbers(text: str) -> list[str]:
    text = text.replace("**", "")
    while PARENS.search(text):
        text = PARENS.sub(" ", text)
    return NUMBER.findall(text)


def printed_numbers(lines: list[str]) -> list[float]:
    return [float(x) for line in lines for x in NUMBER.findall(line)]


def lines_of(output: str, label: str) -> list[str]:
    """The output lines that begin with `label` followed by two spaces, a colon or the end, and
    the indented lines under a `label:` line (a claim's "measured:" and "verdict:" lines)."""
    pat = re.compile(re.escape(label) + r"(?:\s{2,}|:|$)")
    out, block = [], False
    for ln in output.splitlines():
        if pat.match(ln):
            out.append(ln)
            block = ln[len(label) :].startswith(":")
        elif block and ln[:1].isspace() and ln.strip():
            out.append(ln)
        else:
            block = False
    return out


def matches(doc: str, printed: list[float]) -> bool:
    """`doc`, written with k decimals, is some printed number rounded to k decimals (a tie may
    round either way: binary floats make 2.675 print as 2.67 or 2.68)."""
    k = len(doc.partition(".")[2])
    want, half = float(doc), 0.5 * 10**-k
    return any(abs(p - want) <= half * (1 + 1e-9) for p in printed)


def check(table: Table, output: str) -> list[str]:
    errors = []
    where = rel(table.path)
    for line, row in table.rows:
        label = label_of(row[0])
        scope = output.splitlines() if table.match_any else lines_of(output, label)
        if not scope:
            errors.append(f"{where}:{line}: no line of `{table.command}` starts with {label!r}")
            continue
        printed = printed_numbers(scope)
        for c in table.cols:
            if c > len(row):
                errors.append(f"{where}:{line}: row {label!r} has no column {c}")
                continue
            for d in numbers(row[c - 1]):
                if not matches(d, printed):
                    errors.append(
                        f"{where}:{line}: {label!r} column {c}: the docs say {d}, `{table.command}` does not print it"
                    )
    return errors


def run_command(command: str) -> str:
    name = command.split(None, 1)[1].strip()
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "dccsim.cli",
                "run",
                name,
                "--out",
                str(Path(tmp) / "out"),
                "--no-figures",
            ],
            capture_output=True,
            text=True,
        )
    if out.returncode != 0:
        raise RuntimeError(f"`{command}` failed ({out.returncode}): {out.stderr.strip()[-500:]}")
    return out.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dccsim.docs_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print the tagged tables and exit")
    ap.add_argument(
        "--only", action="append", default=[], metavar="NAME", help="check only the tables of `run NAME`"
    )
    args = ap.parse_args(argv)
    try:
        tables = tagged_tables(sorted(DOCS.glob("*.md")))
    except ValueError as e:
        print(f"check-docs: error: {e}", file=sys.stderr)
        return 2
    if args.only:
        tables = [t for t in tables if t.command.split(None, 1)[1] in args.only]
    if args.list:
        for t in tables:
            print(f"{rel(t.path)}:{t.line}: {t.command} ({len(t.rows)} rows, columns {t.cols})")
        return 0
    outputs: dict[str, str] = {}
    errors = []
    for t in tables:
        if t.command not in outputs:
            print(f"check-docs: {t.command}", file=sys.stderr, flush=True)
            outputs[t.command] = run_command(t.command)
        errors += check(t, outputs[t.command])
    for e in errors:
        print(e)
    n = sum(len(t.rows) for t in tables)
    print(
        f"check-docs: {len(tables)} tables, {n} rows, {len(outputs)} runs: {len(errors)} numbers differ",
        file=sys.stderr,
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
