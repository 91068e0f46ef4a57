"""The engine's end-of-run invariants from the front (issue 27): `dccsim run --check` and
`[engine] check = true` turn them on in a release engine; a violation is one line naming the
invariant, exit status 1, never a traceback. (Each invariant's own failing test is in
crates/engine/src/invariants.rs; the fuzz target in crates/engine/tests/fuzz_config.rs.)"""

from __future__ import annotations

import tomllib
from pathlib import Path

from cli_helpers import DATA, assert_input_error, dccsim

from dccsim import cli, engine
from dccsim.scenario import dump_toml, load


def test_check_on_the_command_line_runs_the_checks_and_records_them(tmp_path):
    out = tmp_path / "out"
    proc = dccsim("run", DATA / "incast-small.toml", "--check", "--no-figures", "--quiet", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    # the run's scenario says it was checked, so a rerun from it checks too
    assert tomllib.loads((out / "scenario.toml").read_text())["engine"] == {"check": True}


def test_engine_check_in_a_scenario_file_round_trips_and_reaches_the_engine(tmp_path):
    text = (DATA / "incast-small.toml").read_text() + "\n[engine]\ncheck = true\n"
    path = tmp_path / "checked.toml"
    path.write_text(text)
    scn = load(path)
    assert scn.engine.check is True
    assert scn.to_engine_config()["engine"] == {"check": True}
    assert tomllib.loads(dump_toml(scn))["engine"] == {"check": True}
    # off (the default) leaves the engine's input as it was: no [engine] table
    assert "engine" not in load(DATA / "incast-small.toml").to_engine_config()


def test_a_bad_engine_check_value_is_one_line_naming_the_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text((DATA / "incast-small.toml").read_text() + '\n[engine]\ncheck = "yes"\n')
    assert_input_error(dccsim("run", path, "--no-figures", "--out", tmp_path / "o"), "engine.check")
    path.write_text((DATA / "incast-small.toml").read_text() + "\n[engine]\nchecks = true\n")
    assert_input_error(dccsim("run", path, "--no-figures", "--out", tmp_path / "o"), "engine.checks")


def test_a_violation_is_one_line_naming_the_invariant_and_exit_1(tmp_path, monkeypatch, capsys):
    real = engine._module()

    class Broken:
        """The compiled engine, except that its run reports a broken invariant as it would (an
        invariant cannot be broken from outside the engine: its own tests do that)."""

        def __getattr__(self, name):
            return getattr(real, name)

        def run(self, text, progress=None):
            line = (
                "invariant port-packets violated at port sw0->h0: offered 10 != sent 8 + dropped 0 + queued 1"
            )
            raise real.InvariantViolation(line)

    monkeypatch.setattr(engine, "_module", Broken)
    args = ["run", str(DATA / "incast-small.toml"), "--variant", "PowerTCP", "--no-figures", "--quiet"]
    code = cli.main([*args, "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(
        "dccsim: error: invariant port-packets violated at port sw0->h0: offered 10"
    ), err
    assert "variant 'PowerTCP'" in lines[0], err


def test_threads_write_the_same_run_directory_but_meta(tmp_path):
    # one simulation on 2 threads (`--threads`, `[engine] threads`; docs/parallel.md): every file
    # of the run directory is byte-identical to one thread's, meta.json (command line, times) aside
    outs = {}
    for threads in (1, 2):
        outs[threads] = out = tmp_path / f"t{threads}"
        args = ("run", "powertcp-incast", "--variant", "powertcp", "--no-figures", "--quiet", "--out", out)
        proc = dccsim(*args, "--threads", str(threads))
        assert proc.returncode == 0, proc.stderr
    files = sorted(p.relative_to(outs[1]) for p in outs[1].rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(outs[2]) for p in outs[2].rglob("*") if p.is_file())
    assert any(f.suffix == ".parquet" for f in files), files
    differ = [f for f in files if (outs[1] / f).read_bytes() != (outs[2] / f).read_bytes()]
    assert differ == [Path("meta.json")], differ


def test_a_scenario_threads_cannot_cut_is_refused_in_one_line_naming_the_key(tmp_path):
    # dctcp-k is a star: one edge switch, nothing to cut — refused, never run on one thread silently
    proc = dccsim("run", "dctcp-k", "--threads", "2", "--no-figures", "--out", tmp_path / "o")
    assert_input_error(proc, "engine.threads")
    assert_input_error(dccsim("run", "dctcp-k", "--threads", "0", "--out", tmp_path / "o"), "--threads")
