"""Errors the front raises for bad input. The CLI turns them into one line and exit status 2."""

from __future__ import annotations


class ScenarioError(ValueError):
    """Invalid user input. `field` is the user-facing name (e.g. ``topology.host_rate``)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class EngineUnavailable(RuntimeError):
    """The compiled extension ``dccsim._engine`` is not importable in this installation."""


class OutputError(ScenarioError):
    """The output location cannot be used (not a directory, not writable, locked, full, holding
    another run). Reported like bad input: one line naming the field (``out``), exit status 2."""
