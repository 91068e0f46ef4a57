"""The shared float reference vectors (tests/vectors/cc_vectors.json). The laws' fixed-point C
(bpf/laws/, the code the testbed runs) is checked against them, and against the simulator's native
controllers, by crates/engine/tests/vectors.rs."""

import json
import shutil
import subprocess
import sys

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
