"""The run's flow list: the scenario's [[flows]], then the [workload]'s generated flows.

Generated kinds (docs/scenario.md has the formulas):

* ``poisson``: every host of the sending racks starts flows as a Poisson process of rate
  λ = load · C_up / (n_rack · 8 · E[size]) in [start, stop), sizes drawn from the CDF;
  destinations uniform over the hosts of the other racks (or the artifact's choice).
* ``incast`` (alone, or the ``incast`` table of a poisson workload): every host of the sending
  racks issues requests as a Poisson process; each request makes ``fan_in`` distinct random hosts
  of one other rack (uniform) send ⌊size / fan_in⌋ bytes to the requester at the request time.
* ``rotating_incast`` (a table of a poisson workload, Poseidon §5.4): the first ``senders`` hosts
  after the sending racks each send one ``size`` message to one host of ``target_rack`` per round;
  round k starts at start + k·senders·size·8/rate (aggregate load ``rate``) and targets the rack's
  host k mod (rack size). A sender's messages form one connection (``flow_list``).
* ``replay``: the flow list of an earlier run (its ``flows_input.parquet``).

Vectorised with numpy; each generator draws from its own stream, ``default_rng([seed, k])``, so
adding an incast table does not change the Poisson flows of the same seed.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import cdf, replay
from .flowlist import FlowList
from .permutation import permutation_pairs
from .racks import Racks, racks

POISSON_STREAM, INCAST_STREAM, JOBS_STREAM = 1, 2, 3


def _i64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def _concat(parts: list) -> FlowList:
    parts = [p for p in parts if p is not None]
    if not parts:
        e = _i64([])
        return FlowList(e, e, e, e, [], e, [])
    offsets = np.cumsum([0] + [len(p) for p in parts]).tolist()
    after = [tuple(x + o for x in a) for p, o in zip(parts, offsets) for a in (p.after or [()] * len(p))]
    return FlowList(
        np.concatenate([p.src for p in parts]),
        np.concatenate([p.dst for p in parts]),
        np.concatenate([p.size for p in parts]),
        np.concatenate([p.start for p in parts]),
        [s for p in parts for s in p.source],
        np.concatenate([p.request for p in parts]),
        [c for p in parts for c in (p.cc or [None] * len(p))],
        subflows=[n for p in parts for n in p.subflow_counts()],
        after=after if any(after) else [],
        closed_loop=[c for p in parts for c in (p.closed_loop or [None] * len(p))],
    )


def sending_hosts(rk: Racks, n_racks: Optional[int]) -> np.ndarray:
    n = rk.count if n_racks is None else n_racks
    return np.concatenate([np.arange(rk.first[r], rk.first[r] + rk.size[r]) for r in range(n)])


def rack_loads(w, rk: Racks) -> np.ndarray:
    """Load (fraction of the uplink) of every rack: `load` for each sending rack, or the list's
    value of each (racks that do not send get 0)."""
    if isinstance(w.load, tuple):
        out = np.zeros(rk.count)
        out[: len(w.load)] = w.load
        return out
    return np.full(rk.count, float(w.load))


def poisson_rate(w, rk: Racks) -> np.ndarray:
    """λ per rack (flows per second per host): load · C_up / (n_rack · 8 · E[size]), or the
    workload's `arrival_rate` for every sending rack."""
    if w.arrival_rate is not None:
        return np.full(rk.count, float(w.arrival_rate))
    return rack_loads(w, rk) * rk.uplink_bps / (rk.size * 8.0 * cdf.mean(w.cdf_points))


def poisson(w, rk: Racks, seed: int) -> FlowList:
    rng = np.random.default_rng([seed, POISSON_STREAM])
    hosts = sending_hosts(rk, w.sending_racks)
    own = rk.of_hosts(hosts)
    span = w.stop_ps - w.start_ps
    mean = poisson_rate(w, rk)[own] * span / 1e12
    counts = rng.poisson(mean)
    src = np.repeat(hosts, counts)
    n = len(src)
    from ..scenario.front_sections import NO_POISSON_FLOW as rule  # declared beside [workload]'s keys

    if not rule.holds({}, n):
        from ..errors import ScenarioError

        key = "arrival_rate" if w.arrival_rate is not None else rule.key
        raise ScenarioError(
            f"workload.{key}",
            f"{rule.message} (seed {seed}: none drawn, ≈ {float(np.sum(mean)):.3g} expected)",
        )
    # given their number, the arrival times of a Poisson process are independent and uniform
    start = w.start_ps + np.minimum(np.floor(rng.random(n) * span).astype(np.int64), span - 1)
    size = cdf.sample(w.cdf_points, rng.random(n))
    r = rk.of_hosts(src)
    if w.destinations == "artifact":
        # the artifact: uniform in [first host of the own rack, end of the last sending rack),
        # any host but the sender itself (its loop only rejects the sender)
        last = (rk.count if w.sending_racks is None else w.sending_racks) - 1
        end = rk.first[last] + rk.size[last]
        k = rng.integers(rk.first[r], end - 1)
        dst = k + (k >= src)
    elif w.destinations == "sending-racks":  # uniform over the hosts of the other sending racks
        last = (rk.count if w.sending_racks is None else w.sending_racks) - 1
        total = int(rk.first[last] + rk.size[last])
        k = rng.integers(0, total - rk.size[r])
        dst = k + (k >= rk.first[r]) * rk.size[r]
    else:  # uniform over the hosts of the other racks
        total = int(rk.first[-1] + rk.size[-1])
        k = rng.integers(0, total - rk.size[r])
        dst = k + (k >= rk.first[r]) * rk.size[r]
    order = np.argsort(start, kind="stable")
    return FlowList(
        _i64(src[order]),
        _i64(dst[order]),
        _i64(size[order]),
        _i64(start[order]),
        ["poisson"] * n,
        np.full(n, -1, dtype=np.int64),
    )


def incast(inc, rk: Racks, sending_racks: Optional[int], seed: int) -> FlowList:
    rng = np.random.default_rng([seed, INCAST_STREAM])
    hosts = sending_hosts(rk, sending_racks)
    rate = inc.rate if inc.rate is not None else inc.global_rate / len(hosts)
    span = inc.stop_ps - inc.start_ps
    req_host = np.repeat(hosts, rng.poisson(np.full(len(hosts), rate * span / 1e12)))
    m = len(req_host)
    req_time = inc.start_ps + np.minimum(np.floor(rng.random(m) * span).astype(np.int64), span - 1)
    order = np.argsort(req_time, kind="stable")
    req_host, req_time = req_host[order], req_time[order]
    own = rk.of_hosts(req_host)
    k = rng.integers(0, rk.count - 1, m)
    target = k + (k >= own)
    servers = np.empty((m, inc.fan_in), dtype=np.int64)
    keys = rng.random((m, int(rk.size.max())))
    for r in range(rk.count):  # fan_in distinct hosts of the target rack, uniformly
        rows = target == r
        if rows.any():
            pick = np.argsort(keys[rows, : rk.size[r]], axis=1)[:, : inc.fan_in]
            servers[rows] = rk.first[r] + pick
    n = m * inc.fan_in
    return FlowList(
        _i64(servers.reshape(-1)),
        _i64(np.repeat(req_host, inc.fan_in)),
        np.full(n, inc.size_bytes // inc.fan_in, dtype=np.int64),
        _i64(np.repeat(req_time, inc.fan_in)),
        ["incast"] * n,
        np.repeat(np.arange(m, dtype=np.int64), inc.fan_in),
    )


def rotating_incast(ri, rk: Racks, sending_racks: int) -> FlowList:
    """Rounds of `senders` simultaneous messages to one host of the target rack (no randomness)."""
    first = int(rk.first[sending_racks])
    senders = np.arange(first, first + ri.senders, dtype=np.int64)
    period = ri.senders * ri.size_bytes * 8 / ri.rate_bps * 1e12  # ps between rounds
    rounds = int(np.ceil((ri.stop_ps - ri.start_ps) / period))
    t = ri.start_ps + np.floor(np.arange(rounds) * period).astype(np.int64)
    t = t[t < ri.stop_ps]
    m = len(t)
    target = rk.first[ri.target_rack] + np.arange(m) % rk.size[ri.target_rack]
    n = m * ri.senders
    return FlowList(
        np.tile(senders, m),
        _i64(np.repeat(target, ri.senders)),
        np.full(n, ri.size_bytes, dtype=np.int64),
        _i64(np.repeat(t, ri.senders)),
        ["rotating-incast"] * n,
        np.full(n, -1, dtype=np.int64),
    )


def explicit(flows) -> FlowList:
    rows = [(s, f) for f in flows for s in (f.src if isinstance(f.src, tuple) else (f.src,))]
    # [[flows]] index -> its flow ids (one per listed source)
    ids, k = [], 0
    for f in flows:
        n = len(f.src) if isinstance(f.src, tuple) else 1
        ids.append(tuple(range(k, k + n)))
        k += n
    after = [tuple(x for p in f.after for x in ids[p]) for _, f in rows]
    return FlowList(
        _i64([s for s, _ in rows]),
        _i64([f.dst for _, f in rows]),
        _i64([-1 if f.size_bytes is None else f.size_bytes for _, f in rows]),
        _i64([f.start_ps for _, f in rows]),
        ["flows"] * len(rows),
        np.full(len(rows), -1, dtype=np.int64),
        [f.cc.to_engine() if f.cc else None for _, f in rows],
        subflows=[f.subflows for _, f in rows],
        after=after if any(after) else [],
        closed_loop=[_closed_loop(f.closed_loop) for _, f in rows],
    )


def _closed_loop(c) -> Optional[dict]:
    if c is None:
        return None
    out = {"shape": c.shape, "mean_bytes": c.mean_bytes, "destination": c.destination}
    return out | ({"max_bytes": c.max_bytes} if c.max_bytes is not None else {})


def jobs_per_slot(w, host_rate_bps: float) -> int:
    """Jobs of one client slot of a `jobs` workload: one per interval (open loop), or as many as
    the client's NIC could receive in [start, stop) plus one (closed loop)."""
    j = w.jobs
    span = w.stop_ps - w.start_ps
    if j.loop == "open":
        return -(-span // j.interval_ps)
    return int(np.ceil(span / 1e12 * host_rate_bps / 8 / (j.fan_in * j.response_bytes))) + 1


def _host_rate(scn) -> float:
    return float(scn.topology.values.get("host_rate", 400e9))


def jobs(w, n_hosts: int, host_rate_bps: float, seed: int) -> FlowList:
    """Partition-aggregate jobs (AMP §5.3): per client slot, job after job, each a request from a
    random client to `fan_in` distinct random servers (``request`` bytes; none when 0), then each
    server's response after its request. Closed loop: a job's requests start after every response
    of the slot's previous job (engine ``after``); open loop: job k at start + k·interval. The
    `request` column holds the job id. A closed-loop slot gets as many jobs as its client's NIC
    could receive in [start, stop) (a job needs ≥ fan_in·response·8/rate there), plus one."""
    j = w.jobs
    rng = np.random.default_rng([seed, JOBS_STREAM])
    n = jobs_per_slot(w, host_rate_bps)
    src, dst, size, start, job, after = [], [], [], [], [], []
    for slot in range(j.clients):
        prev: tuple = ()
        for k in range(n):
            client = int(rng.integers(n_hosts))
            servers = rng.choice(n_hosts - 1, size=j.fan_in, replace=False)
            servers = [int(x) + (x >= client) for x in servers]
            t0 = w.start_ps + k * j.interval_ps if j.loop == "open" else w.start_ps
            gate = prev if j.loop == "closed" else ()
            jid = slot * n + k
            reqs = []
            if j.request_bytes:
                for sv in servers:
                    reqs.append(len(src))
                    src.append(client), dst.append(sv), size.append(j.request_bytes)
                    start.append(t0), job.append(jid), after.append(gate)
            resp = []
            for i, sv in enumerate(servers):
                resp.append(len(src))
                src.append(sv), dst.append(client), size.append(j.response_bytes)
                start.append(t0), job.append(jid), after.append((reqs[i],) if reqs else gate)
            prev = tuple(resp)
    m = len(src)
    return FlowList(_i64(src), _i64(dst), _i64(size), _i64(start), ["jobs"] * m, _i64(job), after=after)


def generated(scn) -> Optional[FlowList]:
    """The [workload]'s flows (None without a workload)."""
    w = scn.workload
    if w is None:
        return None
    if w.kind == "permutation":
        pairs = permutation_pairs(scn.host_count, scn.seed)
        n = len(pairs)
        return FlowList(
            _i64([s for s, _ in pairs]),
            _i64([d for _, d in pairs]),
            np.full(n, -1 if w.size_bytes is None else w.size_bytes, dtype=np.int64),
            np.full(n, w.start_ps, dtype=np.int64),
            ["permutation"] * n,
            np.full(n, -1, dtype=np.int64),
        )
    if w.kind == "replay":
        return replay.read(w.file, "workload.file")
    if w.kind == "jobs":
        return jobs(w, scn.host_count, _host_rate(scn), scn.seed)
    rk = racks(scn.topology.kind, scn.topology.values)
    parts = [poisson(w, rk, scn.seed) if w.kind == "poisson" else None]
    if w.incast is not None:
        parts.append(incast(w.incast, rk, w.sending_racks, scn.seed))
    if w.rotating_incast is not None:
        parts.append(rotating_incast(w.rotating_incast, rk, w.sending_racks))
    out = _concat(parts)
    order = np.argsort(out.start, kind="stable")
    return FlowList(
        out.src[order],
        out.dst[order],
        out.size[order],
        out.start[order],
        [out.source[i] for i in order.tolist()],
        out.request[order],
    )


def flow_list(scn) -> FlowList:
    """Every flow of the run in flow-id order: [[flows]] (one per listed source), then the workload's.
    Connections (``follows``): a rotating incast's messages of one sender form one connection
    (the paper's "100 flows ... change their target"); with ``connections = true`` the other
    generated messages of one host pair do too."""
    gen = generated(scn)
    if gen is not None and scn.workload.subflows > 1:
        gen.subflows = [scn.workload.subflows] * len(gen)
    if gen is not None and scn.workload.cc is not None:
        gen.cc = [scn.workload.cc.to_engine()] * len(gen)
    if gen is not None and scn.workload.multipath_from_bytes is not None:
        # AMP Fig. 14: flows of at least this size are "long" (multipath, the scenario's or the
        # variant's controller), the others single-path with the workload's cc
        long = (gen.size < 0) | (gen.size >= scn.workload.multipath_from_bytes)
        gen.subflows = [scn.workload.subflows if x else 1 for x in long.tolist()]
        gen.cc = [None if x else c for x, c in zip(long.tolist(), gen.cc or [None] * len(gen))]
    out = _concat([explicit(scn.flows), gen])
    w = scn.workload
    if w is None or not (w.connections or w.rotating_incast is not None):
        return out
    source = np.array(out.source, dtype=object)
    rotating = source == "rotating-incast"
    follows = connection_chain(out.src, out.src, rotating)
    if w.connections:
        pairs = connection_chain(out.src, out.dst, (source != "flows") & ~rotating)
        follows = np.where(pairs >= 0, pairs, follows)
    out.follows = follows
    return out


def connection_chain(src: np.ndarray, dst: np.ndarray, member: np.ndarray) -> np.ndarray:
    """For every member flow, the previous member flow (in flow-id order, which is arrival order)
    with the same (src, dst), −1 for the first of its key and for non-members."""
    out = np.full(len(src), -1, dtype=np.int64)
    last: dict = {}
    for i in np.flatnonzero(member).tolist():
        k = (int(src[i]), int(dst[i]))
        out[i] = last.get(k, -1)
        last[k] = i
    return out


def expected_count(scn) -> int:
    """About how many flows the workload generates (for the memory estimate; no generation)."""
    w = scn.workload
    if w is None:
        return 0
    if w.kind == "permutation":
        return scn.host_count
    if w.kind == "jobs":
        j = w.jobs
        return j.clients * jobs_per_slot(w, _host_rate(scn)) * j.fan_in * (2 if j.request_bytes else 1)
    if w.kind == "replay":
        return replay.row_count(w.file, "workload.file")
    rk = racks(scn.topology.kind, scn.topology.values)
    hosts = sending_hosts(rk, w.sending_racks)
    n = 0.0
    if w.kind == "poisson":
        n += float(np.sum(poisson_rate(w, rk)[rk.of_hosts(hosts)])) * (w.stop_ps - w.start_ps) / 1e12
    if w.incast is not None:
        i = w.incast
        per_host = i.rate if i.rate is not None else i.global_rate / len(hosts)
        n += per_host * len(hosts) * (i.stop_ps - i.start_ps) / 1e12 * i.fan_in
    if w.rotating_incast is not None:
        ri = w.rotating_incast
        n += ri.rate_bps * (ri.stop_ps - ri.start_ps) / 1e12 / (8 * ri.size_bytes) + ri.senders
    return int(n) + 1
