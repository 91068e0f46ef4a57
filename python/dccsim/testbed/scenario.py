"""The part of a scenario file (docs/scenario.md) that the testbed can reproduce, resolved to
integer SI units with dccsim.units."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..units import UnitError, parse_rate, parse_size, parse_time

EXPERIMENTS_DIR = Path(__file__).resolve().parent.parent / "experiments"
MAX_SUBFLOWS = 2  # the two-path topology: one subflow per path
# the testbed samples its queues even when the scenario asks for no time series (metrics.interval 0)
TESTBED_SAMPLE_INTERVAL_PS = 1_000_000_000


class ScenarioError(ValueError):
    """The scenario cannot be run on the testbed; the message names the field."""


@dataclass
class Flow:
    flow_id: int
    src: int
    dst: int
    size_bytes: int | None  # None: long-lived
    start_ps: int
    subflows: int = 1  # > 1: an MPTCP connection, subflow k on path k


@dataclass
class Scenario:
    name: str
    seed: int
    duration_ps: int
    hosts: int
    host_rate_bps: int
    topology_kind: str
    host_delay_ps: int
    buffer_bytes: int
    dt_alpha: float
    int_enabled: bool
    ecn: object  # scenario.model.Ecn (kind none, step or red)
    payload_bytes: int
    cc_params: dict
    flows: list[Flow]
    sample_interval_ps: int
    base_rtt_ps: int | None = None
    left: int = 0  # dumbbell: hosts on sw0 (the rest on sw1); two-path: senders (on tor0)
    bottleneck_rate_bps: int | None = None
    path_rates_bps: tuple[int, ...] = ()  # two-path: the rate of each path's switch ports
    source: str = ""
    text: str = ""
    raw: dict = field(default_factory=dict)


def locate(arg: str) -> Path:
    """A path to a TOML file, or the name of a scenario in dccsim/experiments (the rule of
    `dccsim run`: dccsim.targets; a directory is not a scenario file)."""
    from ..targets import is_scenario_file

    p = Path(arg)
    if is_scenario_file(arg):
        if p.is_dir():
            raise ScenarioError(f"scenario: {arg} is a directory, not a scenario file")
        if not p.is_file():
            raise ScenarioError(f"scenario: file not found: {arg}")
        return p
    cand = EXPERIMENTS_DIR / f"{arg}.toml"
    if cand.exists():
        return cand
    known = sorted(q.stem for q in EXPERIMENTS_DIR.glob("*.toml"))
    raise ScenarioError(f"scenario: unknown experiment '{arg}'; testbed experiments: {', '.join(known)}")


def _get(d: dict, key: str, default, where: str):
    v = d.get(key, default)
    if v is None:
        raise ScenarioError(f"{where}.{key}: missing")
    return v


def load(arg: str, duration: str | None = None, host_rate: str | None = None) -> Scenario:
    path = locate(arg)
    # The simulator's parser first: the same field checks (units, ranges, NaN, UTF-8, BOM) and the
    # same one-line errors; then the testbed's own, narrower limits below.
    # A testbed file may leave out [cc] (the algorithm comes from --cc): then it is checked as if
    # it named one, since the algorithm is not what the check is about.
    from ..scenario import from_dict, load as load_checked

    try:
        raw = tomllib.loads(path.read_bytes().decode("utf-8").removeprefix("\ufeff"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        raw = None
    if raw is not None and "cc" not in raw:
        checked = from_dict({**raw, "cc": {"algorithm": "dctcp"}}, default_name=path.stem)
    else:
        checked = load_checked(path)  # reports non-UTF-8, invalid TOML and every field error
    text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    raw = tomllib.loads(text)
    try:
        sc = _resolve(raw, checked, path, duration, host_rate)
        sc.text = text
        return sc
    except UnitError as e:
        raise ScenarioError(str(e)) from None


TWO_PATH = "two-path"


def _two_path(topo: dict) -> tuple[int, int, tuple[int, ...]]:
    """(senders, receivers, rate of each path) of a two-path topology (the simulator's fields:
    senders, receivers, host_rate, path0_rate, path1_rate, and delays the testbed ignores)."""
    counts = []
    for key in ("senders", "receivers"):
        n = topo.get(key, 1)  # the simulator's default
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ScenarioError(f"topology.{key}: an integer >= 1, got {n!r}")
        counts.append(n)
    rates = tuple(
        parse_rate(_get(topo, f"path{k}_rate", None, "topology"), f"topology.path{k}_rate") for k in (0, 1)
    )
    return counts[0], counts[1], rates


def _resolve(raw: dict, checked, path: Path, duration: str | None, host_rate: str | None = None) -> Scenario:
    """The testbed's view of a scenario: its topology and flows from the file, every [switch],
    [host] and [metrics] value from the simulator's validated scenario `checked` (the engine's
    declarations and defaults, scenario/schema.py), so the two sides never disagree on a default."""
    topo = raw.get("topology", {})
    kind = topo.get("kind", "star")
    left, bottleneck, path_rates = 0, None, ()
    if kind == TWO_PATH:
        left, right, path_rates = _two_path(topo)  # left: senders (on tor0), right: receivers
        hosts = left + right + 2
    elif kind == "star":
        hosts = int(_get(topo, "hosts", None, "topology"))
    elif kind == "dumbbell":
        left = int(_get(topo, "left", None, "topology"))
        right = int(_get(topo, "right", None, "topology"))
        if left < 1 or right < 1:
            raise ScenarioError("topology.left/right: each side needs at least one host")
        hosts = left + right
        bottleneck = parse_rate(_get(topo, "bottleneck_rate", None, "topology"), "topology.bottleneck_rate")
    else:
        raise ScenarioError(
            f"topology.kind: the testbed builds 'star' and 'dumbbell', got '{kind}'; allowed: star, dumbbell, {TWO_PATH}"
        )
    if not 2 <= hosts <= 200:
        raise ScenarioError(f"topology.hosts: the testbed supports 2..200 hosts, got {hosts}")
    host_rate = (
        parse_rate(host_rate, "--host-rate")
        if host_rate is not None
        else parse_rate(_get(topo, "host_rate", None, "topology"), "topology.host_rate")
    )
    host_delay = parse_time(topo.get("host_delay", "0s"), "topology.host_delay")

    ecn = checked.switch.ecn
    if ecn.kind not in ("none", "step", "red"):
        raise ScenarioError(f"switch.ecn.kind: the testbed marks none, step or red, got '{ecn.kind}'")
    payload = checked.host.payload_bytes
    if not 536 <= payload <= 1448:
        raise ScenarioError(f"host.payload: the testbed needs 536B..1448B (MTU 1500), got {payload}B")

    dur = duration if duration is not None else _get(raw, "duration", None, "")
    duration_ps = parse_time(dur, "duration")
    if duration_ps <= 0:
        raise ScenarioError("duration: must be > 0")

    flows: list[Flow] = []
    for i, f in enumerate(raw.get("flows", [])):
        srcs = f.get("src")
        if srcs is None:
            raise ScenarioError(f"flows[{i}].src: missing")
        srcs = srcs if isinstance(srcs, list) else [srcs]
        dst = int(_get(f, "dst", None, f"flows[{i}]"))
        size = parse_size(f["size"], f"flows[{i}].size") if "size" in f else None
        start = parse_time(f.get("start", "0s"), f"flows[{i}].start")
        subflows = f.get("subflows", 1)
        if not isinstance(subflows, int) or isinstance(subflows, bool) or subflows < 1:
            raise ScenarioError(f"flows[{i}].subflows: an integer >= 1, got {subflows!r}")
        if subflows > 1 and kind != TWO_PATH:
            raise ScenarioError(
                f"flows[{i}].subflows: the testbed runs multipath (MPTCP) flows on topology.kind = '{TWO_PATH}' only"
            )
        if subflows > 1:
            tors = {
                h: ("tor0" if h < left else "tor1" if h < hosts - 2 else None)
                for h in [dst] + [int(x) for x in srcs]
            }
            if None in tors.values() or any(tors[int(x)] == tors[dst] for x in srcs):
                raise ScenarioError(
                    f"flows[{i}].subflows: a multipath flow joins a tor0 host (h0..h{left - 1}) and a tor1 host "
                    f"(h{left}..h{hosts - 3}); only they reach both paths"
                )
        if subflows > MAX_SUBFLOWS:
            raise ScenarioError(
                f"flows[{i}].subflows: the testbed's two-path topology has {MAX_SUBFLOWS} paths, so 1..{MAX_SUBFLOWS} subflows, got {subflows}"
            )
        for s in srcs:
            s = int(s)
            for what, h in (("src", s), ("dst", dst)):
                if not 0 <= h < hosts:
                    raise ScenarioError(f"flows[{i}].{what}: host {h} out of range 0..{hosts - 1}")
            if s == dst:
                raise ScenarioError(f"flows[{i}]: src and dst are both host {s}")
            flows.append(Flow(len(flows), s, dst, size, start, subflows))
    if raw.get("workload"):
        raise ScenarioError("workload: generated workloads are not supported by the testbed; list [[flows]]")
    if not flows:
        raise ScenarioError("flows: the scenario has no flows")

    interval = checked.metrics.interval_ps or TESTBED_SAMPLE_INTERVAL_PS
    base_rtt = raw.get("base_rtt", "auto")
    base_rtt_ps = None if base_rtt == "auto" else parse_time(base_rtt, "base_rtt")

    cc = dict(raw.get("cc", {}))
    cc.pop("algorithm", None)
    return Scenario(
        name=raw.get("name", path.stem),
        seed=int(raw.get("seed", 1)),
        duration_ps=duration_ps,
        hosts=hosts,
        host_rate_bps=host_rate,
        topology_kind=kind,
        left=left,
        bottleneck_rate_bps=bottleneck,
        path_rates_bps=path_rates,
        host_delay_ps=host_delay,
        buffer_bytes=checked.switch.buffer_bytes,
        dt_alpha=checked.switch.dt_alpha,
        int_enabled=checked.switch.int_enabled,
        ecn=ecn,
        payload_bytes=payload,
        cc_params=cc,
        flows=flows,
        sample_interval_ps=interval,
        base_rtt_ps=base_rtt_ps,
        source=str(path.name),
        raw=raw,
    )
