"""`dccsim figures RUN_DIR` (redraw.py): the figure drawn afterwards from a run's files is the
one the run draws itself."""

from __future__ import annotations

import json

from cli_helpers import DATA, assert_input_error, dccsim
from test_powertcp_dc import small

from dccsim import redraw, runner


def _summary_without_wall(path) -> dict:
    s = json.loads(path.read_text())
    for r in s["runs"].values():
        r.pop("wall_time_s", None)
    return s


def test_cli_figures_of_a_no_figures_run_are_the_runs_own(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert dccsim("run", "powertcp-incast", "--out", a, "--quiet").returncode == 0
    p = dccsim("run", "powertcp-incast", "--out", b, "--quiet", "--no-figures")
    assert p.returncode == 0, p.stderr
    assert not (b / "incast.png").exists()
    assert json.loads((b / "summary.json").read_text())["figures"] == []
    p = dccsim("figures", b)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(b / "incast.png")
    assert (b / "incast.png").read_bytes() == (a / "incast.png").read_bytes()
    assert (b / "summary.json").read_bytes() == (a / "summary.json").read_bytes()


def test_figure_of_a_datacenter_run_with_worker_processes(tmp_path):
    """powertcp_dc reads the flows and the sampled ToR ports; the variants ran in worker processes
    (their metrics came back pickled), the redraw reads them from summary.json."""
    scn = small("powertcp-buffer", variants=["PowerTCP", "HPCC 2MB 16/s"])
    runner.run(scn, tmp_path / "drawn", progress=False, argv=["test"], jobs=2)
    runner.run(scn, tmp_path / "later", progress=False, argv=["test"], jobs=2, figures=False)
    path = redraw.draw(tmp_path / "later")
    assert path.read_bytes() == (tmp_path / "drawn" / path.name).read_bytes()


def test_an_interrupted_run_gets_the_figure_of_its_finished_variants(tmp_path):
    scn = small("powertcp-buffer", variants=["PowerTCP", "HPCC"])
    runner.run(scn, tmp_path / "both", progress=False, argv=["test"], jobs=1, figures=False)
    # what Ctrl-C after the first variant leaves: summary.json with complete: false, one variant
    s = json.loads((tmp_path / "both" / "summary.json").read_text())
    first = s["order"][0]
    s.update(complete=False, order=[first], runs={first: s["runs"][first]}, claims=[])
    (tmp_path / "both" / "summary.json").write_text(json.dumps(s))
    scn_one = small("powertcp-buffer", variants=[scn.variant(first).name])
    runner.run(scn_one, tmp_path / "one", progress=False, argv=["test"], jobs=1)
    path = redraw.draw(tmp_path / "both")
    assert path.read_bytes() == (tmp_path / "one" / path.name).read_bytes()
    assert json.loads((tmp_path / "both" / "summary.json").read_text())["complete"] is False


def test_bad_run_directories_get_one_line(tmp_path):
    assert_input_error(dccsim("figures", tmp_path / "nowhere"), "run_dir")
    (tmp_path / "empty").mkdir()
    assert_input_error(dccsim("figures", tmp_path / "empty"), "run_dir")
    # a scenario without an analysis of its own gets the overview's figure
    p = dccsim("run", DATA / "perm-small.toml", "--out", tmp_path / "plain", "--quiet", "--no-figures")
    assert p.returncode == 0, p.stderr
    p = dccsim("figures", tmp_path / "plain")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "plain" / "overview.png").is_file()
    # a run that analysed nothing draws nothing
    summary = tmp_path / "plain" / "summary.json"
    s = json.loads(summary.read_text())
    s["analysis"] = None
    summary.write_text(json.dumps(s))
    assert_input_error(dccsim("figures", tmp_path / "plain"), "run_dir")
