"""tools/check_imports.py: the package has no import cycle, and the check fails on one injected
into a copy (function-level imports, the kind that hides a cycle from Python, of each spelling)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "check_imports.py"
PKG = ROOT / "python" / "dccsim"


def check(pkg: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), str(pkg)], capture_output=True, text=True)


def cycle_lines(r: subprocess.CompletedProcess) -> list[str]:
    return [line for line in r.stdout.splitlines() if line.startswith("import cycle: ")]


def test_the_package_has_no_import_cycle():
    r = check(PKG)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("no import cycles:")


def test_a_cycle_is_named_with_its_imports(tmp_path):
    pkg = tmp_path / "dccsim"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("import os\n\n\ndef f():\n    from ..a import x\n")
    r = check(pkg)
    assert r.returncode == 1
    assert cycle_lines(r) == ["import cycle: dccsim.a -> dccsim.sub.b -> dccsim.a"]
    assert "dccsim/sub/b.py:5: dccsim.sub.b imports dccsim.a" in r.stdout
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import a\n")  # the module, by name
    assert cycle_lines(check(pkg)) == ["import cycle: dccsim.a -> dccsim.sub.b -> dccsim.a"]
    (pkg / "sub" / "b.py").write_text("def f():\n    import dccsim.a\n")  # absolute
    assert cycle_lines(check(pkg)) == ["import cycle: dccsim.a -> dccsim.sub.b -> dccsim.a"]
    (pkg / "sub" / "b.py").write_text("def f():\n    import os.path\n")  # not ours
    assert check(pkg).returncode == 0


def test_a_cycle_injected_into_a_copy_fails(tmp_path):
    pkg = tmp_path / "dccsim"
    shutil.copytree(PKG, pkg, ignore=shutil.ignore_patterns("__pycache__", "*.toml", "*.cdf", "*.md"))
    assert check(pkg).returncode == 0
    # sweep_spec imports errors at module level; a lazy import back from errors closes the loop
    errors = pkg / "errors.py"
    errors.write_text(errors.read_text() + "\n\ndef _late():\n    from .sweep_spec import load\n")
    r = check(pkg)
    assert r.returncode == 1
    assert any("dccsim.errors -> " in c for c in cycle_lines(r)), r.stdout
