"""Errors the front raises for bad input. The CLI turns them into one line and exit status 2."""

from __future__ import annotations

import re

MAX_ECHO = 100  # characters of a user's value (or key, or path) quoted back in a message
_LONG_QUOTED = re.compile(r"(['\"])((?:(?!\1).){" + str(MAX_ECHO + 1) + r",})\1", re.S)
# the one line as a whole: a safety net for an unquoted value no converter cut (the allowed
# values are kept: the list of catalog experiments alone is ~900 characters)
MAX_MESSAGE = 2000


def cut(text: str, limit: int = MAX_ECHO) -> str:
    """`text` cut to `limit` characters in the middle (a path keeps its file name)."""
    text = str(text)
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return f"{text[:head]}…{text[len(text) - (limit - 1 - head) :]}"


def brief(text: str, limit: int = MAX_ECHO) -> str:
    """cut(), saying the full length when it cut."""
    text = str(text)
    return text if len(text) <= limit else f"{cut(text, limit)} ({len(text)} characters)"


def bounded(message: str) -> str:
    """A message with each quoted value longer than MAX_ECHO cut, then the whole cut to
    MAX_MESSAGE (head and tail kept: the field's value and what is allowed)."""

    def short(m) -> str:
        q, body = m.group(1), m.group(2)
        return f"{q}{cut(body)}{q} ({len(body)} characters)"

    message = _LONG_QUOTED.sub(short, message)
    if len(message) > MAX_MESSAGE:
        half = MAX_MESSAGE // 2
        message = f"{message[:half]} … {message[-half:]}"
    return message


class ScenarioError(ValueError):
    """Invalid user input. `field` is the user-facing name (e.g. ``topology.host_rate``). A
    value quoted in `message` is cut to MAX_ECHO characters (a 1 MB value is not echoed)."""

    def __init__(self, field: str, message: str):
        field, message = brief(field), bounded(message)
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class EngineUnavailable(RuntimeError):
    """The compiled extension ``dccsim._engine`` is not importable in this installation."""


class OutputError(ScenarioError):
    """The output location cannot be used (not a directory, not writable, locked, full, holding
    another run). Reported like bad input: one line naming the field (``out``), exit status 2."""


class InvariantViolation(RuntimeError):
    """An end-of-run invariant of the engine does not hold (`[engine] check`, `dccsim run
    --check`; docs/engine-api.md): an engine bug, not bad input. The message is the engine's one
    line naming the invariant, where it failed and the numbers; the CLI exits with status 1."""
