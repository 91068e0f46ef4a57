import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"


def dccsim(*args, cwd=None):
    """Run the CLI in a fresh interpreter, as a user would."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "dccsim.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=900,
    )


def load_script(relpath: str, name: str):
    """A script of the repository that is not part of the package (tools/…, tests/…), imported as
    module `name` (registered in sys.modules, so its dataclasses and pickles resolve)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / relpath)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def assert_input_error(proc, field):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"dccsim: error: {field}"), proc.stderr
    assert "Traceback" not in proc.stderr


def assert_refused_in_one_line(raw: dict, field: str) -> None:
    """The scenario `raw` (a dict) is refused when it becomes an engine config, in one line naming
    `field` (its dotted path)."""
    import pytest

    from dccsim import scenario

    with pytest.raises(Exception) as e:
        scenario.from_dict(raw).to_engine_config()
    msg = str(e.value)
    assert field in msg and "\n" not in msg.strip(), msg


def run_catalog_edited(name, tmp_path, edit=lambda s: s, variants=None, figures=None):
    """Run catalog experiment `name` with its TOML text passed through `edit` (a shorter duration,
    fewer flows) into tmp_path/name; returns (summary, scenario). `figures`: None = the runner's default."""
    from dccsim import runner
    from dccsim.experiments import text
    from dccsim.scenario import loads

    scn = loads(edit(text(name)), default_name=name)
    drawn = {} if figures is None else {"figures": figures}
    out = runner.run(scn, tmp_path / name, variants=variants, progress=False, argv=["test"], **drawn)
    return out, scn
