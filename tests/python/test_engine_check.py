"""The engine's end-of-run invariants from the front (issue 27): `dccsim run --check` and
`[engine] check = true` turn them on in a release engine; a violation is one line naming the
invariant, exit status 1, never a traceback. (Each invariant's own failing test is in
crates/engine/src/invariants.rs; the fuzz target in crates/engine/tests/fuzz_config.rs.)"""

from __future__ import annotations

import tomllib

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
