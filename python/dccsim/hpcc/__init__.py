"""The file formats of the HPCC and PowerTCP ns-3 simulators (alibaba-edu/High-Precision-
Congestion-Control, inet-tub/ns3-datacenter), read and written so that users can move their
setups and results (docs/python-front.md, "Migrating from the HPCC/PowerTCP simulators"):

* `topology`: the topology file (`mix/topology.txt`, `mix/fat.txt`) -> a custom topology;
* `flows`: the flow file written by `traffic_gen/traffic_gen.py` -> a static flow list;
* `fct`: the FCT output (`qp_finish` in `simulation/scratch/third.cc`) <-> dccsim's flow records.

The formats are whitespace-separated text; every error names the file and line.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ScenarioError


class Tokens:
    """The whitespace-separated tokens of a text file, each with its line number, read in order;
    errors name `FILE:LINE`."""

    def __init__(self, path, text: str):
        self.path = str(path)
        self.items = [(n, tok) for n, line in enumerate(text.splitlines(), 1) for tok in line.split()]
        self.i = 0

    def where(self) -> str:
        n = self.items[min(self.i, len(self.items) - 1)][0] if self.items else 1
        return f"{self.path}:{n}"

    def next(self, what: str) -> tuple[int, str]:
        if self.i >= len(self.items):
            raise ScenarioError(f"{self.path}:end", f"ended before {what}")
        self.i += 1
        return self.items[self.i - 1]

    def int(self, what: str, lo: int = 0) -> int:
        n, tok = self.next(what)
        try:
            v = int(tok)
        except ValueError:
            raise ScenarioError(f"{self.path}:{n}", f"{what}: expected an integer, got {tok!r}") from None
        if v < lo:
            raise ScenarioError(f"{self.path}:{n}", f"{what}: must be ≥ {lo}, got {v}")
        return v

    def rest(self) -> list[tuple[int, str]]:
        return self.items[self.i :]


def read(path) -> Tokens:
    from ..bounded_read import read_text

    return Tokens(path, read_text(Path(path), str(path)))
