"""Every case of the bad-input corpus (tests/bad_inputs.py) exits 2 with one stderr line that
names the case's dotted field and says what is allowed; none is accepted, none raises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bad_inputs  # noqa: E402

from dccsim import cli  # noqa: E402

pytestmark = pytest.mark.engine

CASES = bad_inputs.cases()
# words by which a message states the allowed values or range (or why nothing can be allowed)
ALLOWED = re.compile(
    r"allowed|must|expected|write e\.g\.|missing|unknown|cannot|not UTF-8|invalid TOML|exists and|"
    r"does not exist|at most|lie in|hosts are|not a directory|would need"
)


def test_corpus_is_large_enough():
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_exits_2_with_one_line_naming_the_field(case, tmp_path, capsys):
    argv = bad_inputs.write(case, tmp_path)
    rc = cli.main(argv)  # an exception (traceback) or a panic fails the test by itself
    err = capsys.readouterr().err
    assert rc == 2, f"accepted (exit {rc}): {err}"
    assert err.count("\n") == 1, err
    # a value is echoed cut to 100 characters (errors.MAX_ECHO), the line to 2000 (MAX_MESSAGE)
    limit = 400 if case.id.startswith(("value-", "key-")) else 2100
    assert len(err) <= limit, f"a {len(err)}-character line (long values must be cut): {err[:200]}"
    prefix = f"dccsim: error: {case.field}"
    assert err.startswith(prefix), f"expected field {case.field!r}: {err}"
    assert ALLOWED.search(err[len(prefix) :]), f"does not say what is allowed: {err}"
    assert not (tmp_path / "out").exists()


SUBPROCESS_SAMPLE = [c for c in CASES if c.id in ("cc.gamma#3", "file-not-utf8", "memory-series", "seed#1")]


@pytest.mark.parametrize("case", SUBPROCESS_SAMPLE, ids=[c.id for c in SUBPROCESS_SAMPLE])
def test_sample_in_a_real_process_has_no_traceback(case, tmp_path):
    argv = bad_inputs.write(case, tmp_path)
    p = subprocess.run([sys.executable, "-m", "dccsim", *argv], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
