"""The engine's layering that the compiler does not enforce: `config/` is plain data (a leaf that
imports only the schema), and the event kinds belong to the simulator, not to the queue."""

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "crates" / "engine" / "src"
USE = re.compile(r"\bcrate::([a-z_]+)")


def _layers_used(path: Path) -> set:
    return set(USE.findall(path.read_text(encoding="utf-8")))


def test_config_imports_only_the_schema():
    for f in sorted((SRC / "config").glob("*.rs")):
        # `section!` and `kinds!` are the schema's macros (exported at the crate root)
        assert _layers_used(f) <= {"schema", "section", "kinds", "config"}, f"{f.name} uses {_layers_used(f)}"


def test_the_schema_imports_no_layer():
    assert _layers_used(SRC / "schema.rs") <= {"schema", "section", "kinds"}


def test_event_kinds_live_with_the_simulator():
    assert "enum EvKind" in (SRC / "sim" / "events.rs").read_text(encoding="utf-8")
    assert "enum EvKind" not in (SRC / "sched" / "mod.rs").read_text(encoding="utf-8")


def test_the_check_can_fail(tmp_path):
    bad = tmp_path / "x.rs"
    bad.write_text("use crate::cc::Telemetry;\n")
    assert _layers_used(bad) == {"cc"}
