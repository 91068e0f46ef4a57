"""Issue 27 (reliability): what the bad-input corpus cannot express as one scenario file — signals
on runs and sweeps (SIGTERM handled as Ctrl-C, Ctrl-C within 1 s with a figure worker and variant
workers), sweeps (a changed base, a sweep-level lock, sweep.json before the first point), the
catalog opened read-only by `dccsim query`, values JSON has no type for, `dccsim figures` on a
damaged run, and one-line command-line errors. The file-level cases (a FIFO, /dev/zero, deep
nesting, a repeated key, a 1 MB value, --seed 2^64, --out '', a Poisson workload of no flow) are
in the corpus (tests/bad_inputs.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_helpers import ROOT, assert_input_error, dccsim
from dccsim import cli

pytestmark = pytest.mark.engine

SMALL = Path(__file__).parent / "data" / "incast-small.toml"
# SMALL for 5 s of simulated time: its variants run for minutes, so a signal finds them running.
# It has an analysis with a figure, so `dccsim run` has a figure worker (forked at start) too.
LONG_FIGURE = (
    SMALL.read_text()
    .replace('duration = "600us"', 'duration = "5s"')
    .replace('interval = "1us"', 'interval = "100us"')
)
# Variant "fast" finishes in a fraction of a second, "slow" runs for minutes (test_durability.py).
TWO_SPEEDS = (Path(__file__).parent / "data" / "two-speeds.toml").read_text()
# Ctrl-C's promise (docs/python-front.md, "Signals"): the engine polls for signals every 65536
# events (≈ 20-100 ms here); stopping the figure worker and the variant workers and removing the
# staging directory take < 0.1 s; measured 0.1-0.3 s on the 2 shared cores. Before issue 27 a
# figure worker made every interrupted run wait 5 s (its fixed join timeout).
SIGNAL_BOUND_S = 1.0


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    return env


def _popen(args, cwd) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "dccsim", *map(str, args)],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(pattern_dir: Path, glob: str, timeout: float = 60) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        hits = list(pattern_dir.glob(glob))
        if hits:
            return hits[0]
        time.sleep(0.01)
    raise AssertionError(f"nothing matched {glob} in {pattern_dir}")


def _signal_and_wait(p: subprocess.Popen, sig) -> tuple[int, float, str]:
    t0 = time.monotonic()
    p.send_signal(sig)
    rc = p.wait(timeout=60)
    latency = time.monotonic() - t0
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        raise AssertionError("a child process outlived dccsim and holds its stderr open") from None
    return rc, latency, err


# ----------------------------------------------------------------------------------------------
# Signals


@pytest.mark.parametrize("jobs", [[], ["--jobs", "2"]], ids=["in-process", "workers"])
@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["INT", "TERM"])
def test_signal_on_a_run_with_a_figure_worker_exits_within_1s(tmp_path, jobs, sig, status):
    (tmp_path / "long.toml").write_text(LONG_FIGURE)
    p = _popen(["run", "long.toml", "--quiet", "--out", "out", *jobs], tmp_path)
    _wait_for(tmp_path, ".out.staging-*")
    time.sleep(1.0)  # the engine (or both workers) running, the figure worker importing or idle
    rc, latency, err = _signal_and_wait(p, sig)
    assert rc == status, err
    assert latency < SIGNAL_BOUND_S, f"exit {latency:.3f} s after {sig.name}"
    assert err.count("\n") == 1 and "Traceback" not in err and "leaked" not in err, err
    assert not list(tmp_path.glob(".out.*")), "staging directory or lock left behind"
    assert not (tmp_path / "out").exists()  # no variant had finished: nothing looks like a result


@pytest.mark.parametrize("jobs", [[], ["--jobs", "2"]], ids=["in-process", "workers"])
def test_sigterm_keeps_finished_variants_marked_incomplete_like_ctrl_c(tmp_path, jobs):
    (tmp_path / "long.toml").write_text(TWO_SPEEDS)
    p = _popen(["run", "long.toml", "--quiet", "--out", "out", *jobs], tmp_path)
    staging = _wait_for(tmp_path, ".out.staging-*")
    deadline = time.monotonic() + 60
    while not ((staging / "fast" / "summary.json").exists() and (staging / "summary.json").exists()):
        assert time.monotonic() < deadline, "the fast variant never finished"
        time.sleep(0.01)
    time.sleep(0.3)
    rc, latency, err = _signal_and_wait(p, signal.SIGTERM)
    assert rc == 143, err
    assert latency < SIGNAL_BOUND_S, f"exit {latency:.3f} s after SIGTERM"
    assert err.startswith("dccsim: terminated (SIGTERM): kept 1 of 2 variants") and err.count("\n") == 1, err
    assert "leaked" not in err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["complete"] is False and summary["order"] == ["fast"]
    assert not list(tmp_path.glob(".out.*"))


SWEEP_LONG = """
[sweep]
base = "long.toml"
variants = ["slow"]
[grid]
"switch.ecn.k" = ["65KB"]
"""


def test_sigterm_on_a_sweep_leaves_sweep_json_incomplete_and_no_lock(tmp_path):
    (tmp_path / "long.toml").write_text(TWO_SPEEDS)
    (tmp_path / "s.toml").write_text(SWEEP_LONG)
    p = _popen(["sweep", "s.toml", "--out", "o", "--jobs", "1", "--quiet"], tmp_path)
    _wait_for(tmp_path / "o" / "points", ".*.staging-*")  # the point's run has begun
    # written before the first point ran: a sweep killed now (even SIGKILL) never looks complete
    doc = json.loads((tmp_path / "o" / "sweep.json").read_text())
    assert doc["complete"] is False and [x["status"] for x in doc["points"]] == ["not run"]
    time.sleep(0.5)
    rc, latency, err = _signal_and_wait(p, signal.SIGTERM)
    assert rc == 143 and err.count("\n") == 1 and "leaked" not in err, err
    assert latency < SIGNAL_BOUND_S, f"exit {latency:.3f} s after SIGTERM"
    doc = json.loads((tmp_path / "o" / "sweep.json").read_text())
    assert doc["complete"] is False
    assert not (tmp_path / ".o.lock").exists()
    assert not list((tmp_path / "o" / "points").iterdir())  # the point's staging directory is gone


# ----------------------------------------------------------------------------------------------
# Sweeps: a changed base, a second sweep into the same directory, spec errors

SWEEP_SMALL = """
[sweep]
base = "base.toml"
variants = ["PowerTCP"]
seeds = [1]
[grid]
"switch.buffer" = ["3MB"]
"""


def test_sweep_resumed_after_its_base_changed_is_refused_unless_force(tmp_path):
    (tmp_path / "base.toml").write_text(SMALL.read_text())
    (tmp_path / "s.toml").write_text(SWEEP_SMALL)
    p = dccsim("sweep", tmp_path / "s.toml", "--out", tmp_path / "o", "--jobs", "1", "--quiet")
    assert p.returncode == 0 and "1 run, 0 already done" in p.stdout, p.stderr
    old_points = sorted(d.name for d in (tmp_path / "o" / "points").iterdir())

    (tmp_path / "base.toml").write_text(SMALL.read_text().replace('duration = "600us"', 'duration = "500us"'))
    p = dccsim("sweep", tmp_path / "s.toml", "--out", tmp_path / "o", "--jobs", "1", "--quiet")
    assert_input_error(p, "sweep.base")
    assert "--force" in p.stderr
    assert sorted(d.name for d in (tmp_path / "o" / "points").iterdir()) == old_points  # untouched

    p = dccsim("sweep", tmp_path / "s.toml", "--out", tmp_path / "o", "--jobs", "1", "--quiet", "--force")
    assert p.returncode == 0 and "1 run, 0 already done" in p.stdout, p.stderr
    points = sorted((tmp_path / "o" / "points").iterdir())
    assert len(points) == 1 and points[0].name not in old_points  # the old base's point is gone
    assert 'duration = "500us"' in (points[0] / "scenario.toml").read_text()
    assert json.loads((tmp_path / "o" / "sweep.json").read_text())["complete"] is True


def test_second_sweep_into_the_same_directory_is_refused_naming_the_holder(tmp_path):
    (tmp_path / "base.toml").write_text(SMALL.read_text())
    (tmp_path / "s.toml").write_text(SWEEP_SMALL)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / ".o.lock").write_text(f"{holder.pid}\n")  # as a running sweep holds it
        p = dccsim("sweep", tmp_path / "s.toml", "--out", tmp_path / "o", "--jobs", "1", "--quiet")
        assert_input_error(p, "out")
        assert f"another dccsim sweep (pid {holder.pid})" in p.stderr
        assert not (tmp_path / "o").exists()
    finally:
        holder.kill()
        holder.wait()
    # the holder is gone: its lock is stale and taken over
    p = dccsim("sweep", tmp_path / "s.toml", "--out", tmp_path / "o", "--jobs", "1", "--quiet")
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / ".o.lock").exists()


@pytest.mark.parametrize(
    "replace,field",
    [
        (('base = "base.toml"', 'base = "missing.toml"'), "sweep.base"),
        (('base = "base.toml"', 'base = "no-such-experiment"'), "sweep.base"),
        (('variants = ["PowerTCP"]', 'variants = ["Nope"]'), "sweep.variants"),
        (('"switch.buffer" = ["3MB"]', '"switch.buffer" = ["3MB", "3MB"]'), "grid.switch.buffer"),
        (("seeds = [1]", "seeds = [1, 1]"), "sweep.seeds"),
        (
            ('"switch.buffer" = ["3MB"]', '"switch.buffer" = ["3MB"]\n"switch.buffer" = ["4MB"]'),
            "grid.switch.buffer",
        ),
    ],
    ids=["base-file", "base-experiment", "variant", "repeated-value", "repeated-seed", "repeated-key"],
)
def test_sweep_spec_errors_name_the_spec_field(tmp_path, replace, field):
    (tmp_path / "base.toml").write_text(SMALL.read_text())
    (tmp_path / "s.toml").write_text(SWEEP_SMALL.replace(*replace))
    assert_input_error(dccsim("sweep", tmp_path / "s.toml", "--out", tmp_path / "o"), field)


def test_sweep_out_empty_is_refused(tmp_path):
    (tmp_path / "base.toml").write_text(SMALL.read_text())
    (tmp_path / "s.toml").write_text(SWEEP_SMALL)
    assert_input_error(dccsim("sweep", tmp_path / "s.toml", "--out", ""), "out")


# ----------------------------------------------------------------------------------------------
# `dccsim query`: the catalog is read-only, every SQL value has a JSON form


def test_query_cannot_change_the_catalog(tmp_path):
    cat = tmp_path / "c.duckdb"
    for sql in ("DROP TABLE runs", "DELETE FROM schema_version", "CREATE TABLE x (a INT)"):
        assert_input_error(dccsim("query", sql, "--catalog", cat), "query")
    p = dccsim("query", "SELECT count(*) AS n FROM runs", "--catalog", cat, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == [{"n": 0}]


def test_query_json_encodes_values_json_has_no_type_for(tmp_path):
    sql = (
        "SELECT 'ab'::BLOB AS b, INTERVAL 3 DAY AS i, 1.50::DECIMAL(4, 2) AS d, DATE '2020-01-02' AS t, "
        "TIMESTAMP '2020-01-02 03:04:05' AS ts, '00000000-0000-0000-0000-000000000001'::UUID AS u"
    )
    p = dccsim("query", sql, "--catalog", tmp_path / "c.duckdb", "--json")
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    row = json.loads(p.stdout)[0]
    assert row["b"] == "6162" and row["d"] == "1.50" and row["t"] == "2020-01-02"
    assert row["ts"] == "2020-01-02T03:04:05" and row["u"] == "00000000-0000-0000-0000-000000000001"
    assert row["i"].startswith("3 days")


# ----------------------------------------------------------------------------------------------
# `dccsim figures` on a damaged run


@pytest.fixture
def small_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DCCSIM_CATALOG", str(tmp_path / "c.duckdb"))
    out = tmp_path / "r"
    assert cli.main(["run", str(SMALL), "--quiet", "--no-figures", "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def _figure_table(run: Path) -> Path:
    from dccsim.analysis import ANALYSES

    summary = json.loads((run / "summary.json").read_text())
    name = ANALYSES[summary["analysis"]].FIGURE_TABLES[0]
    return run / summary["order"][0] / f"{name}.parquet"


@pytest.mark.parametrize("command,field", [("figures", "run_dir"), ("report", "report")])
def test_a_corrupt_parquet_table_is_named_in_one_line(small_run, capsys, command, field):
    f = _figure_table(small_run)
    f.write_bytes(b"PAR1 not really parquet PAR1")
    assert cli.main([command, str(small_run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dccsim: error: {field}: ") and err.count("\n") == 1, err
    assert f.name in err and "cannot be read" in err


def test_figures_on_a_missing_table_says_it_is_missing(small_run, capsys):
    f = _figure_table(small_run)
    f.unlink()
    assert cli.main(["figures", str(small_run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dccsim: error: run_dir: ") and err.count("\n") == 1, err
    assert f.name in err and "is missing" in err and "interval" not in err


# ----------------------------------------------------------------------------------------------
# Command-line errors: one line, exit 2, no usage block (the `run` ones are in the corpus)


@pytest.mark.parametrize(
    "argv,field",
    [
        ([], "COMMAND"),
        (["bogus"], "COMMAND"),
        (["run"], "EXPERIMENT|FILE.toml"),
        (["sweep"], "SPEC.toml"),
        (["query"], "SQL"),
        (["list", "--bogus"], "--bogus"),
        (["sweep", "s.toml", "--jobs", "x"], "--jobs"),
        (["compare"], "a"),  # delegated commands parse their own arguments, one line as well
        (["compare", "A", "B", "--bogus"], "--bogus"),
        (["testbed", "run"], "scenario"),
    ],
)
def test_usage_errors_are_one_line(argv, field, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dccsim: error: {field}: ") and err.count("\n") == 1, err
    assert "usage:" not in err


def test_help_still_prints_the_usage(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["run", "--help"])
    assert e.value.code == 0 and "usage: dccsim run" in capsys.readouterr().out
