"""Bounded reads of the files a user names (scenario files, sweep specs): regular files only, at
most MAX_FILE_BYTES, and TOML no deeper than MAX_TOML_DEPTH, each problem one ScenarioError
naming the field (docs/python-front.md, "Input limits").

A path that is a FIFO, a device (``/dev/zero``, endless) or a directory is refused before a byte
is read; a regular file is read through one descriptor (what was checked is what is read) and at
most one byte past the limit. The depth scan runs before the TOML parser, whose recursion would
otherwise end in a RecursionError on ``a = [[[[…`` nested some hundreds of levels deep.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .errors import ScenarioError

MAX_FILE_BYTES = 64 * 2**20  # 64 MiB: a scenario is kilobytes; a long [[flows]] list a few MB
MAX_TOML_DEPTH = 64  # nested arrays / inline tables; scenarios use at most 4, the parser fails near 500

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


def read_bytes(path, field: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file `path` (symlinks followed), refusing anything else."""
    p = str(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not hang; a regular file ignores it
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise ScenarioError(field, f"cannot read {p!r}: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a pipe or device?)"
            raise ScenarioError(field, f"{p!r} is {kind}; expected a TOML file")
        if st.st_size > limit:
            raise ScenarioError(field, f"{p!r} is {st.st_size} bytes; at most {limit} bytes are read")
        chunks, total = [], 0
        while total <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - total))
            if not b:
                break
            chunks.append(b)
            total += len(b)
        if total > limit:  # grew while being read
            raise ScenarioError(field, f"{p!r} is larger than {limit} bytes; at most {limit} bytes are read")
        return b"".join(chunks)
    except OSError as e:
        raise ScenarioError(field, f"cannot read {p!r}: {e.strerror}") from None
    finally:
        os.close(fd)


def read_text(path, field: str, limit: int = MAX_FILE_BYTES) -> str:
    """read_bytes decoded as UTF-8 (a byte-order mark dropped)."""
    raw = read_bytes(path, field, limit)
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        raise ScenarioError(
            field,
            f"{str(path)!r} is not UTF-8 text (invalid byte 0x{raw[e.start]:02x} at offset {e.start})",
        ) from None


def toml_depth(text: str) -> int:
    """The deepest nesting of arrays and inline tables in TOML `text` (strings and comments
    skipped). A cheap linear scan, not a parser: malformed text is left to the parser."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
        elif c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if c == '"' and text[j] == "\\":
                    j += 1
                elif len(quote) == 1 and text[j] == "\n":
                    break  # an unterminated one-line string: the parser reports it
                j += 1
            i = j + len(quote)
            continue
        i += 1
    return deepest


def toml_loads(text: str, field: str, max_depth: int = MAX_TOML_DEPTH) -> dict:
    """tomllib.loads with a depth limit; errors name `field`, or the key a file gives twice."""
    d = toml_depth(text)
    if d > max_depth:
        raise ScenarioError(field, f"invalid TOML: nested {d} levels deep; at most {max_depth} are allowed")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        repeated = repeated_key(str(e), text)
        if repeated is not None:
            key, line = repeated
            raise ScenarioError(key, f"given twice (TOML line {line}); a key must appear once") from None
        raise ScenarioError(field, f"invalid TOML: {e}") from None
    except RecursionError:  # a nesting the scan could not see (it is only an estimate)
        raise ScenarioError(field, "invalid TOML: nested too deeply") from None


_AT = re.compile(r"\(at line (\d+), column \d+\)")
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_\-.\"' ]+?)\s*\]\]?\s*(#.*)?$")


def repeated_key(message: str, text: str):
    """(dotted key, line) of tomllib's "Cannot overwrite a value" / "Cannot declare ... twice"
    error, which gives only a line and column; None for any other error."""
    m = _AT.search(message)
    if not m or not message.startswith(("Cannot overwrite", "Cannot declare")):
        return None
    line_no = int(m.group(1))
    lines = text.splitlines()
    if not 1 <= line_no <= len(lines):
        return None
    table, seen = "", {}
    for raw in lines[: line_no - 1]:
        h = _HEADER.match(raw)
        if h:
            name = _plain(h.group(2))
            if h.group(1) == "[[":
                seen[name] = seen.get(name, -1) + 1
                table = f"{name}[{seen[name]}]"
            else:
                table = name
    line = lines[line_no - 1]
    h = _HEADER.match(line)
    key = _plain(h.group(2)) if h else _plain(line.split("=", 1)[0])
    if not key:
        return None
    return (key if h or not table else f"{table}.{key}"), line_no


def _plain(key: str) -> str:
    """A TOML key as a dotted name: spaces around the dots and quotes dropped."""
    return ".".join(part.strip().strip("\"'") for part in key.split("."))


def load_toml_file(path, field: str) -> dict:
    """A TOML file read with every limit of this module."""
    return toml_loads(read_text(Path(path), field), field)
