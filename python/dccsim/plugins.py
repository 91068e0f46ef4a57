"""Congestion-control plugins (docs/plugins.md): compile a restricted-C file to a BPF object,
cached by content, check it and its parameters with the engine, and scaffold a new one.

A scenario names one with ``[cc] plugin = "path/NAME.bpf.c"`` (or a prebuilt ``.o``); the engine
gets it as algorithm ``plugin:<object path>``. Every problem is a ScenarioError on ``cc.plugin``
naming the source file, or on ``cc.<parameter>``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Optional

from .errors import ScenarioError

PREFIX = "plugin:"
CLANG_FLAGS = ["-O2", "-target", "bpf", "-mcpu=v3", "-g0"]
_REPO = Path(__file__).resolve().parents[2]


def api_dir() -> Path:
    """The directory of plugin_api.h (the repository's bpf/, or $DCCSIM_PLUGIN_INCLUDE)."""
    return Path(os.environ.get("DCCSIM_PLUGIN_INCLUDE") or _REPO / "bpf")


def example_source() -> Path:
    return _REPO / "examples" / "delay_aimd.bpf.c"


def cache_dir() -> Path:
    """Where compiled objects are kept: $DCCSIM_PLUGIN_CACHE, else the user's cache directory."""
    if os.environ.get("DCCSIM_PLUGIN_CACHE"):
        return Path(os.environ["DCCSIM_PLUGIN_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dccsim" / "plugins"


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error:" in line:
            return line.strip()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[0] if lines else "no message"


def local_includes(text: bytes, dirs: list[Path], seen: set[Path] | None = None) -> list[bytes]:
    """The contents of the `#include "x.h"` files of `text` found in `dirs` (first match, as the
    compiler searches them), and of theirs, each once, in order of first inclusion."""
    seen = set() if seen is None else seen
    out: list[bytes] = []
    for name in re.findall(rb'^\s*#\s*include\s+"([^"]+)"', text, flags=re.M):
        path = next((d / name.decode() for d in dirs if (d / name.decode()).is_file()), None)
        if path is None or path.resolve() in seen:
            continue
        seen.add(path.resolve())
        body = path.read_bytes()
        out += [body, *local_includes(body, [path.parent, *dirs], seen)]
    return out


def compile_source(source: Path, field: str = "cc.plugin") -> Path:
    """The BPF object of `source` (a .c file, compiled by clang once per content of it, of
    plugin_api.h and of the headers it includes from its own directory or the repository's bpf/;
    a .o is returned as it is)."""
    if source.suffix == ".o":
        if not source.is_file():
            raise ScenarioError(field, f"{source}: no such file")
        return source
    try:
        text = source.read_bytes()
    except OSError as e:
        raise ScenarioError(field, f"{source}: cannot read: {e.strerror}") from None
    header = api_dir() / "plugin_api.h"
    try:
        api = header.read_bytes()
    except OSError:
        raise ScenarioError(
            field, f"{source}: plugin_api.h not found in {api_dir()} (set DCCSIM_PLUGIN_INCLUDE)"
        ) from None
    # the laws of bpf/laws/ share headers (bpf/cc_math.h, bpf/laws/power_common.h): a change
    # there is a change of the plugin
    headers = local_includes(text, [source.parent, api_dir()])
    key = b"\0".join([text, api, *headers, " ".join(CLANG_FLAGS).encode()])
    digest = hashlib.sha256(key).hexdigest()[:16]
    stem = source.name.removesuffix(".c").removesuffix(".bpf")
    obj = cache_dir() / f"{stem}-{digest}.o"
    if obj.is_file():
        return obj
    clang = shutil.which("clang")
    if clang is None:
        raise ScenarioError(
            field, f"{source}: clang is not installed (it compiles plugins); give a prebuilt .o instead"
        )
    obj.parent.mkdir(parents=True, exist_ok=True)
    tmp = obj.with_suffix(f".{os.getpid()}.tmp")
    cmd = [
        clang,
        *CLANG_FLAGS,
        "-I",
        str(api_dir()),
        "-I",
        str(source.parent),
        "-c",
        str(source),
        "-o",
        str(tmp),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise ScenarioError(field, f"{source}: does not compile: {_first_error(r.stderr)}")
    os.replace(tmp, obj)
    return obj


def _engine_error(e: ValueError, obj: Path, source: Path) -> ScenarioError:
    field, _, msg = str(e).partition(": ")
    return ScenarioError(field, msg.replace(str(obj), str(source), 1))


def describe(source: Path) -> dict:
    """The plugin's declarations: {"params": [...], "trace": [...], "entries": [...], ...}."""
    from .engine import _module

    obj = compile_source(source)
    try:
        return json.loads(_module().plugin_describe(str(obj)))
    except ValueError as e:
        raise _engine_error(e, obj, source) from None


def cc_spec(data: dict, prefix: str, base_dir: Optional[Path]):
    """The CcSpec of a ``[cc]`` table with ``plugin = "path"``: the rest of the table are the
    plugin's parameters, checked against its declarations."""
    from .engine import _module
    from .scenario.model import CcSpec

    if "algorithm" in data:
        raise ScenarioError(f"{prefix}.algorithm", "give either algorithm or plugin, not both")
    path = data["plugin"]
    if not isinstance(path, str) or not path:
        raise ScenarioError(f"{prefix}.plugin", f"expected a path to a .bpf.c or .o file, got {path!r}")
    source = Path(path).expanduser()
    if not source.is_absolute() and base_dir is not None:
        source = base_dir / source
    obj = compile_source(source, f"{prefix}.plugin")
    params = {k: data[k] for k in sorted(data) if k != "plugin"}
    try:
        _module().plugin_describe(str(obj))
        _module().plugin_check(str(obj), json.dumps(params), prefix)
    except ValueError as e:
        err = _engine_error(e, obj, source)
        if err.field == "cc.plugin":
            err = ScenarioError(f"{prefix}.plugin", str(err).partition(": ")[2])
        raise err from None
    return CcSpec(PREFIX + str(obj.resolve()), params)


def raw_params(source: Path, params: dict) -> list[int]:
    """The values a plugin reads (⌊value · 2^shift⌋, declaration order): its declared defaults with
    `params` (already checked, check_params) over them."""
    out = []
    for d in describe(source)["params"]:
        v = params.get(d["name"])
        out.append(d["default"] if v is None else math.floor(float(v) * (1 << d["shift"])))
    return out


def check_params(source: Path, params: dict, prefix: str = "cc") -> None:
    """ScenarioError naming `<prefix>.<name>` unless `params` fit the plugin's declarations."""
    from .engine import _module

    obj = compile_source(source)
    try:
        _module().plugin_check(str(obj), json.dumps(params), prefix)
    except ValueError as e:
        raise _engine_error(e, obj, source) from None


def needs_int(algorithm: str) -> bool:
    """A plugin algorithm (``plugin:<object>``) that declares DCCSIM_FLAGS(DCCSIM_NEEDS_INT)."""
    from .engine import _module

    if not algorithm.startswith(PREFIX):
        return False
    return bool(json.loads(_module().plugin_describe(algorithm[len(PREFIX) :]))["needs_int"])


def display_name(algorithm: str) -> str:
    """A plugin's name for tables and variants: its file stem (``delay_aimd``); others as given."""
    from .scenario.model import algorithm_name

    return algorithm_name(algorithm)


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")


def scaffold(name: str, directory: Path) -> Path:
    """Write NAME.bpf.c (the commented delay-based AIMD example, renamed) into `directory`."""
    if not NAME.match(name):
        raise ScenarioError("cc.new", f"NAME must be a C identifier (letters, digits, _), got {name!r}")
    target = directory / f"{name}.bpf.c"
    if target.exists():
        raise ScenarioError("cc.new", f"{target} exists; choose another NAME or remove it")
    text = example_source().read_text()
    target.write_text(text.replace("delay_aimd", name))
    return target
