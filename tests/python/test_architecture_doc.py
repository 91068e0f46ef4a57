"""docs/architecture.md shows the real Python tree: every top-level module and package of
python/dccsim is named in its "Python front" section."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "python" / "dccsim"


def top_level(pkg: Path) -> list[str]:
    """`name.py` for each module, `name/` for each package (a directory with __init__.py)."""
    mods = [p.name for p in pkg.glob("*.py")]
    pkgs = [f"{p.name}/" for p in pkg.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    return sorted(mods + pkgs)


def python_section(text: str) -> str:
    m = re.search(r"^## Python front.*?(?=^## |\Z)", text, re.S | re.M)
    assert m, "docs/architecture.md has no '## Python front' section"
    return m.group(0)


def named(section: str) -> set[str]:
    """The entries of the section's tree: the first word of each indented line."""
    return {m.group(1) for m in re.finditer(r"^  (\S+)", section, re.M)}


def test_every_top_level_module_is_in_the_architecture_doc():
    section = python_section((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    missing = [m for m in top_level(PKG) if m not in named(section)]
    assert not missing, f"docs/architecture.md (Python front) lacks: {', '.join(missing)}"


def test_the_doc_names_no_module_that_is_gone():
    section = python_section((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    gone = [m for m in named(section) if m.endswith((".py", "/")) and m not in top_level(PKG)]
    assert not gone, f"docs/architecture.md (Python front) names modules that do not exist: {gone}"


def test_the_check_sees_a_new_module(tmp_path):
    pkg = tmp_path / "dccsim"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "data").mkdir()  # not a package
    assert top_level(pkg) == ["__init__.py", "a.py", "sub/"]
    section = python_section("# x\n## Python front\n```\n  a.py  one\n  sub/  two\n```\n## Next\n  b.py\n")
    assert named(section) == {"a.py", "sub/"}
