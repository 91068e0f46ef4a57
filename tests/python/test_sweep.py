"""`dccsim sweep`: grid expansion, local processes and a local Ray instance give identical
point directories, reruns skip finished points, a killed point leaves nothing that looks done,
and bad specs exit 2 naming the field."""

from __future__ import annotations

import filecmp
import json
import os
from pathlib import Path

import pytest

from cli_helpers import assert_input_error, dccsim
from dccsim import results, sweep, sweep_point, sweep_spec

pytestmark = pytest.mark.engine

SPEC = """
[sweep]
base = "powertcp-incast"
variants = ["HPCC"]
seeds = [1, 2]

[grid]
"switch.buffer" = ["3MB", "6MB"]
"""


def _spec(tmp_path, text=SPEC, name="s.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _tree(root: Path) -> dict:
    """relative path -> bytes of every file except the run-to-run provenance (meta)."""
    skip = {"meta.json", "sweep_meta.json"}
    return {
        str(f.relative_to(root)): f.read_bytes()
        for f in sorted(root.rglob("*"))
        if f.is_file() and f.name not in skip
    }


def test_grid_expands_to_points_with_stable_ids(tmp_path):
    spec = sweep_spec.load(_spec(tmp_path), out=str(tmp_path / "o"))
    pts = spec.points()
    assert [(p.params["switch.buffer"], p.seed) for p in pts] == [
        ("3MB", 1),
        ("3MB", 2),
        ("6MB", 1),
        ("6MB", 2),
    ]
    assert len({p.id for p in pts}) == 4
    assert pts[0].id == sweep_spec.point_id({"switch.buffer": "3MB"}, 1, spec.base_text)
    scn = sweep_spec.scenario_for(spec.base_text, pts[3].params, pts[3].seed, "x")
    assert scn.switch.buffer_bytes == 6_000_000 and scn.seed == 2


def test_set_dotted_reaches_into_lists_and_rejects_missing_elements():
    d = {"experiment": {"variants": [{"cc": {"algorithm": "hpcc"}}]}}
    sweep_spec.set_dotted(d, "experiment.variants[0].cc.eta", 0.9, "grid.k")
    assert d["experiment"]["variants"][0]["cc"] == {"algorithm": "hpcc", "eta": 0.9}
    with pytest.raises(ValueError, match="no element"):
        sweep_spec.set_dotted(d, "experiment.variants[3].cc.eta", 0.9, "grid.k")


def test_local_and_ray_give_identical_points_and_rerun_skips(tmp_path):
    try:
        import ray  # noqa: F401
    except ImportError:
        msg = "ray is in the test extra (pip install -e '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(msg)  # CI must run the Ray path (issue 12 item 2)
        pytest.skip(msg)
    spec_path = _spec(tmp_path)
    p = dccsim("sweep", spec_path, "--out", tmp_path / "local", "--jobs", "2")
    assert p.returncode == 0, p.stderr
    assert "4 run, 0 already done, 0 failed" in p.stdout
    local = _tree(tmp_path / "local")
    assert sum(1 for k in local if k.endswith("point.json")) == 4
    doc = json.loads((tmp_path / "local" / "sweep.json").read_text())
    assert doc["complete"] and [x["status"] for x in doc["points"]] == ["done"] * 4

    p = dccsim("sweep", spec_path, "--out", tmp_path / "ray", "--ray")
    assert p.returncode == 0, p.stderr
    assert _tree(tmp_path / "ray") == local  # same bytes, wherever the points ran

    before = {d.name: d.stat().st_mtime_ns for d in (tmp_path / "local" / "points").iterdir()}
    p = dccsim("sweep", spec_path, "--out", tmp_path / "local")
    assert "0 run, 4 already done" in p.stdout
    assert {d.name: d.stat().st_mtime_ns for d in (tmp_path / "local" / "points").iterdir()} == before
    assert _tree(tmp_path / "local") == local


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_ray_address_joins_an_existing_cluster(tmp_path):
    """`--ray ADDRESS`: a Ray head started apart (its own port and temp dir, stopped by signalling
    its own `ray start --block`, so no other Ray on the machine is touched) runs the points, with
    the same bytes as local processes."""
    import shutil
    import signal
    import subprocess
    import sys
    import time

    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("ray is in the test extra (pip install -e '.[test]')")
        pytest.skip("ray is not installed")
    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")
    assert ray_cli, "the ray package installs a `ray` command"
    port = _free_port()
    address = f"127.0.0.1:{port}"
    temp = Path("/tmp") / f"dccsim-ray-{os.getpid()}"  # Ray's socket paths must stay short
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--block", "--port", str(port), "--temp-dir", str(temp)]
        + ["--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        # Ray 2.60 turns token authentication on for `ray start`; a client joins such a cluster
        # with RAY_AUTH_MODE=token and its token (docs/python-front.md). This head runs without.
        env=dict(os.environ, RAY_AUTH_MODE="disabled"),
    )
    try:
        deadline = time.monotonic() + 120
        while subprocess.run([ray_cli, "status", "--address", address], capture_output=True).returncode:
            assert head.poll() is None, "the Ray head exited"
            assert time.monotonic() < deadline, "the Ray head did not come up in 120 s"
            time.sleep(1)
        spec_path = _spec(tmp_path)
        p = dccsim("sweep", spec_path, "--out", tmp_path / "cluster", "--ray", address)
        assert p.returncode == 0, p.stderr
        doc = json.loads((tmp_path / "cluster" / "sweep.json").read_text())
        meta = json.loads((tmp_path / "cluster" / "sweep_meta.json").read_text())
        assert doc["complete"] and (meta["executor"], meta["ray_address"]) == ("ray", address)
        p = dccsim("sweep", spec_path, "--out", tmp_path / "local", "--jobs", "2")
        assert p.returncode == 0, p.stderr
        assert _tree(tmp_path / "cluster") == _tree(tmp_path / "local")
    finally:
        head.send_signal(signal.SIGTERM)  # the head drains and stops the processes it started
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)


def test_killed_point_is_rerun_and_never_looks_done(tmp_path):
    spec = sweep_spec.load(_spec(tmp_path), out=str(tmp_path / "o"))
    job = sweep.jobs_for(spec)[0]
    points = tmp_path / "o" / "points"
    # what a kill leaves: a temporary directory, and (older layout) a final one without summary
    (points / f".{job['id']}.tmp-999").mkdir(parents=True)
    (points / job["id"]).mkdir()
    (points / job["id"] / "hpcc").mkdir()
    assert not sweep_point.is_done(points / job["id"])
    r = sweep_point.run_point(str(tmp_path / "o"), job)
    assert r["status"] == "done", r
    assert sweep_point.is_done(points / job["id"])
    assert not list(points.glob(f".{job['id']}.tmp-{__import__('os').getpid()}"))


def test_unknown_parameter_is_refused_before_anything_runs(tmp_path):
    text = SPEC.replace('"switch.buffer" = ["3MB", "6MB"]', '"cc.no_such_param" = [1]')
    text = text.replace('variants = ["HPCC"]', 'variants = ["PowerTCP"]')  # inherits [cc]
    p = dccsim("sweep", _spec(tmp_path, text), "--out", tmp_path / "o", "--jobs", "1")
    assert p.returncode == 2 and "no_such_param" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "o" / "points").exists() or not any((tmp_path / "o" / "points").iterdir())


def test_failed_point_is_reported_and_not_marked_done(tmp_path):
    spec = sweep_spec.load(_spec(tmp_path), out=str(tmp_path / "o"))
    job = dict(sweep.jobs_for(spec)[0], params={"switch.buffer": "lots"})  # fails inside the worker
    r = sweep_point.run_point(str(tmp_path / "o"), job)
    assert r["status"] == "failed" and "switch.buffer" in r["error"]
    assert not (tmp_path / "o" / "points" / job["id"]).exists()
    assert not list((tmp_path / "o" / "points").glob(".*tmp*"))


@pytest.mark.parametrize(
    "text,field",
    [
        (SPEC.replace('base = "powertcp-incast"', 'base = "nope"'), "sweep.base"),
        (SPEC.replace("seeds = [1, 2]", 'seeds = "x"'), "sweep.seeds"),
        (SPEC.replace('"switch.buffer" = ["3MB", "6MB"]', '"switch.buffer" = ["lots"]'), "switch.buffer"),
        (SPEC + "\n[other]\n", "other"),
        (SPEC.replace("[sweep]", "[sweep]\nbogus = 1"), "sweep.bogus"),
    ],
)
def test_bad_spec_exits_2_naming_the_field(tmp_path, text, field):
    assert_input_error(dccsim("sweep", _spec(tmp_path, text), "--out", tmp_path / "o"), field)


def test_equal_results_compare_with_filecmp(tmp_path):
    """The point directory of a sweep equals a plain `dccsim run` of the same scenario."""
    spec = sweep_spec.load(_spec(tmp_path), out=str(tmp_path / "o"))
    job = sweep.jobs_for(spec)[0]
    sweep_point.run_point(str(tmp_path / "o"), job)
    scn_file = tmp_path / "p.toml"
    from dccsim.scenario import dump_toml

    scn_file.write_text(
        dump_toml(sweep_spec.scenario_for(job["base_text"], job["params"], job["seed"], job["name"]))
    )
    p = dccsim("run", scn_file, "--variant", "HPCC", "--no-figures", "--quiet", "--out", tmp_path / "run")
    assert p.returncode == 0, p.stderr
    a, b = tmp_path / "o" / "points" / job["id"] / "hpcc", tmp_path / "run" / "hpcc"
    names = sorted(f.name for f in a.iterdir())
    match, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    assert mismatch == [] and errors == [] and len(match) == len(results.TABLE_NAMES) + 1  # + summary.json


def test_progress_bar_shows_done_running_failed_and_eta():
    import io

    from rich.console import Console

    out = io.StringIO()
    bar = sweep._Progress(4, 1, True, console=Console(file=out, force_terminal=True, width=150))
    bar.update(started=2)
    bar.update(finished={"status": "failed"})
    bar.close()
    text = out.getvalue()
    assert "2/4 done" in text and "1 running" in text and "1 failed" in text and "ETA" in text
