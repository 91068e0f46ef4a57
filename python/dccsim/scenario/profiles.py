"""`[fabric] profile = NAME`: the fabric and controller defaults of a simulator that users
migrate from, in one line, each profile named after the simulator whose defaults it reproduces
(sources per value in docs/scenario.md). Values the file sets itself in `[switch]`, `[host]` or
a controller's table win over the profile's.

* `"powertcp-ns3"`: the PowerTCP study's ns-3 simulator (inet-tub/ns3-datacenter) as its
  evaluation scripts configure it; `"artifact"` is its former name (accepted with a warning).
* `"hpcc-ns3"`: the HPCC authors' simulator (alibaba-edu/High-Precision-Congestion-Control) as
  its `simulation/run.py` configures it at `--bw 100` (the rate of its `mix/fat.txt` links).
"""

from __future__ import annotations

import sys

from ..errors import ScenarioError


def _red_by_rate(rates_gbps) -> dict:
    """RED per port rate at 4 KB of kmin and 16 KB of kmax per Gb/s, Pmax 0.2: both simulators'
    KMIN_MAP / KMAX_MAP / PMAX_MAP (HPCC run.py: kmin = 100·bw/25 KB, kmax = 400·bw/25 KB at bw
    and 4·bw; KB = 1000 B, SwitchMmu::ConfigEcn)."""
    return {
        "kind": "red_by_rate",
        "rules": [
            {"rate": f"{r}Gbps", "kmin": f"{4 * r}KB", "kmax": f"{16 * r}KB", "pmax": 0.2} for r in rates_gbps
        ],
    }


POWERTCP_NS3 = {
    "switch": {
        "buffer": "4MiB",
        "int_bytes": "rx",
        "pfc": True,  # model "sonic" (the schema's default PFC model)
        "ecn": _red_by_rate((25, 50, 100)),
    },
    # the PowerTCP study's scripts: no NIC window for DCQCN and TIMELY (`windowCheck=0`), the
    # maxBdp window for every other controller (docs/scenario.md, docs/models.md cross-check);
    # TIMELY's packets carry the simulator's 8-byte TS header (int-header.cc, IntHeader::TS)
    "host": {"nic": "rdma-study", "ts_header": "8B"},
}

HPCC_NS3 = {
    "switch": {
        # run.py: bfsz = 16 * bw / 50 (MB) = 32 at --bw 100; third.cc ConfigBufferSize(buffer_size * 1024 * 1024)
        "buffer": "32MiB",
        # switch-node.cc SwitchNode::SwitchNotifySend: PushHop(..., m_txBytes[ifIndex], ...)
        "int_bytes": "tx",
        # run.py config_template USE_DYNAMIC_PFC_THRESHOLD 1: switch-mmu.cc's dynamic threshold
        "pfc": {"model": "hpcc"},
        "ecn": _red_by_rate((25, 50, 100, 200, 400)),
    },
    # run.py: HAS_WIN 1 for hp and dctcp, 0 for dcqcn and timely (the rdma-study NIC's rule);
    # third.cc: IntHeader::TS (8 B) for CC_MODE 7 (TIMELY), NORMAL for 3 (HPCC), NONE otherwise
    "host": {"nic": "rdma-study", "ts_header": "8B"},
    # controller defaults, applied where the controller runs and its table does not set them
    "cc": {
        # run.py: MI_THRESH {mi} with --mi default 0, MIN_RATE 1000Mb/s, RATE_AI 10·bw/25 Mb/s
        # (the hpcc-artifact law's W_AI)
        "hpcc": {"law": "hpcc-artifact", "max_stage": 0, "min_rate_bps": 1e9},
        # run.py, cc == "dctcp": EWMA_GAIN g = 0.0625; DCTCP_RATE_AI 615 Mb/s "calculated from
        # RTT=13us and MTU=1KB, because DCTCP add 1 MTU per RTT" = one MSS per RTT
        "dctcp": {"g": 0.0625, "ai_mss_per_rtt": 1.0},
    },
}

PROFILES = {"powertcp-ns3": POWERTCP_NS3, "hpcc-ns3": HPCC_NS3}
ALIASES = {"artifact": "powertcp-ns3"}  # former name -> profile
_warned: set = set()


def _name(value, field: str) -> str:
    from .fields import choice

    name = choice(tuple(PROFILES) + tuple(ALIASES))(value, field)
    if name in ALIASES:
        new = ALIASES[name]
        if name not in _warned:
            _warned.add(name)
            print(f'dccsim: warning: {field} = "{name}" is now called "{new}"', file=sys.stderr)
        name = new
    return name


def _with_cc_defaults(table, defaults: dict):
    """A controller's table with the profile's defaults of its algorithm under its own keys."""
    if not isinstance(table, dict) or table.get("algorithm") not in defaults:
        return table
    mine = dict(defaults[table["algorithm"]])
    if "variant" in table:  # the old spelling of `law` (cc_params._renamed) is the file's own
        mine.pop("law", None)
    return {**mine, **table}


def apply(data: dict) -> dict:
    """The scenario's raw table with `[fabric] profile` applied: its [switch] and [host] values
    under the file's own, and its controller defaults under every controller table of an
    algorithm it names ([cc], experiment.variants[i].cc, flows[i].cc)."""
    from .fields import Table

    fabric = data.get("fabric")
    if fabric is None:
        return data
    t = Table(fabric, "fabric", ("profile",))
    profile = PROFILES[_name(t.req("profile", lambda v, f: v), "fabric.profile")]
    out = dict(data)
    for section in ("switch", "host"):
        given = data.get(section, {})
        if not isinstance(given, dict):
            raise ScenarioError(section, "must be a table")
        out[section] = {**profile[section], **given}
    defaults = profile.get("cc", {})
    if defaults:
        if "cc" in data:
            out["cc"] = _with_cc_defaults(data["cc"], defaults)
        base = data["cc"].get("algorithm") if isinstance(data.get("cc"), dict) else None
        x = data.get("experiment")
        if isinstance(x, dict) and isinstance(x.get("variants"), list):
            # a variant of [cc]'s algorithm inherits [cc]'s table, which has the defaults already
            x = dict(x)
            x["variants"] = [
                {**v, "cc": _with_cc_defaults(v["cc"], defaults)}
                if isinstance(v, dict) and isinstance(v.get("cc"), dict) and v["cc"].get("algorithm") != base
                else v
                for v in x["variants"]
            ]
            out["experiment"] = x
        if isinstance(data.get("flows"), list):
            out["flows"] = [
                {**f, "cc": _with_cc_defaults(f["cc"], defaults)} if isinstance(f, dict) and "cc" in f else f
                for f in data["flows"]
            ]
    return out
