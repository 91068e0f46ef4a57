"""The fixed-point control laws (bpf/cc_math.h) against the shared float reference vectors."""

import json
import shutil
import subprocess
import sys

import pytest

from tb_helpers import ROOT


def test_vectors_are_reproducible(tmp_path):
    # the committed vectors are exactly what make_vectors.py produces
    src = ROOT / "tests" / "vectors" / "make_vectors.py"
    work = tmp_path / "make_vectors.py"
    shutil.copy(src, work)
    subprocess.run([sys.executable, str(work)], check=True, capture_output=True)
    assert (tmp_path / "cc_vectors.json").read_text() == (ROOT / "tests/vectors/cc_vectors.json").read_text()


def test_vector_file_covers_every_algorithm():
    doc = json.loads((ROOT / "tests/vectors/cc_vectors.json").read_text())
    assert set(doc["algorithms"]) == {"powertcp", "theta-powertcp", "dctcp", "tbtcp"}
    for alg, cases in doc["algorithms"].items():
        assert len(cases) >= 3, alg
        # every case must exercise the law: the window changes at least once
        for c in cases:
            ws = [s["expect_cwnd_bytes"] for s in c["steps"]]
            if c["name"] not in ("line-rate-no-queue", "rtt-at-base"):
                assert max(ws) - min(ws) > 100, (alg, c["name"])


@pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None, reason="needs a C compiler")
def test_c_fixed_point_matches_vectors():
    p = subprocess.run(["make", "-s", "-C", str(ROOT / "bpf"), "test"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert " 0 failures" in p.stdout


@pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None, reason="needs a C compiler")
def test_c_test_detects_a_wrong_law(tmp_path):
    # a 0.5% change of every expected window is far outside the 1e-3 tolerance: the test must fail
    doc = json.loads((ROOT / "tests/vectors/cc_vectors.json").read_text())
    for cases in doc["algorithms"].values():
        for c in cases:
            for s in c["steps"]:
                s["expect_cwnd_bytes"] *= 1.005
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    subprocess.run(["make", "-s", "-C", str(ROOT / "bpf"), "build/test_cc_math"], check=True)
    p = subprocess.run([str(ROOT / "bpf/build/test_cc_math"), str(bad)], capture_output=True, text=True)
    assert p.returncode == 1
