"""Durability of `dccsim run` (issue 13 items 1-4): Ctrl-C latency and what is kept, a killed run,
concurrent runs into one directory, reuse of a directory, and a full disk."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dccsim import cli, outdir, results

pytestmark = pytest.mark.engine

# Variant "fast" runs at 1 Gbps (≈ 0.1 s of engine time), "slow" at 100 Gbps for 5 s of simulated
# time (minutes of engine time): a signal sent while "slow" runs finds "fast" finished.
LONG = (Path(__file__).parent / "data" / "two-speeds.toml").read_text()
SMALL = Path(__file__).parent / "data" / "incast-small.toml"
# The engine checks for signals every 65536 events (crates/engine/src/sim.rs POLL_EVENTS): about
# 20 ms at this machine's 3-4 M events/s, 100 ms if the two shared cores are busy. Writing the
# partial summary and leaving the interpreter take < 0.1 s. 0.5 s is the bound issue 13 sets.
SIGINT_BOUND_S = 0.5


def _start(tmp_path: Path, out: str, *extra: str) -> subprocess.Popen:
    (tmp_path / "long.toml").write_text(LONG)
    return subprocess.Popen(
        [sys.executable, "-m", "dccsim", "run", "long.toml", "--quiet", "--out", out, *extra],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_slow_variant(tmp_path: Path, out: str, timeout: float = 60) -> None:
    """Block until the staging directory holds the finished "fast" variant."""
    deadline = time.monotonic() + timeout
    parent = (tmp_path / out).parent
    while time.monotonic() < deadline:
        for d in parent.glob(f".{Path(out).name}.staging-*"):
            if (d / "fast" / "summary.json").exists() and (d / "summary.json").exists():
                time.sleep(0.3)  # now inside the "slow" variant's engine run
                return
        time.sleep(0.01)
    raise AssertionError("the fast variant never finished")


def test_sigint_stops_within_bound_and_keeps_finished_variants_marked_incomplete(tmp_path):
    p = _start(tmp_path, "out")
    _wait_for_slow_variant(tmp_path, "out")
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=30)
    latency = time.monotonic() - t0
    err = p.stderr.read()
    assert rc == 130, err
    assert latency < SIGINT_BOUND_S, f"exit {latency:.3f} s after SIGINT"
    assert "Traceback" not in err and err.count("\n") == 1
    assert "kept 1 of 2 variants" in err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["complete"] is False
    assert summary["order"] == ["fast"]
    assert not (tmp_path / "out" / "slow").exists()
    assert not list(tmp_path.glob(".out.*")), "staging directory or lock left behind"


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
        except (OSError, ValueError, IndexError):
            pass
    return out


def test_sigint_with_jobs_2_stops_the_workers_and_keeps_finished_variants(tmp_path):
    p = _start(tmp_path, "out", "--jobs", "2")
    _wait_for_slow_variant(tmp_path, "out")
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=30)
    err = p.stderr.read()
    assert rc == 130 and "Traceback" not in err and "kept 1 of 2 variants" in err, err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["complete"] is False and summary["order"] == ["fast"]
    assert not (tmp_path / "out" / "slow").exists()
    assert not list(tmp_path.glob(".out.*"))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
def test_killed_run_with_jobs_takes_its_workers_with_it(tmp_path):
    p = _start(tmp_path, "out", "--jobs", "2")
    _wait_for_slow_variant(tmp_path, "out")
    workers = _children(p.pid)
    assert workers, "no worker process"
    p.kill()
    p.wait(timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{w}").exists() for w in workers):
        time.sleep(0.05)
    alive = [
        w
        for w in workers
        if Path(f"/proc/{w}/stat").exists() and ") Z" not in Path(f"/proc/{w}/stat").read_text()
    ]
    assert alive == [], "workers outlived the killed run"


def test_killed_run_leaves_nothing_that_looks_valid_and_next_run_recovers(tmp_path):
    p = _start(tmp_path, "out")
    _wait_for_slow_variant(tmp_path, "out")
    p.kill()
    p.wait(timeout=30)
    assert not (tmp_path / "out").exists()  # only the hidden staging directory and a stale lock
    assert list(tmp_path.glob(".out.staging-*")) and (tmp_path / ".out.lock").exists()
    # a later run takes over the stale lock and removes the dead run's staging directory
    rc = cli.main(["run", str(SMALL), "--quiet", "--out", str(tmp_path / "out")])
    assert rc == 0
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["complete"] is True
    assert not list(tmp_path.glob(".out.*"))


def test_concurrent_run_into_the_same_directory_is_refused(tmp_path, capsys):
    p = _start(tmp_path, "out")
    _wait_for_slow_variant(tmp_path, "out")
    try:
        rc = cli.main(["run", str(SMALL), "--quiet", "--out", str(tmp_path / "out"), "--force"])
        err = capsys.readouterr().err
        assert rc == 2
        assert err.startswith("dccsim: error: out: another dccsim run (pid ") and err.count("\n") == 1
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
    # the interrupted first run is the only writer: its summary and scenario agree
    out = tmp_path / "out"
    assert json.loads((out / "fast" / "summary.json").read_text())["seed"] == 1
    assert "seed = 1\n" in (out / "scenario.toml").read_text()


def _run(args, capsys):
    rc = cli.main(args)
    return rc, capsys.readouterr().err


def test_reuse_rules_rerun_replaces_other_seed_refused_force_replaces(tmp_path, capsys):
    out = str(tmp_path / "r")
    assert _run(["run", str(SMALL), "--quiet", "--out", out], capsys)[0] == 0
    before = sorted(p.name for p in Path(out).iterdir())
    assert _run(["run", str(SMALL), "--quiet", "--out", out], capsys)[0] == 0  # same scenario: a rerun
    assert sorted(p.name for p in Path(out).iterdir()) == before
    rc, err = _run(["run", str(SMALL), "--quiet", "--out", out, "--seed", "2"], capsys)
    assert rc == 2 and "holds the results of another scenario or seed" in err
    assert json.loads((Path(out) / "summary.json").read_text())["seed"] == 7  # untouched
    rc, err = _run(["run", str(SMALL), "--quiet", "--out", out, "--seed", "2", "--force"], capsys)
    assert rc == 0, err
    s = json.loads((Path(out) / "summary.json").read_text())
    assert s["seed"] == 2
    for slug in s["order"]:
        assert json.loads((Path(out) / slug / "summary.json").read_text())["seed"] == 2
    # a directory with unrelated files is never a run: refused without --force
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    rc, err = _run(["run", str(SMALL), "--quiet", "--out", str(other)], capsys)
    assert rc == 2 and "does not hold a dccsim run" in err
    assert (other / "notes.txt").read_text() == "mine"


def test_default_directory_comes_from_the_file_name_not_the_name_inside(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = SMALL.read_text()
    (tmp_path / "mine.toml").write_text(text)
    assert _run(["run", "mine.toml", "--quiet"], capsys)[0] == 0
    assert (tmp_path / "runs" / "mine-seed7" / "summary.json").exists()
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["mine-seed7"]


@pytest.mark.parametrize("name", ["../../x", "/abs/x", "a/b", "a\\b", "", "..", " "])
def test_scenario_name_with_path_separators_is_refused(tmp_path, capsys, name):
    text = SMALL.read_text()
    body = "\n".join(l for l in text.splitlines() if not l.startswith("name ="))
    (tmp_path / "s.toml").write_text(f"name = {json.dumps(name)}\n" + body)
    rc, err = _run(["run", str(tmp_path / "s.toml"), "--quiet", "--out", str(tmp_path / "o")], capsys)
    assert rc == 2 and err.startswith("dccsim: error: name: ") and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_output_location_problems_are_one_line_and_checked_before_running(tmp_path, capsys, monkeypatch):
    from dccsim import engine

    def never(*a, **k):
        raise AssertionError("the engine ran although the output location is unusable")

    monkeypatch.setattr(engine, "run", never)
    (tmp_path / "afile").write_text("x")
    for out, needle in (
        (tmp_path / "afile", "exists and is not a directory"),
        (tmp_path / "afile" / "sub", "exists and is not a directory"),
    ):
        rc, err = _run(["run", str(SMALL), "--quiet", "--out", str(out)], capsys)
        assert rc == 2 and needle in err and err.count("\n") == 1, err


def test_full_disk_mocked_leaves_no_output_and_one_line(tmp_path, capsys, monkeypatch):
    real = results._atomic_write
    calls = {"n": 0}

    def full(path, data):
        calls["n"] += 1
        if calls["n"] > 3:  # scenario.toml and the first files fit, then the disk is full
            raise OSError(28, "No space left on device")
        real(path, data)

    monkeypatch.setattr(results, "_atomic_write", full)
    out = tmp_path / "r"
    rc, err = _run(["run", str(SMALL), "--quiet", "--out", str(out)], capsys)
    assert rc == 2 and "no space left on device" in err and err.count("\n") == 1, err
    assert not out.exists() and not list(tmp_path.glob(".r.*"))


def _can_mount_tmpfs(path: Path) -> bool:
    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(path)]).returncode == 0


def test_full_disk_on_a_small_tmpfs(tmp_path, capsys):
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if not _can_mount_tmpfs(mnt):
        pytest.skip("needs root and tmpfs to mount a 16 KiB file system (the mocked test covers the logic)")
    try:
        rc, err = _run(["run", str(SMALL), "--quiet", "--out", str(mnt / "r")], capsys)
        assert rc == 2 and "no space left on device" in err, err
        assert os.listdir(mnt) == []
    finally:
        subprocess.run(["umount", str(mnt)])


def test_outdir_api_prepare_commit_discard(tmp_path):
    out = tmp_path / "o"
    st = outdir.prepare(out)
    assert st.is_dir() and st.parent == tmp_path and st.name.startswith(".o.staging-")
    assert (tmp_path / ".o.lock").read_text().strip() == str(os.getpid())
    (st / "x").write_text("1")
    outdir.commit(st, out)
    assert (out / "x").read_text() == "1" and not (tmp_path / ".o.lock").exists()
    st = outdir.prepare(out, force=True)
    outdir.discard(st, out)
    assert (out / "x").read_text() == "1" and not st.exists()
