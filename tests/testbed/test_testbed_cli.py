"""Bad input exits 2 with one line; interrupted runs clean up."""

import os
import signal
import subprocess
import sys
import time

import pytest

from tb_helpers import ROOT, needs_testbed

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}


def _cli(*args, user=None, cwd=None):
    cmd = [sys.executable, "-m", "dccsim.testbed", *args]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=cwd)


def test_unknown_algorithm_exits_2():
    p = _cli("run", "testbed-shared-4", "--cc", "vegas")
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "unknown algorithm 'vegas'" in p.stderr


def test_unknown_experiment_exits_2():
    p = _cli("run", "no-such-experiment", "--cc", "dctcp")
    assert p.returncode == 2 and "unknown experiment" in p.stderr and p.stderr.count("\n") == 1


def test_a_directory_named_like_the_experiment_is_not_a_scenario_file(tmp_path, monkeypatch):
    """An earlier `--out testbed-shared-4` in the working directory: the argument still names the
    experiment, as for `dccsim run` (dccsim.targets); once an IsADirectoryError traceback."""
    from dccsim.testbed import scenario

    (tmp_path / "testbed-shared-4").mkdir()
    (tmp_path / "mine.toml").mkdir()
    monkeypatch.chdir(tmp_path)
    assert scenario.load("testbed-shared-4").source == "testbed-shared-4.toml"
    # the command gets past the scenario (the bad --tau, checked after it, is what it reports)
    p = _cli("run", "testbed-shared-4", "--cc", "dctcp", "--tau", "soon", cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--tau" in p.stderr, p.stderr
    p = _cli("run", "mine.toml", "--cc", "dctcp", cwd=tmp_path)
    assert (
        p.returncode == 2
        and p.stderr == "dccsim: error: scenario: mine.toml is a directory, not a scenario file\n"
    )


def test_bad_scenario_field_exits_2(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('duration = "1s"\n[topology]\nkind = "fattree"\n[[flows]]\nsrc = 0\ndst = 1\n')
    p = _cli("run", str(f), "--cc", "dctcp")  # the simulator's checks come first: a missing field
    assert p.returncode == 2 and p.stderr.startswith("dccsim: error: topology.") and p.stderr.count("\n") == 1
    # a valid simulator scenario that the testbed cannot build
    p = _cli("run", "bench-fattree-perm", "--cc", "dctcp")
    assert p.returncode == 2 and "topology.kind" in p.stderr and p.stderr.count("\n") == 1


def test_algorithm_names_are_case_sensitive_as_in_the_simulator():
    p = _cli("run", "testbed-shared-4", "--cc", "POWERTCP")
    assert p.returncode == 2 and "unknown algorithm 'POWERTCP'" in p.stderr and p.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "text,needle",
    [
        ("duration = nan\n", "duration"),
        ("duration = inf\n", "duration"),
    ],
)
def test_nan_inf_and_bom_give_one_line(tmp_path, text, needle):
    base = (ROOT / "python" / "dccsim" / "experiments" / "testbed-shared-4.toml").read_text()
    body = "\n".join(l for l in base.splitlines() if not l.startswith("duration"))
    f = tmp_path / "s.toml"
    f.write_text(text + body, encoding="utf-8")
    p = _cli("run", str(f), "--cc", "dctcp")
    assert p.returncode == 2 and p.stderr.startswith(f"dccsim: error: {needle}")
    assert "Traceback" not in p.stderr and p.stderr.count("\n") == 1


def test_non_utf8_file_gives_one_line(tmp_path):
    f = tmp_path / "s.toml"
    f.write_bytes(b'name = "\xff\xfe"\n')
    p = _cli("run", str(f), "--cc", "dctcp")
    assert p.returncode == 2 and "not UTF-8" in p.stderr and p.stderr.count("\n") == 1


def test_not_root_exits_2(monkeypatch, capsys):
    # In-process with the effective uid faked: independent of where the checkout is (a real
    # privilege drop fails when uid 65534 cannot read the checkout, e.g. a `mktemp -d` clone).
    from dccsim.testbed import cli

    monkeypatch.setattr(os, "geteuid", lambda: 65534)
    rc = cli.main(["run", "testbed-shared-4", "--cc", "dctcp"])
    err = capsys.readouterr().err
    assert rc == 2 and "root" in err and err.count("\n") == 1


@needs_testbed
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_cleans_up(sig, tmp_path, clean_testbed):
    from dccsim.testbed import topology

    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dccsim.testbed",
            "run",
            "testbed-shared-4",
            "--cc",
            "powertcp",
            "--out",
            str(tmp_path / "o"),
        ],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 30
    while time.time() < deadline and not topology.leftover_namespaces():
        time.sleep(0.1)
    time.sleep(2.0)  # inside the run
    assert topology.leftover_namespaces(), "the run never built its namespaces"
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert "cleaned up" in err
    # nothing that looks like a result: no output directory, no staging directory beside it
    assert not (tmp_path / "o").exists()
    assert [x.name for x in tmp_path.iterdir()] == []
    # clean_testbed asserts that no namespace, struct_ops or pin is left


@needs_testbed
def test_an_output_path_that_is_a_file_is_refused_before_running(tmp_path, clean_testbed):
    f = tmp_path / "o"
    f.write_text("keep me")
    p = _cli("run", "testbed-shared-4", "--cc", "dctcp", "--out", str(f))
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("dccsim: error: out:"), p.stderr
    assert f.read_text() == "keep me"
