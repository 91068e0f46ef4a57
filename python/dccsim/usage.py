"""Command-line usage errors as one line: `dccsim: error: <argument>: <problem>`, exit 2, like
every bad input (argparse would print a usage block); shared by `dccsim` and `dccsim testbed`."""

from __future__ import annotations

import argparse

from .errors import ScenarioError


class UsageError(ScenarioError):
    """A command-line usage error (unknown flag, missing argument, bad value): one line, exit 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line `dccsim: error: <argument>: <problem>` (no usage block,
    exit 2 like every bad input); --help still prints the usage."""

    def error(self, message: str):
        import re

        if m := re.fullmatch(r"the following arguments are required: (.+)", message):
            first = m.group(1).split(", ")[0]
            raise UsageError(first, f"missing (required); see '{self.prog} --help'")
        if m := re.fullmatch(r"unrecognized arguments: (.+)", message):
            raise UsageError(m.group(1).split(" ")[0], "unknown argument; see 'dccsim COMMAND --help'")
        if m := re.fullmatch(r"argument ([^:]+): (.+)", message, re.S):
            name, what = m.group(1).split("/")[-1], m.group(2)
            if v := re.fullmatch(r"invalid int value: (.+)", what):
                what = f"expected an integer, got {v.group(1)}"
            raise UsageError(name, what)
        raise UsageError(self.prog.split(" ", 1)[-1], message)
