"""Generator of the bad-input corpus (issue 13): scenario files and CLI invocations that must each
be refused with exit status 2 and ONE stderr line `dccsim: error: <dotted.field>: <what is allowed>`.

Each case is a small valid scenario (BASE) with one mutation, or a file/CLI-level fault. The test
tests/python/test_bad_input_corpus.py runs every case; `python tests/bad_inputs.py DIR` writes the
corpus to DIR (one .toml per case plus cases.json with the command lines) for inspection.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import tomli_w

NAN, INF = float("nan"), float("inf")

BASE: dict = {
    "name": "corpus",
    "seed": 3,
    "duration": "200us",
    "topology": {"kind": "star", "hosts": 4, "host_rate": "10Gbps", "host_delay": "1us"},
    "switch": {"buffer": "1MiB", "dt_alpha": 0.125, "ecn": {"kind": "step", "k": "20KB"}},
    "host": {"payload": "1000B", "header": "48B"},
    "cc": {"algorithm": "powertcp", "gamma": 0.9},
    "flows": [{"src": [1, 2], "dst": 0, "size": "10KB", "start": "10us"}],
    "metrics": {"interval": "10us", "ports": ["sw0->h0"], "flows": True},
    "experiment": {"variants": [{"name": "P", "cc": {"algorithm": "powertcp"}}]},
}


@dataclass
class Case:
    id: str
    field: str  # the dotted field the one error line must name
    data: Optional[dict] = None  # scenario (written as TOML) ...
    raw: Optional[bytes] = None  # ... or raw file bytes
    args: list = field(default_factory=list)  # extra CLI arguments after `run FILE`
    target: Optional[str] = None  # CLI target instead of the scenario file
    special: Optional[str] = None  # scenario.toml as "fifo", "dev-zero" (a symlink) or "sparse" (huge)


def _set(d: dict, path: str, value: Any) -> dict:
    d = copy.deepcopy(d)
    keys = path.replace("]", "").replace("[", ".").split(".")
    cur: Any = d
    for k in keys[:-1]:
        cur = cur[int(k)] if isinstance(cur, list) else cur.setdefault(k, {})
    last = keys[-1]
    if value is _DELETE:
        del cur[last]
    elif isinstance(cur, list):
        cur[int(last)] = value
    else:
        cur[last] = value
    return d


_DELETE = object()

TIMES = ["1 parsec", "-1us", "1US", "1Ms", "0.5ps", "9000000s", NAN, INF, True, "abc", 10**30, [1]]
RATES = ["25GBps", "25gbps", "0Gbps", "-1Gbps", "1.5bps", "1e20Gbps", NAN, INF, "fast", True]
SIZES = ["1000.5B", "10kb", "1Mb", "-1B", NAN, INF, "x", "2000TiB", False]
COUNTS = [0, -1, 10**8, 1.5, "4", True, 2**70]
NAMES = ["", "../../x", "/abs/x", "a/b", "a\\b", ".", "..", 5, "a\nb", " "]


def cases() -> list[Case]:
    out: list[Case] = []

    def mut(path: str, values, field_: Optional[str] = None, base: dict = BASE):
        for v in values:
            out.append(Case(f"{path}#{len(out)}", field_ or path, data=_set(base, path, v)))

    for p in ("duration", "topology.host_delay", "flows[0].start", "metrics.interval", "host.rto"):
        mut(p, TIMES)
    mut("base_rtt", ["-1us", "1 parsec", NAN, "0s", "9000000s"])
    mut("topology.host_rate", RATES)
    for p in ("switch.buffer", "host.payload", "flows[0].size", "switch.ecn.k"):
        mut(p, SIZES)
    mut("host.header", ["4294967295B", "-1B", "1.5B", NAN])
    mut("host.int_header", ["5000B", "1kb"])
    mut("host.ts_header", ["5000B", "-8B", NAN])
    mut("host.ack", ["0B", "1GB"])
    mut("topology.hosts", COUNTS)
    mut("seed", [-1, 2**64, 1.5, "1", NAN, True])
    mut("name", NAMES)
    mut("cc.gamma", [-5, 0, 1.5, NAN, INF, "0.9", True])
    mut("cc.gama", [0.5])
    mut("cc.variant", ["PAPER", "Artifact", 1])
    mut("cc.additive_increase_bps", [-1, 1e20, "150Mbps"])
    mut("cc.algorithm", ["PowerTCP", "POWERTCP", "vegas", "", 5])
    mut("experiment.variants[0].cc.gama", [0.5])
    mut("experiment.variants[0].cc.gamma", [-1, NAN])
    mut("experiment.variants[0].cc.algorithm", ["HPCC", "nope"])
    mut("experiment.variants[0].name", ["", 3])
    mut("switch.dt_alpha", [0, -1, NAN, INF, 1e6, "0.1"])
    mut("switch.ecn.kind", ["bogus", 1])
    mut("switch.int", ["yes", 1])
    mut("switch.int_bytes", ["both"])
    mut("switch.colour", ["red"])
    mut("switch.pfc", ["yes", 1])
    pfc = _set(BASE, "switch.pfc", {"reserve": "4KiB"})
    mut("switch.pfc.alpha_shift", [-1, 17, 2.5], base=pfc)
    mut("switch.pfc.model", ["broadcom", 1], base=pfc)
    mut("switch.pfc.alpha", [0, -1, NAN, 100], base=pfc)
    mut("switch.pfc.frame", ["0B", "2000B"], base=pfc)
    mut("switch.pfc.headroom", ["lots", -5], base=pfc)
    mut("switch.pfc.watchdog", ["soon"], base=pfc)
    mut("switch.pfc.xoff", ["1KB"], base=pfc)
    mut("host.nic", ["roce", 1])
    mut("fabric.profile", ["ns3", 3], base=_set(BASE, "fabric", {"profile": "artifact"}))
    rbr = _set(
        BASE,
        "switch.ecn",
        {"kind": "red_by_rate", "rules": [{"rate": "25Gbps", "kmin": "1KB", "kmax": "2KB", "pmax": 0.2}]},
    )
    mut("switch.ecn.rules", [[], "all"], base=rbr)
    mut("switch.ecn.rules[0].pmax", [1.5, NAN], base=rbr)
    mut("switch.ecn.rules[0].rate", ["fast"], base=rbr)
    mut("flows[0].src", [99, -1, "h1", []])
    mut("flows[0].dst", [1, 99, "h0"])
    mut("flows[0].start", ["200us", "1s"])
    mut("flows[0].size", ["0B"])
    mut("flows[0].speed", [1])
    mut("metrics.ports", [["bogus"], ["sw0->h99"], "sw0->h0", [5]])
    mut("metrics.flows", ["yes"])
    mut("metrics.start", ["300us"])
    mut("metrics.interval", ["1ps", "999ps"])
    rdcn = _set(
        _set(BASE, "topology", {"kind": "rdcn", "tors": 3, "servers_per_tor": 2}),
        "metrics.ports",
        ["tor0->ocs0"],
    )
    mut("topology.policy", ["circuit", 1], base=rdcn)
    mut("topology.day", ["0us", "-1us", NAN], base=rdcn)
    mut("topology.voq", ["0B", "1kb"], base=rdcn)
    mut("topology.tors", [1, 0], base=rdcn)
    mut("topology.matchings", ["rr", [1, 2]], base=rdcn)
    mut(
        "topology.matchings",
        [[[1, 2]], [[1, 0, 0]], [[1, 2, "x"]], [[1, 2, 3]]],
        "topology.matchings[0]",
        base=rdcn,
    )
    mut("topology.prebuffer_voq", ["1KB"], base=_set(rdcn, "topology.prebuffer", "600us"))
    mut("switch.pfc", [True], base=rdcn)
    mut("cc.jump_up", [0.5, 100, "2"], base=_set(rdcn, "cc", {"algorithm": "retcp"}))
    mut("topology.kind", ["ring", 3, "STAR"])
    mut("topology.colour", ["blue"])
    mut("colour", ["blue"])
    mut("tcp", [{"a": 1}])
    for missing in ("duration", "topology", "cc"):
        mut(missing, [_DELETE])
    red = _set(BASE, "switch.ecn", {"kind": "red", "kmin": "10KB", "kmax": "20KB", "pmax": 0.5})
    mut("switch.ecn.pmax", [2, -0.1, NAN], base=red)
    mut("switch.ecn.kmax", ["5KB"], base=red)
    mut("switch.ecn.steps", [-1, 10**6], base=red)
    tbtcp = _set(BASE, "cc", {"algorithm": "tbtcp"})
    mut("cc.rai_alpha", [1e9, 0, -0.1], base=tbtcp)
    homa = _set(BASE, "cc", {"algorithm": "homa"})
    mut("cc.overcommit", [0, 1000, 1.5], base=homa)
    mut("cc.unsched_cutoffs_bytes", [[100, 10], [-1], "10KB"], base=homa)
    # generated workloads (issue 8): a small fat-tree with racks, Poisson arrivals, incast
    ft = {
        "kind": "fattree",
        "pods": 2,
        "tors_per_pod": 2,
        "aggs_per_pod": 2,
        "cores": 2,
        "servers_per_tor": 4,
        "host_rate": "25Gbps",
        "host_delay": "1us",
        "tor_agg_rate": "25Gbps",
        "tor_agg_delay": "1us",
        "agg_core_rate": "25Gbps",
        "agg_core_delay": "1us",
    }
    wl = {"kind": "poisson", "cdf": "websearch", "load": 0.5, "start": "0s", "stop": "100us"}
    pois = _set(
        _set(_set(_set(BASE, "topology", ft), "workload", wl), "metrics.ports", ["tor0->h0"]),
        "flows",
        _DELETE,
    )
    mut("workload.kind", ["gravity", 3], base=pois)
    mut("workload.load", [0, -0.5, 1.5, NAN, "60%"], base=pois)
    mut("workload.cdf", ["websurch", 5], base=pois)
    mut("workload.cdf", [_DELETE], base=pois)
    mut("workload.cdf_file", ["websearch.cdf"], "workload.cdf", base=pois)
    mut("workload.stop", ["0s", "1s", _DELETE], base=pois)
    mut("workload.warmup", ["100us", "1ms"], base=pois)
    mut("workload.destinations", ["random"], base=pois)
    mut("workload.sending_racks", [0, 5, 1.5], base=pois)
    mut("workload.stop_when_done", ["yes"], base=pois)
    mut("workload.kind", ["poisson"], base=_set(BASE, "workload", wl))  # a star has no racks
    # fan_in within the 4-host racks (the default 10 would not fit them, and is refused)
    inc = _set(pois, "workload.incast", {"rate": 100, "size": "100KB", "fan_in": 4})
    mut("workload.incast.rate", [0, -1, NAN, "4/s"], base=inc)
    mut("workload.incast.rate", [_DELETE], base=inc)
    mut("workload.incast.fan_in", [0, 5, 2.5], base=inc)
    mut("workload.incast.size", ["0B", "2B"], base=inc)
    mut("workload.incast.stop", ["0s", "1s"], base=inc)
    mut("workload.incast.speed", [1], base=inc)
    only_incast = _set(pois, "workload", {"kind": "incast", "stop": "100us"})
    out.append(Case("workload-incast-missing", "workload.incast", data=only_incast))
    for kind in ("dev-zero", "fifo", "sparse"):  # files a scenario names: bounded reads as well
        cdf_special = _set(_set(pois, "workload.cdf", _DELETE), "workload.cdf_file", "special.cdf")
        out.append(
            Case(f"workload-cdf-{kind}", "workload.cdf_file", data=cdf_special, special=f"{kind}:special.cdf")
        )
    rep_special = _set(pois, "workload", {"kind": "replay", "file": "special.parquet"})
    for kind in ("dev-zero", "fifo"):
        out.append(
            Case(
                f"workload-file-{kind}", "workload.file", data=rep_special, special=f"{kind}:special.parquet"
            )
        )
    rep = _set(pois, "workload", {"kind": "replay", "file": "no-such-run/flows_input.parquet"})
    mut("workload.file", ["no-such-run/flows_input.parquet", 5, ""], base=rep)
    # a payload larger than the buffer, a one-byte buffer
    mut("switch.buffer", ["1B", "500B"])
    # resource limits: a sampled series that cannot fit, a topology that cannot fit
    many_rows = _set(
        _set(BASE, "duration", "1s"), "metrics", {"interval": "1ns", "ports": ["*"], "flows": True}
    )
    out.append(Case("memory-series", "metrics.interval", data=many_rows))
    big = _set(_set(BASE, "topology.hosts", 1_000_000), "workload", {"kind": "permutation"})
    out.append(Case("memory-topology", "topology", data=big, args=["--memory-limit", "1GiB"]))
    # file-level faults
    text = tomli_w.dumps(BASE).encode()
    out.append(Case("file-not-utf8", "scenario", raw=b'name = "\xff\xfe"\n' + text))
    out.append(Case("file-latin1", "scenario", raw=text.replace(b"corpus", "cörpus".encode("latin-1"))))
    out.append(Case("file-invalid-toml", "scenario", raw=b"duration = \n"))
    out.append(Case("file-bom-invalid", "scenario", raw=b"\xef\xbb\xbf[[[\n"))
    out.append(Case("file-empty", "topology", raw=b""))
    out.append(Case("file-nul", "scenario", raw=b"\x00\x00"))
    # issue 27: bounded reads, a depth limit, a repeated key named, a long value not echoed whole
    out.append(Case("file-dev-zero", "scenario", special="dev-zero"))
    out.append(Case("file-fifo", "scenario", special="fifo"))
    out.append(Case("file-huge", "scenario", special="sparse"))
    out.append(Case("file-deep-arrays", "scenario", raw=b"a = " + b"[" * 100_000))
    out.append(Case("file-deep-tables", "scenario", raw=b"a = " + b"{b = " * 2_000 + b"1" + b"}" * 2_000))
    dup = text.replace(b"hosts = 4\n", b"hosts = 4\nhosts = 5\n")
    out.append(Case("file-duplicate-key", "topology.hosts", raw=dup))
    dup_flow = text + b"\n[[flows]]\nsrc = 3\ndst = 0\nsrc = 2\n"
    out.append(Case("file-duplicate-key-in-array", "flows[1].src", raw=dup_flow))
    out.append(Case("file-duplicate-table", "topology", raw=text + b"\n[topology]\n"))
    out.append(Case("value-1MB", "duration", data=_set(BASE, "duration", "x" * 1_000_000)))
    out.append(Case("value-1MB-digits", "duration", data=_set(BASE, "duration", "1" * 1_000_000 + "us")))
    out.append(Case("value-1MB-list", "duration", data=_set(BASE, "duration", [1] * 300_000)))
    # the key itself is cut to 100 characters in the message (in the middle)
    out.append(Case("key-100k", "cc." + "k" * 46 + "…", data=_set(BASE, "cc." + "k" * 100_000, 1)))
    zero = _set(_set(pois, "workload.load", 1e-9), "workload.stop", "1us")
    out.append(Case("workload-no-flow", "workload.load", data=zero))
    zero_rate = _set(_set(pois, "workload.load", _DELETE), "workload.arrival_rate", 1e-3)
    out.append(Case("workload-no-flow-rate", "workload.arrival_rate", data=zero_rate))
    # CLI invocations
    out.append(Case("cli-seed-negative", "seed", data=BASE, args=["--seed", "-1"]))
    out.append(Case("cli-seed-2^64", "seed", data=BASE, args=["--seed", str(2**64)]))
    out.append(Case("cli-seed-text", "--seed", data=BASE, args=["--seed", "abc"]))
    out.append(Case("cli-seed-missing-value", "--seed", data=BASE, args=["--seed"]))
    out.append(Case("cli-jobs-text", "--jobs", data=BASE, args=["--jobs", "many"]))
    out.append(Case("cli-unknown-flag", "--bogus", data=BASE, args=["--bogus"]))
    out.append(Case("cli-out-empty", "out", data=BASE, args=["--out", ""]))
    out.append(Case("cli-out-blank", "out", data=BASE, args=["--out", " "]))
    out.append(Case("cli-variant-typo", "variant", data=BASE, args=["--variant", "typo"]))
    out.append(Case("cli-memory-limit-text", "--memory-limit", data=BASE, args=["--memory-limit", "lots"]))
    out.append(Case("cli-memory-limit-zero", "--memory-limit", data=BASE, args=["--memory-limit", "0B"]))
    out.append(Case("cli-out-is-file", "out", data=BASE, args=["--out", "{tmp}/scenario.toml"]))
    out.append(Case("cli-out-under-file", "out", data=BASE, args=["--out", "{tmp}/scenario.toml/x"]))
    out.append(Case("cli-no-such-experiment", "experiment", target="no-such-experiment"))
    out.append(Case("cli-no-such-file", "scenario", target="{tmp}/missing.toml"))
    return out


def write(case: Case, directory: Path) -> list[str]:
    """Write the case's scenario into `directory`; returns the argv after `dccsim`."""
    f = directory / "scenario.toml"
    kind, _, name = (case.special or "").partition(":")
    special = directory / (name or "scenario.toml")  # the scenario, or a file it names
    if kind == "dev-zero":
        special.symlink_to("/dev/zero")  # endless: must not be read whole
    elif kind == "fifo":
        os.mkfifo(special)  # no writer: must not hang
    elif kind == "sparse":
        with open(special, "wb") as fh:
            fh.truncate(65 * 2**20)  # over the 64 MiB limit, without using the disk
    if kind and special == f:
        pass  # the scenario itself is the special file
    elif case.raw is not None:
        f.write_bytes(case.raw)
    elif case.data is not None:
        f.write_text(tomli_w.dumps(case.data), encoding="utf-8")
    target = (case.target or str(f)).replace("{tmp}", str(directory))
    args = [a.replace("{tmp}", str(directory)) for a in case.args]
    if not any(a == "--out" for a in args):
        args += ["--out", str(directory / "out")]
    return ["run", target, "--quiet", *args]


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "bad-input-corpus")
    index = {}
    for c in cases():
        d = root / c.id.replace("/", "_").replace("[", "_").replace("]", "").replace("#", "-")
        d.mkdir(parents=True, exist_ok=True)
        index[c.id] = {"field": c.field, "argv": ["dccsim"] + write(c, d)}
    (root / "cases.json").write_text(json.dumps(index, indent=1))
    print(f"{len(index)} cases in {root}")
