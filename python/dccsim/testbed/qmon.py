"""Per-packet queue occupancy of the testbed's ports (issue 29 item 3).

bpf/qmon.bpf.c records, for every packet a port's root qdisc enqueues or dequeues, the port's
backlog and cumulative transmitted bytes right after it, with a CLOCK_MONOTONIC timestamp; the
helper bpf/build/dccsim-qmon stores the records in a file.  Between two records of a port its
queue does not change, so the records are the occupancy as a step function: percentiles here are
weighted by how long each occupancy held, the peak is the true peak, and the series handed to the
analyses are that step function read at the scenario's sampling instants (what the simulator's
sampler reads).  Coverage is the share of records the ring buffer had room for.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# struct dccsim_qmon_event (bpf/qmon.h)
EVENT = np.dtype(
    [
        ("ts_ns", "<u8"),
        ("tx_bytes", "<u8"),
        ("ifindex", "<u4"),
        ("backlog", "<u4"),
        ("qlen", "<u4"),
        ("packets", "<u4"),
        ("len", "<u4"),
        ("cpu", "<u4"),
    ]
)
PERCENTILES = (0.5, 0.9, 0.99)


@dataclass
class PortTrace:
    """One port's records in time order: instants (ns, CLOCK_MONOTONIC), queue bytes after each,
    cumulative transmitted bytes after each, packets each dequeued (0: an enqueue), bytes each
    enqueued or dequeued."""

    ts_ns: np.ndarray
    backlog: np.ndarray
    tx_bytes: np.ndarray
    packets: np.ndarray
    length: np.ndarray

    @staticmethod
    def empty() -> PortTrace:
        return PortTrace(*(np.zeros(0, np.int64),) * 5)


def coverage(trace: PortTrace, seen: int, lost: int, tx0: int) -> dict:
    """How much of the port's traffic the records describe, three ways: `ring` the share of the
    programs' records the ring buffer kept; `dequeue` the bytes of the dequeue records over the
    bytes the qdisc's own counter says it sent since tx0; `enqueue` the bytes of the enqueue
    records over those of the dequeue records (what left must have arrived: the queue starts empty
    and a run ends drained, up to a queue's worth).  `coverage` is the least of the three: the
    step function misses a rise of the queue for every packet whose enqueue has no record."""
    deq = trace.packets > 0
    sent = int(trace.tx_bytes[-1] - tx0) if trace.tx_bytes.size else 0
    deq_bytes = int(trace.length[deq].sum())
    enq_bytes = int(trace.length[~deq].sum())
    out = {
        "sent_bytes": sent,
        "ring": round(1 - lost / seen, 6) if seen else None,
        "dequeue": round(min(1.0, deq_bytes / sent), 6) if sent > 0 else None,
        "enqueue": round(min(1.0, enq_bytes / deq_bytes), 6) if deq_bytes > 0 else None,
    }
    known = [out[k] for k in ("ring", "dequeue", "enqueue") if out[k] is not None]
    out["coverage"] = min(known) if known else None
    return out


def load(path: Path) -> dict[int, PortTrace]:
    """ifindex -> its records sorted by time (a stable sort: one port's records are written under
    its qdisc lock, so equal timestamps keep the order the queue changed in)."""
    ev = np.fromfile(path, dtype=EVENT)
    out = {}
    for ifindex in np.unique(ev["ifindex"]):
        e = ev[ev["ifindex"] == ifindex]
        order = np.argsort(e["ts_ns"], kind="stable")
        e = e[order]
        out[int(ifindex)] = PortTrace(
            e["ts_ns"].astype(np.int64),
            e["backlog"].astype(np.int64),
            e["tx_bytes"].astype(np.int64),
            e["packets"].astype(np.int64),
            e["len"].astype(np.int64),
        )
    return out


def weighted_percentile(values: np.ndarray, weights: np.ndarray, p: float) -> float:
    """The smallest value v such that the values <= v carry at least a share p of the total weight
    (the inverse of the weighted CDF, no interpolation: a queue is the occupancy it held)."""
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    if values.size == 0:
        return 0.0
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    k = int(np.searchsorted(cum, p * cum[-1], side="left"))
    return float(values[order][min(k, values.size - 1)])


def occupancy(trace: PortTrace, start_ns: int, end_ns: int, initial: int = 0):
    """(instants_ns, values, durations_ns) of the step function over [start_ns, end_ns]: each
    occupancy, from when it held, and for how long.  Before the first record the queue is
    `initial`."""
    ts, q = trace.ts_ns, trace.backlog
    inside = (ts > start_ns) & (ts < end_ns)
    before = np.nonzero(ts <= start_ns)[0]
    q0 = int(q[before[-1]]) if before.size else initial
    times = np.concatenate(([start_ns], ts[inside], [end_ns])).astype(np.int64)
    values = np.concatenate(([q0], q[inside])).astype(np.int64)
    return times[:-1], values, np.diff(times)


def queue_stats(trace: PortTrace, start_ns: int, end_ns: int, seen: int, lost: int, tx0: int) -> dict:
    """Time-weighted mean and percentiles and the true peak over [start_ns, end_ns] (with when the
    peak was, ps after start_ns), and the records' coverage of the port (`coverage`)."""
    times, values, dur = occupancy(trace, start_ns, end_ns)
    total = float(dur.sum())
    k = int(np.argmax(values))
    out = {
        "records": int(trace.ts_ns.size),
        "program_runs": int(seen),
        "mean_bytes": round(float((values * dur).sum() / total), 1) if total > 0 else 0.0,
        "peak_bytes": int(values[k]),
        "peak_time_ps": int(times[k] - start_ns) * 1000,
    }
    for p in PERCENTILES:
        out[f"p{round(p * 100)}_bytes"] = int(weighted_percentile(values, dur, p))
    out.update(coverage(trace, seen, lost, tx0))
    return out


def at_instants(trace: PortTrace, instants_ns: np.ndarray, tx0: int) -> tuple[np.ndarray, np.ndarray]:
    """(queue bytes, transmitted bytes since tx0) of the port at each instant.  The queue is the last
    record's at or before it (empty before the first record).  The transmitted bytes are the
    qdisc's own counter, exact at every record and linear between two: a packet's bytes appear
    spread over the interval before its dequeue record (at most one packet early), and where
    records are missing (coverage < 1) the bytes sent meanwhile are spread over the gap instead of
    appearing all at its end as a burst above line rate."""
    if trace.ts_ns.size == 0:
        zeros = np.zeros(len(instants_ns), np.int64)
        return zeros, zeros.copy()
    k = np.searchsorted(trace.ts_ns, instants_ns, side="right") - 1
    q = np.where(k >= 0, trace.backlog[np.maximum(k, 0)], 0)
    tx = np.interp(instants_ns, trace.ts_ns, trace.tx_bytes, left=tx0) - tx0
    return q.astype(np.int64), np.round(tx).astype(np.int64)


class Monitor:
    """The running helper: `with Monitor(build_dir, ifindexes, path) as m:` attaches before the body
    and detaches after it; then `m.counts` is {ifindex: (seen, lost)} and `m.skipped` {program:
    runs the kernel skipped}."""

    def __init__(self, build_dir: Path, ifindexes: list[int], path: Path):
        self.cmd = [str(Path(build_dir) / "dccsim-qmon"), str(Path(build_dir) / "qmon.bpf.o"), str(path)]
        self.cmd += [str(i) for i in ifindexes]
        self.path = Path(path)
        self.counts: dict[int, tuple[int, int]] = {}
        self.skipped: dict[str, int] = {}
        self.proc: subprocess.Popen | None = None

    def __enter__(self):
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            self.proc.wait(timeout=5)
            raise RuntimeError(f"queue monitor did not start: {self.proc.stderr.read().strip() or line}")
        return self

    def __exit__(self, *exc):
        p = self.proc
        if p is None:
            return False
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        if p.returncode != 0:
            if exc[0] is None:
                raise RuntimeError(f"queue monitor failed: {err.strip()}")
            return False
        lines = out.strip().splitlines()[-2:]
        if len(lines) == 2:
            self.counts = {int(k): (int(v[0]), int(v[1])) for k, v in json.loads(lines[0]).items()}
            self.skipped = {k: int(v) for k, v in json.loads(lines[1]).items()}
        return False


def monotonic_ns() -> int:
    """The clock of the records (bpf_ktime_get_ns is CLOCK_MONOTONIC)."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)
