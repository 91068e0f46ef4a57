"""One testbed run of a scenario with one algorithm: build, load, measure tau, configure, send,
sample, tear down."""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..units import parse_size
from . import bpfctl, cpuload, hops, laws, qmon, topology
from .netlink import QdiscStats
from .scenario import Scenario
from .topology import Port, host_addr, ns_name, path_addr
from .traffic import Receiver, Sender, tcp_info

WIRE_OVERHEAD = 14 + 20 + 20 + 12  # Ethernet + IPv4 + TCP + timestamps option, bytes per packet
MIN_INTERVAL_PS = 1_000_000_000  # 1 ms: the flow sampler (tcp_info) is a Python thread
MIN_PORT_INTERVAL_PS = 1_000_000  # 1 us: the port series are read off per-packet records (qmon)
POWER_FAMILY = ("powertcp", "theta-powertcp")
PROBE_LOAD = 0.5
HOP_ROUNDS = 100  # per-hop measurement (measure_tau): rounds per path, 2 ms apart
SO_MAX_PACING_RATE = 47


@dataclass
class RunResult:
    algorithm: str
    tau_ns: int
    params: dict
    ports: list[Port]
    flows: list[dict]
    port_series: dict[str, list] = field(default_factory=dict)
    flow_series: dict[str, list] = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    bpf_stats: dict = field(default_factory=dict)


def measure_tau(
    pairs: list[tuple[int, int]], mss: int | None, rate_bps: int, shape=None, ports: list[Port] = ()
) -> tuple[int, list[dict]]:
    """Base RTT in ns for the control laws when the scenario leaves it to "auto", and the per-hop
    round trips of the probed paths (hops.py) when `shape` (the topology.Layout or TwoPath built,
    with its `ports`) is given: (tau_ns, hops).

    Per host pair, a cubic probe paced at PROBE_LOAD of rate_bps (the slowest link) runs for 0.1 s of warm-up and
    then 0.2 s of sampling tcpi_rtt every 2 ms; the pair's value is the 10th percentile (rejecting
    moments when a CPU-starved shaper built a queue), and tau is the median over pairs (a star's
    pairs share one path).  The testbed adds no propagation delay and forwards on the CPU, so the
    RTT of a busy but unqueued path (stack, softirq and tbf timer latency, ~100 us on a 2-core
    machine) is several times the idle minimum (~20 us), which would cap every PowerTCP window at
    a fraction of the line rate (docs/testbed.md).

    The per-hop round trips are measured after each pair's probe, on idle links: HOP_ROUNDS rounds
    (hops.Tracer) per path of the pair, its path-0 addresses and, on two-path between tor hosts,
    its path-1 addresses too. Measured under the probe instead, an echo waited behind the probe's
    packets at a 100 Mbps hop (53 vs 30–36 µs on the unloaded path 1), a queue the simulator
    builds itself and must not be given as link delay."""
    per_pair = []
    hop_paths: list[dict] = []
    for dst in sorted({d for _, d in pairs}):
        rx = Receiver(ns_name(f"h{dst}"), host_addr(dst), None)
        try:
            for src in sorted({s for s, d in pairs if d == dst}):
                tx = Sender(_Probe(src, dst), ns_name(f"h{src}"), host_addr(dst), "cubic", mss)
                tracers = _tracers(shape, ports, src, dst) if shape is not None else []
                try:
                    tx.sock.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, int(rate_bps * PROBE_LOAD / 8))
                    stop = threading.Event()
                    tx.start(time.perf_counter(), stop)
                    time.sleep(0.1)
                    samples = []
                    for _ in range(100):
                        samples.append(tcp_info(tx.sock)["rtt_us"])
                        time.sleep(0.002)
                    stop.set()
                    tx.thread.join(timeout=2)
                    per_pair.append(sorted(samples)[len(samples) // 10] * 1000)
                    for _ in range(HOP_ROUNDS):
                        for _, tr in tracers:
                            tr.round()
                        time.sleep(0.002)
                    hop_paths += [_hop_record(info, tr) for info, tr in tracers]
                finally:
                    for _, tr in tracers:
                        tr.close()
                    tx.close()
        finally:
            rx.close()
    per_pair.sort()
    return max(per_pair[len(per_pair) // 2], 1000), hop_paths


def _hop_record(info: dict, tracer: hops.Tracer) -> dict:
    """What one path's tracer measured, with each link's one-way latency beyond serialization."""
    res = tracer.result()
    res["latency_ns"] = [
        None if r is None else hops.one_way_latency_ns(r, rate)
        for r, rate in zip(res["link_rtt_ns"], info["rate_bps"])
    ]
    return {**info, **res}


def _tracers(shape, ports: list[Port], src: int, dst: int) -> list[tuple[dict, hops.Tracer]]:
    """One hops.Tracer per path from host src to host dst, with what names it: the pair, the path
    family (the address family of two-path, 0 elsewhere), the path's links and their rates."""
    rate = {p.name: p.rate_bps for p in ports}
    families = [0]
    if isinstance(shape, topology.TwoPath) and max(src, dst) < shape.senders + shape.receivers:
        families.append(1)
    out = []
    for fam in families:
        nodes, targets = topology.path_targets(shape, src, dst, fam)
        links = [f"{a}->{b}" for a, b in zip(nodes, nodes[1:])]
        info = {"src": src, "dst": dst, "family": fam, "links": links, "rate_bps": [rate[x] for x in links]}
        ident = (src << 8) ^ (dst << 1) ^ fam
        out.append((info, hops.Tracer(ns_name(f"h{src}"), path_addr(fam, src), targets, ident)))
    return out


@dataclass
class _Probe:
    src: int
    dst: int
    size_bytes: int | None = None
    start_ps: int = 0
    flow_id: int = -1


def _ecn_config(ecn, alg: str, port_bdp: int, wire: int) -> dict:
    """The marking of one switch port: the scenario's, or when it has none the algorithm's own."""
    if ecn.kind == "step":
        return {"ecn_kind": "step", "k_bytes": ecn.k_bytes}
    if ecn.kind == "red":
        return {
            "ecn_kind": "red",
            "kmin_bytes": ecn.kmin_bytes,
            "kmax_bytes": ecn.kmax_bytes,
            "pmax": ecn.pmax,
        }
    if alg in ("dctcp", "linux-dctcp"):  # DCTCP's guideline K > C*RTT/7, at least 20 packets
        return {"ecn_kind": "step", "k_bytes": max(port_bdp // 7, 20 * wire)}
    if alg == "tbtcp":  # TBTCP's queue-cancelling curve p = q / (BDP + q), capped at 0.5
        return {"ecn_kind": "tbtcp", "bdp_bytes": max(port_bdp, wire), "pmax": 0.5}
    return {"ecn_kind": "none"}


def run(
    sc: Scenario,
    alg: str,
    build_dir,
    tau_override_ns: int | None = None,
    log=lambda s: None,
    plugin=None,
) -> RunResult:
    """Requires a clean machine state; the caller cleans up (topology.cleanup_all) in all cases.
    `plugin`: the source of a plugin (docs/plugins.md) run as `alg` instead of a built-in."""
    name_cc = bpfctl.register(alg, build_dir, plugin)
    progs = bpfctl.load_tc(build_dir)
    rate = sc.host_rate_bps
    switch_limit = int(sc.buffer_bytes * sc.dt_alpha / (1 + sc.dt_alpha))
    two_path = sc.topology_kind == "two-path"
    if two_path:
        senders_mp = {f.src for f in sc.flows if f.subflows > 1}
        shape = topology.TwoPath(sc.left, sc.hosts - sc.left - 2, rate, sc.path_rates_bps)
        ports = topology.build_two_path(shape, switch_limit, 4 << 20, progs, senders_mp)
    else:
        shape = (
            topology.dumbbell(sc.left, sc.hosts - sc.left, rate, sc.bottleneck_rate_bps)
            if sc.topology_kind == "dumbbell"
            else topology.star(sc.hosts, rate)
        )
        ports = topology.build(shape, switch_limit, 4 << 20, progs)
    sw_ports = topology.switch_ports(ports)
    mss = sc.payload_bytes + 12 if sc.payload_bytes < 1448 else None
    # until tau is known, switches only stamp (the probe runs with cubic)
    for p in sw_ports:
        bpfctl.set_port_cfg(p.ifindex, rate_bps=p.rate_bps, int_on=sc.int_enabled, ecn_kind="none")

    hop_paths: list[dict] = []  # measured with tau (measure_tau)
    if tau_override_ns:
        tau_ns = tau_override_ns
    elif sc.base_rtt_ps:
        tau_ns = sc.base_rtt_ps // 1000
    else:
        slowest = min(p.rate_bps for p in ports)  # pace the probe below every link on its path
        tau_ns, hop_paths = measure_tau([(f.src, f.dst) for f in sc.flows], mss, slowest, shape, ports)
    log(f"tau = {tau_ns / 1000:.1f} us")

    host_bdp = rate * tau_ns // 8_000_000_000
    p = sc.cc_params
    expected = int(p.get("expected_flows", 10))
    beta = parse_size(p["beta"], "cc.beta") if "beta" in p else max(1, host_bdp // expected)
    params = dict(
        tau_ns=tau_ns,
        host_bdp=host_bdp,
        beta=beta,
        gamma=float(p.get("gamma", 0.9)),
        power_floor=float(p.get("power_floor", 0.01)),
        tb_alpha=float(p.get("alpha", 0.1)),
        tb_scale=int(p.get("scale", 1)),
        dctcp_g_shift=int(round(-math.log2(float(p.get("g", 1 / 16))))),
        min_cwnd_pkts=int(p.get("min_cwnd_pkts", 2)),
        pace=bool(p.get("pace", True)),
    )
    bpfctl.set_cc_cfg(**params)
    if plugin is not None or alg in bpfctl.ALGORITHMS:
        from ..plugins import raw_params

        if plugin is not None:
            raw = raw_params(plugin, {k: v for k, v in p.items() if k != "plugin"})
        else:  # the algorithm's law plugin (bpf/laws/), with the testbed's [cc] keys mapped onto it
            law_params = laws.plugin_params(alg, p, host_bdp, tau_ns)
            raw = raw_params(bpfctl.law_source(alg), law_params)
            params["law"] = laws.law(alg, p)
        bpfctl.set_plugin_params(raw, rate, tau_ns)
        params["plugin_params"] = raw

    wire = (mss - 12 if mss else 1448) + WIRE_OVERHEAD
    ecn_by_port = {}
    for port in sw_ports:
        ecn_cfg = _ecn_config(sc.ecn, alg, port.rate_bps * tau_ns // 8_000_000_000, wire)
        bpfctl.set_port_cfg(port.ifindex, rate_bps=port.rate_bps, int_on=sc.int_enabled, **ecn_cfg)
        ecn_by_port[port.name] = ecn_cfg
    distinct = {json.dumps(v, sort_keys=True) for v in ecn_by_port.values()}
    params.update(
        ecn=next(iter(ecn_by_port.values())) if len(distinct) == 1 else ecn_by_port,
        switch_port_limit_bytes=switch_limit,
        mss=mss or 1448,
        kernel_cc=name_cc,
        hops=hop_paths,
    )

    multipath_dst = {f.dst for f in sc.flows if f.subflows > 1}
    receivers = {
        d: Receiver(ns_name(f"h{d}"), host_addr(d), name_cc, mptcp=d in multipath_dst)
        for d in sorted({f.dst for f in sc.flows})
    }
    senders: list[Sender] = []
    stats = {ns: QdiscStats(ns) for ns in sorted({pt.ns for pt in ports})}
    stop = threading.Event()
    try:
        for f in sc.flows:
            path_of = topology.path_of_addr if two_path else None
            senders.append(Sender(f, ns_name(f"h{f.src}"), host_addr(f.dst), name_cc, mss, path_of))
        if any(s.mptcp for s in senders):
            params["subflow_cc"] = _check_subflow_cc(senders, name_cc)
        res = _drive(sc, alg, ports, senders, stats, stop, log, tau_ns, params["pace"], build_dir)
    finally:
        stop.set()
        for s in senders:
            if s.thread:
                s.thread.join(timeout=2)
        for s in senders:
            s.close()
        for r in receivers.values():
            r.close()
        for q in stats.values():
            q.close()
    res.tau_ns = tau_ns
    res.params = params
    return res


def _window_and_pacing(paced: bool, info: dict, tau_ns: int, self_paced: bool = False) -> tuple[int, float]:
    """(cwnd_bytes, rate_bps) of flow_series.  A paced PowerTCP-family controller sets its pacing
    rate to window/tau, so its window is pacing_rate * tau (finer than snd_cwnd, which is that
    window rounded up to whole packets); a controller that paces on its own (the kernel's BBR,
    `self_paced`) has window snd_cwnd and its pacing rate; otherwise the window is snd_cwnd and
    there is no pacing (rate_bps = inf, "line rate", as in docs/results.md)."""
    rate_known = info["pacing_rate"] not in (0, 2**64 - 1)
    if paced and rate_known:
        return info["pacing_rate"] * tau_ns // 1_000_000_000, float(info["pacing_rate"] * 8)
    if self_paced and rate_known:
        return info["snd_cwnd"] * info["snd_mss"], float(info["pacing_rate"] * 8)
    return info["snd_cwnd"] * info["snd_mss"], float("inf")


def _check_subflow_cc(senders: list[Sender], name_cc: str) -> dict[str, list[str]]:
    """The congestion control of every subflow of every MPTCP connection as `ss -tin` shows it in
    the sender's namespace ({connection: [cc of subflow 0, 1, ...]}); a subflow that does not run
    `name_cc` fails the run (the kernel is expected to set the MPTCP socket's TCP_CONGESTION on
    every subflow)."""
    from .nsutil import run as ns_run
    from .traffic import congestion_by_local_endpoint, mptcp_subflow_endpoints

    found = {}
    for s in senders:
        if not s.mptcp:
            continue
        ns = ns_name(f"h{s.flow.src}")
        table = congestion_by_local_endpoint(ns_run(["ss", "-tinH"], ns=ns))
        by_path: list[str] = ["missing"] * s.subflows
        for addr, port in mptcp_subflow_endpoints(s.sock):
            k = topology.path_of_addr(addr)
            if k is not None and k < s.subflows:
                by_path[k] = table.get((addr, port), "missing")
        if any(c != name_cc for c in by_path):
            raise RuntimeError(
                f"flow {s.flow.flow_id}: MPTCP subflows run {by_path}, expected {name_cc} on each (ss -tin)"
            )
        found[str(s.flow.flow_id)] = by_path
    return found


def _ideal_rate(sc: Scenario, f) -> int:
    """The rate of a flow's ideal FCT: the host rate; on two paths, a TCP flow's path 0 (its
    address's path) or an MPTCP connection's paths together, never above its NICs."""
    if sc.topology_kind != "two-path":
        return sc.host_rate_bps
    paths = sc.path_rates_bps[: f.subflows]
    return min(sum(paths), sc.host_rate_bps * len(paths))


def flow_record(sc: Scenario, f, k: int, fid: int, info: dict, i0: dict, acked: int, conn: int) -> dict:
    """The flow record of subflow k of the scenario's flow `f` (a TCP flow: k = 0) from its tcp_info
    at the end (`info`) and at the start (`i0`): the columns of testbed.results.flow_columns() (the
    engine's flow record) with end_ps = -1 (the caller sets it), plus the testbed's own `_segs`,
    `_error` and `_limits`. `acked`: the subflow's bytes acknowledged; `conn`: the connection's."""
    base_rtt_ps = info.get("min_rtt_us", 0) * 1_000_000
    if f.size_bytes is not None:
        mss = info.get("snd_mss") or 1448
        wire = f.size_bytes + math.ceil(f.size_bytes / mss) * WIRE_OVERHEAD
        ideal = base_rtt_ps + wire * 8 * 10**12 // _ideal_rate(sc, f)
    else:
        ideal = -1
    return {
        "flow_id": fid,
        "src": f.src,
        "dst": f.dst,
        "size_bytes": f.size_bytes if f.size_bytes is not None else -1,
        "start_ps": f.start_ps,
        "end_ps": -1,
        "bytes_acked": acked,
        "base_rtt_ps": base_rtt_ps,
        "ideal_fct_ps": ideal,
        "retransmits": info.get("total_retrans", 0) - i0.get("total_retrans", 0),
        "timeouts": info.get("total_rto", 0) - i0.get("total_rto", 0),
        "connection": f.flow_id,
        "subflow": k,
        "delivered_bytes": conn,
        "_segs": info.get("data_segs_out", 0) - i0.get("data_segs_out", 0),
        "_error": None,
        "_limits": {
            key: (info.get(f"{key}_us", 0) - i0.get(f"{key}_us", 0)) / 1000
            for key in ("busy", "rwnd_limited", "sndbuf_limited")
        },
    }


def _drive(sc, alg, ports, senders, stats, stop, log, tau_ns, pace, build_dir) -> RunResult:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dccsim-qmon-") as tmp:
        rec = Path(tmp) / "queue.bin"
        with qmon.Monitor(build_dir, [p.ifindex for p in ports], rec) as mon:
            cpu0 = cpuload.cpu_times()
            res, t0_ns, t_end, tx0, sampled = _drive_flows(
                sc, alg, ports, senders, stats, stop, log, tau_ns, pace
            )
            cpu = cpuload.shares(cpu0, cpuload.cpu_times())
        traces = qmon.load(rec)
    _port_results(res, sc, ports, traces, mon.counts, t0_ns, t_end, tx0)
    res.summary["queue_monitor_skipped_runs"] = mon.skipped
    util = {
        p.name: res.summary["queue"][p.name]["sent_bytes"] * 8 / (p.rate_bps * t_end)
        for p in topology.switch_ports(ports)
    }
    res.summary["cpu"] = {**cpu, **cpuload.verdict(cpu, util, res.summary["packets_dropped"])}
    if res.summary["cpu"]["cpu_bound"]:
        log(res.summary["cpu"]["reason"])
    interval_s = max(sc.sample_interval_ps, MIN_INTERVAL_PS) / 1e12
    gaps = np.diff(np.asarray([0.0, *sampled, t_end]))
    res.summary["flow_sampler"] = {
        "interval_ps": int(interval_s * 1e12),
        "samples": len(sampled),
        "coverage": round(min(1.0, len(sampled) / max(1, int(t_end / interval_s))), 4),
        "max_gap_ps": int(gaps.max() * 1e12) if gaps.size else 0,
    }
    return res


def _port_results(res, sc, ports, traces, counts, t0_ns, t_end, tx0) -> None:
    """The port series (every port's exact queue and transmitted bytes, read at the scenario's
    sampling instants as the simulator's sampler reads them) and, in the summary, each port's
    time-weighted queue statistics, true peak and the monitor's coverage (qmon)."""
    interval_ps = max(sc.sample_interval_ps, MIN_PORT_INTERVAL_PS)
    instants_ps = np.arange(0, int(t_end * 1e12) + 1, interval_ps, dtype=np.int64)
    end_ns = t0_ns + int(t_end * 1e9)
    empty = qmon.PortTrace.empty()
    cols = {}
    stats = {}
    for p in ports:
        tr = traces.get(p.ifindex, empty)
        q, tx = qmon.at_instants(tr, t0_ns + instants_ps // 1000, tx0[p.index])
        cols[p.index] = (q, tx)
        seen, lost = counts.get(p.ifindex, (0, 0))
        stats[p.name] = qmon.queue_stats(tr, t0_ns, end_ns, seen, lost, tx0[p.index])
    n, k = len(instants_ps), len(ports)
    res.port_series = {  # time-major, ports in order within an instant (as the engine writes it)
        "time_ps": np.repeat(instants_ps, k).tolist(),
        "port": np.tile([p.index for p in ports], n).tolist(),
        "queue_bytes": np.stack([cols[p.index][0] for p in ports], axis=1).reshape(-1).tolist(),
        "tx_bytes": np.stack([cols[p.index][1] for p in ports], axis=1).reshape(-1).tolist(),
    }
    res.summary["queue"] = stats
    # per port the largest queue it held (per packet, not per sample; compare reads it)
    res.summary["port_peak_queue_bytes"] = {p.name: stats[p.name]["peak_bytes"] for p in ports}


def _drive_flows(sc, alg, ports, senders, stats, stop, log, tau_ns, pace):
    """Run the flows, sampling their tcp_info every interval: (RunResult without port results,
    CLOCK_MONOTONIC ns of the start, run length s, each port's transmitted bytes at the start,
    the instants s the flow sampler achieved)."""
    paced = pace and alg in POWER_FAMILY
    interval_s = max(sc.sample_interval_ps, MIN_INTERVAL_PS) / 1e12
    duration_s = sc.duration_ps / 1e12
    fs = {
        k: []
        for k in (
            "time_ps",
            "flow_id",
            "cwnd_bytes",
            "rate_bps",
            "bytes_acked",
            "delivery_rate_bps",
            "srtt_ps",
        )
    }
    # one record per subflow (a TCP flow is one subflow): (sender, subflow k, flow_id)
    rows = []
    for s in senders:
        for k in range(s.subflows):
            rows.append((s, k, len(rows)))
    fid_of = {(id(s), k): fid for s, k, fid in rows}
    by_ns: dict[str, list[Port]] = {}
    for p in ports:
        by_ns.setdefault(p.ns, []).append(p)
    tx0 = {}
    for ns, q in stats.items():
        st = q.stats()
        for p in by_ns[ns]:
            tx0[p.index] = st.get(p.ifindex, (0, 0, 0))[1]
    drops0 = sum(v[2] for q in stats.values() for v in q.stats().values())
    last_acked = {fid: 0 for _, _, fid in rows}
    last_time = {fid: None for _, _, fid in rows}
    infos0 = {s.flow.flow_id: s.infos() for s in senders}

    sampled = []
    t0_ns = qmon.monotonic_ns()
    t0 = time.perf_counter()
    for s in senders:
        s.start(t0, stop)
    log(f"running {len(senders)} flows for {duration_s:g} s")
    k = 0
    while True:
        now = time.perf_counter() - t0
        if now >= duration_s:
            break
        if all(s.flow.size_bytes is not None and s.end_s is not None for s in senders):
            break
        t_ps = int(now * 1e12)
        sampled.append(now)
        for s in senders:
            if not s.started:
                continue
            acked0 = s.subflow_acked0()
            for sub, info in enumerate(s.infos()):
                if info is None:  # a subflow that is gone (never while the run is healthy)
                    continue
                fid = fid_of[(id(s), sub)]
                acked = max(0, info["bytes_acked"] - acked0[sub])
                fs["time_ps"].append(t_ps)
                fs["flow_id"].append(fid)
                cwnd_bytes, pacing_bps = _window_and_pacing(paced, info, tau_ns, alg == "bbr")
                fs["cwnd_bytes"].append(cwnd_bytes)
                prev_t = last_time[fid]
                dt = max(now - prev_t, 1e-9) if prev_t is not None else None
                fs["rate_bps"].append(pacing_bps)
                fs["delivery_rate_bps"].append((acked - last_acked[fid]) * 8 / dt if dt else 0.0)
                fs["bytes_acked"].append(acked)
                fs["srtt_ps"].append(info["rtt_us"] * 1_000_000)
                last_acked[fid] = acked
                last_time[fid] = now
        k += 1
        nxt = t0 + k * interval_s
        delay = nxt - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        else:
            k = int((time.perf_counter() - t0) / interval_s)
    t_end = time.perf_counter() - t0
    stop.set()
    drops = sum(v[2] for q in stats.values() for v in q.stats().values()) - drops0

    flows = []
    conn_acked = {}
    for s in senders:
        f = s.flow
        conn = s.acked()  # the connection's data acknowledged (for MPTCP: data-level, once)
        if f.size_bytes is not None:
            conn = min(conn, f.size_bytes)
        conn_acked[f.flow_id] = conn
        infos = s.infos()
        for k, info in enumerate(infos):
            acked = (
                conn if not s.mptcp else max(0, (info or {}).get("bytes_acked", 0) - s.subflow_acked0()[k])
            )
            rec = flow_record(
                sc, f, k, fid_of[(id(s), k)], info or {}, infos0[f.flow_id][k] or {}, acked, conn
            )
            rec["end_ps"] = int(s.end_s * 1e12) if s.end_s is not None else -1
            rec["_error"] = s.error if k == 0 else None
            flows.append(rec)
    bstats = bpfctl.port_stats()
    res = RunResult(alg, 0, {}, ports, flows, {}, fs)
    res.bpf_stats = {p.name: bstats.get(p.ifindex, {}) for p in ports if p.ifindex in bstats}
    res.summary = {
        "sim_time_ps": int(t_end * 1e12),
        "bytes_delivered": sum(conn_acked.values()),
        "data_packets_sent": sum(f["_segs"] for f in flows),
        "packets_dropped": drops,
        "flows_completed": sum(1 for s in senders if s.end_s is not None),
        "retransmits": sum(f["retransmits"] for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "ecn_marked": sum(int(v.get("marked", 0)) for v in res.bpf_stats.values()),
        "int_stamped": sum(int(v.get("stamped", 0)) for v in res.bpf_stats.values()),
        # per flow record (subflow): ms with data in flight, and ms limited by the receive window or
        # the send buffer (tcpi_busy_time, tcpi_rwnd_limited, tcpi_sndbuf_limited); the rest of
        # the run the sender had nothing to send (an MPTCP subflow: the connection gave it no data)
        "flow_send_ms": {str(f["flow_id"]): f["_limits"] for f in flows},
    }
    errs = [f"flow {f['flow_id']}: {f['_error']}" for f in flows if f["_error"]]
    if errs:
        res.summary["errors"] = errs
    return res, t0_ns, t_end, tx0, sampled
