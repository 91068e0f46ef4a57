"""docs/write-an-algorithm.md is tested: every command of its `sh` blocks runs, in order, in a
fresh directory laid out like a checkout (`examples/`), and succeeds; the `sudo` (testbed) block
runs as root when the testbed's tools are installed."""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "write-an-algorithm.md"

pytestmark = [
    pytest.mark.engine,
    pytest.mark.skipif(shutil.which("clang") is None, reason="clang compiles plugins (CI installs it)"),
]


def commands() -> list:
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    return [line.strip() for b in blocks for line in b.splitlines() if line.strip()]


def _argv(line: str) -> list:
    words = shlex.split(line)
    if words[0] == "dccsim":
        return [sys.executable, "-m", "dccsim.cli", *words[1:]]
    if words[0] == "python":
        return [sys.executable, *words[1:]]
    raise AssertionError(f"the guide runs only dccsim and python: {line}")


def test_the_guide_has_every_step():
    cmds = commands()
    assert cmds[0] == "dccsim cc new myaimd"
    assert any("--add-variant" in c and "websearch" in c for c in cmds)
    assert any("metrics.trace" in c for c in cmds)
    assert any("--log cc:" in c for c in cmds)
    assert any(c.startswith("sudo dccsim testbed run") for c in cmds)


def test_every_command_of_the_guide_runs(tmp_path):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    ran = []
    for line in commands():
        if line.startswith("sudo "):
            if os.geteuid() != 0 or shutil.which("bpftool") is None:
                continue  # tests/testbed covers the testbed as root; this needs its tools
            line = line[len("sudo ") :]
        p = subprocess.run(_argv(line), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, f"{line}\n{p.stderr[-2000:]}"
        ran.append(line)
    assert (tmp_path / "myaimd.bpf.c").is_file()
    assert (tmp_path / "websearch" / "fct.png").is_file()
    log = (tmp_path / "logged" / "myaimd" / "log.txt").read_text().splitlines()
    assert log and all(" flow=3 " in line and " cc " in line for line in log)
    assert any(" cc ack " in line and "qdelay_ns=" in line for line in log)  # the plugin's variables
    assert (tmp_path / "incast" / "myaimd").is_dir() and (tmp_path / "incast" / "incast.png").is_file()
    assert len(ran) >= 6
