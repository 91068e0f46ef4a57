"""Issue 13 item 9: incomplete runs are flagged by results.load and compare; unknown variants and
runs of different experiments are errors, not empty or meaningless output."""

import json
import shutil
from pathlib import Path

import pytest

from dccsim import cli, compare, results

pytestmark = pytest.mark.engine

SMALL = Path(__file__).parent / "data" / "incast-small.toml"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("r") / "run"
    assert cli.main(["run", str(SMALL), "--quiet", "--out", str(out)]) == 0
    return out


def _incomplete_copy(run_dir, tmp_path):
    d = tmp_path / "partial"
    shutil.copytree(run_dir, d)
    s = json.loads((d / "summary.json").read_text())
    s["complete"] = False
    (d / "summary.json").write_text(json.dumps(s))
    return d


def test_results_load_warns_on_incomplete_run(run_dir, tmp_path):
    with pytest.warns(results.IncompleteRunWarning, match="complete: false"):
        results.load(_incomplete_copy(run_dir, tmp_path))


def test_results_variant_typo_is_an_error_naming_the_variants(run_dir):
    r = results.load(run_dir)
    slug = r.summary["order"][0]
    assert not r.variant(slug)["flows"].empty
    with pytest.raises(KeyError, match=f"variants: .*{slug}"):
        r.variant("typo")


def test_compare_warns_on_incomplete_and_refuses_other_experiments(run_dir, tmp_path, capsys):
    part = _incomplete_copy(run_dir, tmp_path)
    assert compare.main([str(run_dir), str(part)]) == 0
    assert "b: the run is incomplete" in capsys.readouterr().err
    other = tmp_path / "other"
    shutil.copytree(run_dir, other)
    s = json.loads((other / "summary.json").read_text())
    s["experiment"] = "something-else"
    (other / "summary.json").write_text(json.dumps(s))
    assert compare.main([str(run_dir), str(other)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dccsim: error: b: results of another experiment") and err.count("\n") == 1
    assert compare.main([str(run_dir), str(other), "--different-experiments"]) == 0
