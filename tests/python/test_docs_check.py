"""`make check-docs` (python -m dccsim.docs_check): tags, rounding, row scope and drift, without
running the experiments (the make target does that)."""

from __future__ import annotations

import pytest

from dccsim import docs_check as dc
from dccsim.experiments import list_experiments

OUTPUT = """\
variant                   peak queue  recovery  thr [t0,t0+1ms]
------------------------  ----------  --------  ---------------
θ-PowerTCP                158.2 KB    76.0 µs   92.5 %
θ-PowerTCP (τ = max RTT)  1034.4 KB   519.0 µs  98.6 %

DCM: paper: 1–2 orders of magnitude above DCTCP
  measured: k=40, 128 KB: timeouts/connection mean 0.725, max 3
  verdict:  holds
"""


def table(tmp_path, body: str, tag: str = "run powertcp-incast; cols 2-3"):
    doc = tmp_path / "x.md"
    doc.write_text(f"text\n\n<!-- check-docs: {tag} -->\n\n{body}")
    (t,) = dc.tagged_tables([doc])
    return t


def check(tmp_path, body, tag="run powertcp-incast; cols 2-3"):
    t = table(tmp_path, body, tag)
    t.path = dc.ROOT / "docs" / "x.md"  # errors name the file relative to the repository
    return dc.check(t, OUTPUT)


HEAD = "| variant | peak | recovery | paper |\n|---|---|---|---|\n"


def test_a_number_matches_a_printed_one_at_the_docs_precision():
    assert dc.matches("158", [158.2]) and dc.matches("158.2", [158.2])
    assert dc.matches("0.73", [0.725])  # a tie rounds either way
    assert not dc.matches("157", [158.2]) and not dc.matches("158.3", [158.2])
    assert not dc.matches("1077", [1034.4])


def test_results_that_agree_pass_and_parenthesised_old_numbers_are_not_checked(tmp_path):
    body = HEAD + "| θ-PowerTCP | 158 KB (before: 1034) | 76 µs (never) | drains in 1 RTT |\n"
    assert check(tmp_path, body) == []


def test_a_drifted_number_fails_naming_the_line_row_and_value(tmp_path):
    body = HEAD + "| θ-PowerTCP | 1034 KB | 76 µs | drains |\n"
    (err,) = check(tmp_path, body)
    assert err.startswith("docs/x.md:7:") and "'θ-PowerTCP' column 2" in err and "1034" in err


def test_a_row_reads_only_its_own_lines(tmp_path):
    # 1034 is printed, but on the "(τ = max RTT)" row, not on θ-PowerTCP's
    body = (
        HEAD + "| θ-PowerTCP | 1034 KB | 519 µs | x |\n| θ-PowerTCP (τ = max RTT) | 1034 KB | 519 µs | x |\n"
    )
    errs = check(tmp_path, body)
    assert len(errs) == 2 and all("'θ-PowerTCP' column" in e for e in errs)
    # a claim block ("DCM: …" and its indented lines) belongs to its label
    assert check(tmp_path, HEAD + "| DCM | mean 0.73 | max 3 | x |\n") == []
    assert check(tmp_path, HEAD + "| DCM | mean 0.73 | max 3 | x |\n", "run x; cols 2; match any") == []
    (err,) = check(tmp_path, HEAD + "| XMP | 1 | 2 | x |\n")
    assert "no line of `run powertcp-incast` starts with 'XMP'" in err


def test_malformed_tags_are_refused(tmp_path):
    for tag in ("cols 2", "run x", "run x; cols 2; rows 3"):
        with pytest.raises(ValueError):
            table(tmp_path, HEAD, tag)
    with pytest.raises(ValueError, match="cols 'a'"):
        table(tmp_path, HEAD, "run x; cols a")
    doc = tmp_path / "y.md"
    doc.write_text("<!-- check-docs: run x; cols 2 -->\nno table\n")
    with pytest.raises(ValueError, match="no table"):
        dc.tagged_tables([doc])
    # a tag quoted in running text is not a tag
    doc.write_text("Tag a table with `<!-- check-docs: run NAME; cols … -->`.\n\n" + HEAD)
    assert dc.tagged_tables([doc]) == []


def test_every_tag_in_the_docs_names_a_catalog_experiment():
    tables = dc.tagged_tables(sorted(dc.DOCS.glob("*.md")))
    assert len(tables) >= 10
    names = set(list_experiments())
    for t in tables:
        assert t.command.split(None, 1)[1] in names, (t.path, t.line)
        assert t.rows and all(c >= 2 for c in t.cols)
