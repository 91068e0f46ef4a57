"""The simulators' topology file (`mix/topology.txt`, `mix/fat.txt`; read by `main` in
`simulation/scratch/third.cc`):

    <nodes> <switches> <links>
    <switch node id> ... (one per switch)
    <node a> <node b> <rate> <delay> <error rate>     (one line per link)

Nodes are numbered 0..nodes-1; those listed on the second line are switches, the rest hosts.
Rates and delays are ns-3 attribute strings ("100Gbps", "0.001ms", "1000ns"). Like the
simulator, the reader stops after the announced links (what follows is reported, not read).

As a dccsim custom topology: hosts h0.. in increasing node id, switches s0.. likewise (so a file
that numbers its hosts first, as fat.txt does, keeps host numbers: node i = h<i>). A link with
a non-zero error rate is refused (dccsim's links do not drop packets at random).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ScenarioError
from ..units import UnitError, format_rate_exact, format_time_exact, parse_rate, parse_time
from . import Tokens, read


@dataclass(frozen=True)
class Topology:
    nodes: int
    switches: tuple  # switch node ids, in increasing order
    links: tuple  # (node a, node b, rate bits/s, delay ps)
    # where text the simulator never reads begins (after the announced links): "FILE:LINE", or ""
    ignored_from: str = ""

    @property
    def hosts(self) -> tuple:
        sw = set(self.switches)
        return tuple(i for i in range(self.nodes) if i not in sw)

    def name(self, node: int) -> str:
        """The dccsim node name of a node id ("h3", "s0")."""
        if node in self._host_index:
            return f"h{self._host_index[node]}"
        return f"s{self.switches.index(node)}"

    @property
    def _host_index(self) -> dict:
        return {n: i for i, n in enumerate(self.hosts)}

    def host_of(self, node: int, where: str) -> int:
        """The dccsim host index of a host's node id."""
        index = self._host_index
        if node not in index:
            kind = "a switch" if node in self.switches else f"not a node (0..{self.nodes - 1})"
            raise ScenarioError(where, f"node {node} is {kind}; flows run between hosts")
        return index[node]

    def node_of(self, host: int) -> int:
        return self.hosts[host]

    def scenario_table(self) -> dict:
        """The scenario's [topology] table."""
        return {
            "kind": "custom",
            "hosts": len(self.hosts),
            "switches": len(self.switches),
            "links": [
                {
                    "a": self.name(a),
                    "b": self.name(b),
                    "rate": format_rate_exact(r),
                    "delay": format_time_exact(d),
                }
                for a, b, r, d in self.links
            ],
        }


def _ns3_rate(text: str) -> str:
    """ns-3's DataRate spellings ("100Gb/s", "100Gbps") in dccsim's ("100Gbps")."""
    return re.sub(r"([kKMGT]?)b/s$", r"\1bps", text)


def parse(t: Tokens) -> Topology:
    nodes = t.int("the node count", lo=1)
    n_sw = t.int("the switch count")
    n_links = t.int("the link count")
    if n_sw > nodes:
        raise ScenarioError(t.where(), f"{n_sw} switches but only {nodes} nodes")
    switches = []
    for k in range(n_sw):
        s = t.int(f"switch {k + 1} of {n_sw}")
        if s >= nodes or s in switches:
            raise ScenarioError(t.where(), f"switch id {s}: must be a distinct node in 0..{nodes - 1}")
        switches.append(s)
    links = []
    for k in range(n_links):
        what = f"link {k + 1} of {n_links}"
        a, b = t.int(what + ", node a"), t.int(what + ", node b")
        if a >= nodes or b >= nodes or a == b:
            raise ScenarioError(
                t.where(), f"{what}: nodes {a}, {b} must be two distinct nodes in 0..{nodes - 1}"
            )
        n, rate = t.next(what + ", rate")
        n2, delay = t.next(what + ", delay")
        n3, err = t.next(what + ", error rate")
        try:
            r = parse_rate(_ns3_rate(rate), "rate")
            d = parse_time(delay, "delay")
        except UnitError as e:
            raise ScenarioError(f"{t.path}:{n}", f"{what}: {e}") from None
        try:
            bad = float(err) != 0.0
        except ValueError:
            bad = True
        if bad:
            raise ScenarioError(
                f"{t.path}:{n3}",
                f"{what}: error rate {err!r} is not supported (dccsim's links lose no packets at random); allowed: 0",
            )
        links.append((a, b, r, d))
    # third.cc reads the announced links and no further (its own mix/topology.txt has more links
    # and notes below them): the caller reports what is left out
    left = t.rest()
    if len(switches) == 0 and nodes > 2:
        raise ScenarioError(f"{t.path}:1", "no switch listed; the second line lists the switches' node ids")
    return Topology(nodes, tuple(sorted(switches)), tuple(links), f"{t.path}:{left[0][0]}" if left else "")


def load(path) -> Topology:
    return parse(read(path))
