"""The simulators' flow file (written by `traffic_gen/traffic_gen.py`, read by `ReadFlowInput`
in `simulation/scratch/third.cc`):

    <flow count>
    <src node> <dst node> <priority group> <dst port> <size bytes> <start time seconds>

(traffic_gen writes priority group 3 and port 100; dccsim has one data priority and no port
numbers, so both are read and dropped.) Start times are decimal seconds, converted exactly to
picoseconds.

`scenario(topology, flows)` is the dccsim scenario of both files: the custom topology, the flows
as a static list ([[flows]]), HPCC's defaults (`[fabric] profile = "hpcc-ns3"`, `[cc] algorithm
= "hpcc"`, run.py's `--cc hp` default) and the run's end at run.py's SIMULATOR_STOP_TIME (4 s),
or 1 s after the last start when that is later. Without flows (a topology alone) the scenario
runs a permutation of long flows (`[workload] kind = "permutation"`) until flows are added.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ..errors import ScenarioError
from ..units import format_time_exact
from . import Tokens, read

STOP_PS = 4 * 10**12  # run.py config_template: SIMULATOR_STOP_TIME 4.00
AFTER_LAST_PS = 10**12


@dataclass(frozen=True)
class Flow:
    src: int  # node ids of the file
    dst: int
    size: int
    start_ps: int
    line: int


def _seconds(tok: str, where: str) -> int:
    try:
        v = Decimal(tok)
    except InvalidOperation:
        raise ScenarioError(where, f"start time: expected seconds (e.g. 2.000001), got {tok!r}") from None
    if not v.is_finite() or v < 0:
        raise ScenarioError(where, f"start time: must be ≥ 0 seconds, got {tok!r}")
    return int(v * 10**12)


def parse(t: Tokens) -> list[Flow]:
    count = t.int("the flow count")
    out = []
    for k in range(count):
        what = f"flow {k + 1} of {count}"
        src, dst = t.int(what + ", src"), t.int(what + ", dst")
        t.int(what + ", priority group")
        t.int(what + ", dst port")
        size = t.int(what + ", size", lo=1)
        n, start = t.next(what + ", start time")
        if src == dst:
            raise ScenarioError(f"{t.path}:{n}", f"{what}: src and dst are both node {src}")
        out.append(Flow(src, dst, size, _seconds(start, f"{t.path}:{n}"), n))
    return out


def load(path) -> tuple[list[Flow], str]:
    """(the flows, "FILE:LINE" where text the simulator never reads begins, or ""): ReadFlowInput
    reads the announced count of flows and no further."""
    t = read(path)
    out = parse(t)
    left = t.rest()
    return out, f"{t.path}:{left[0][0]}" if left else ""


def scenario(topo, flows: list[Flow], name: str, path: str = "flows") -> dict:
    """The scenario table (as `scenario.from_dict` reads it) of a topology and its flows."""
    last = max((f.start_ps for f in flows), default=0)
    if flows:
        traffic = {
            "flows": [
                {
                    "src": topo.host_of(f.src, f"{path}:{f.line}"),
                    "dst": topo.host_of(f.dst, f"{path}:{f.line}"),
                    "size": f"{f.size}B",
                    "start": format_time_exact(f.start_ps),
                }
                for f in flows
            ]
        }
    else:  # no flow file: a permutation of long flows, so that the scenario runs as it is
        traffic = {"workload": {"kind": "permutation"}}
    return {
        "name": name,
        "description": f"imported from the HPCC/PowerTCP ns-3 simulators' files ({name}); "
        "hosts h0.. are the topology's non-switch nodes in increasing id",
        "duration": format_time_exact(max(STOP_PS, last + AFTER_LAST_PS)),
        "fabric": {"profile": "hpcc-ns3"},
        "topology": topo.scenario_table(),
        "cc": {"algorithm": "hpcc"},
        **traffic,
    }
