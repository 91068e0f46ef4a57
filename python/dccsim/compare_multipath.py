"""The multipath part of `dccsim compare`: per-path throughput share and queue of multipath
connections, side by side, with a verdict (docs/testbed.md, "MPTCP on two paths").

Used when a run's flows table has the `connection` and `subflow` columns and some connection has
two or more subflows. Path k is the port `tor0->path<k>` of the `two-path` topology (the first
hop at the path's rate, where the path's queue builds), or the k-th name given with `--paths`.

Per side:
  - per path: the bytes the path's port transmitted in the window (wire bytes, the per-interface
    counters), its share of all paths' bytes and its rate; the queue p50/p99 over the whole run;
  - per subflow of each multipath connection: its share of the connection's acknowledged bytes.
The window is the one `compare` uses for long flows (from the last long-flow start to the end).

Verdict (both must hold):
  - share: |share_A(k) − share_B(k)| ≤ tol_share(k) for every path. Both sides should fill every
    path (uncoupled subflows, each alone on its path), so share(k) = C_k / ΣC. A side that runs
    path k below its rate by a fraction δ shifts the share by δ·s(1−s)/(1−δ·s) (s = share(k)).
    δ = SHARE_DEFICIT = 0.17, the largest shortfall of a CPU-limited testbed run below the line
    rate recorded in docs/testbed.md ("Measured runs": 0.777 against 0.941 Gbps).
  - queue (only with step marking at K, as DCTCP gets): |p50_A(k) − p50_B(k)| ≤ (A + N) packets
    with A = ½·sqrt(2N(C·RTT + K)) (DCTCP paper, Alizadeh et al. 2010, §3.3: the queue swings
    between K + N − A and K + N, N flows, sizes in packets) and N = 1 subflow per path; C·RTT
    uses the larger τ of the two sides (the larger swing). Without a step K the queue is shown
    without a verdict.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow.parquet as pq

from .analysis.common import percentile

LINEAR = "linear"
SHARE_DEFICIT = 0.17
WIRE_PACKET = 1514  # bytes of a full-size data packet on the testbed's wire (1448 + 66)


def _col(table, name):
    return table.column(name).to_pylist()


def path_ports(port_names: list[str], given: list[str] | None) -> list[str]:
    if given:
        return given
    found = sorted(
        (n for n in port_names if n.startswith("tor0->path")), key=lambda n: n[len("tor0->path") :]
    )
    return found


def analyse(run_dir: Path, paths: list[str] | None = None) -> dict | None:
    """The multipath metrics of one run, or None when it has no multipath connection."""
    flows = pq.read_table(run_dir / "flows.parquet")
    if "connection" not in flows.column_names or "subflow" not in flows.column_names:
        return None
    conn, sub, fid, size, start = (
        _col(flows, c) for c in ("connection", "subflow", "flow_id", "size_bytes", "start_ps")
    )
    members: dict[int, dict[int, int]] = {}
    for c, k, f in zip(conn, sub, fid):
        members.setdefault(c, {})[k] = f
    multi = {c: m for c, m in members.items() if len(m) > 1}
    if not multi:
        return None
    ports = pq.read_table(run_dir / "ports.parquet")
    names = dict(zip(_col(ports, "port"), _col(ports, "name")))
    rates = dict(zip(_col(ports, "name"), _col(ports, "rate_bps")))
    wanted = path_ports(list(names.values()), paths)
    missing = [p for p in wanted if p not in rates]
    if missing:
        raise ValueError(f"{run_dir}: no port '{missing[0]}'; ports: {', '.join(sorted(rates))}")
    ps = pq.read_table(run_dir / "port_series.parquet")
    fs = pq.read_table(run_dir / "flow_series.parquet")
    long_starts = [s for s, z in zip(start, size) if z < 0]
    t_from = max(long_starts) if long_starts else 0

    by_port: dict[str, list[tuple[int, int, int]]] = {p: [] for p in wanted}
    for t, p, q, tx in zip(*(_col(ps, c) for c in ("time_ps", "port", "queue_bytes", "tx_bytes"))):
        n = names.get(p)
        if n in by_port:
            by_port[n].append((t, q, tx))
    path_rows = []
    for k, name in enumerate(wanted):
        series = by_port[name]
        win = [x for x in series if x[0] >= t_from]
        sent = win[-1][2] - win[0][2] if len(win) > 1 else 0
        dt = (win[-1][0] - win[0][0]) / 1e12 if len(win) > 1 else 0.0
        qs = [q for _, q, _ in series]
        path_rows.append(
            {
                "path": k,
                "port": name,
                "rate_bps": rates[name],
                "bytes": sent,
                "throughput_bps": sent * 8 / dt if dt > 0 else 0.0,
                "queue_p50": percentile(qs, 0.5, LINEAR),
                "queue_p99": percentile(qs, 0.99, LINEAR),
            }
        )
    total = sum(r["bytes"] for r in path_rows)
    for r in path_rows:
        r["share"] = r["bytes"] / total if total else 0.0

    acked: dict[int, list[tuple[int, int]]] = {}
    for t, f, a in zip(*(_col(fs, c) for c in ("time_ps", "flow_id", "bytes_acked"))):
        if t >= t_from:
            acked.setdefault(f, []).append((t, a))
    connections = {}
    for c, m in sorted(multi.items()):
        got = {
            k: (acked[f][-1][1] - acked[f][0][1]) if len(acked.get(f, [])) > 1 else 0 for k, f in m.items()
        }
        tot = sum(got.values())
        connections[str(c)] = {str(k): (got[k] / tot if tot else 0.0) for k in sorted(got)}
    return {"window_from_ps": t_from, "paths": path_rows, "subflow_share": connections}


def step_k_and_tau(run_dir: Path, variant: str) -> tuple[int | None, int | None]:
    """(K in bytes of a step marker, τ in ps) that the run used, from what it recorded: a testbed
    run's meta.json, a `--compare` simulator run's matched.json, else the scenario's own step."""
    d = run_dir.parent
    k = tau = None
    meta = d / "meta.json"
    if meta.exists():
        tb = ((json.loads(meta.read_text()).get("testbed") or {}).get("runs") or {}).get(variant) or {}
        p = tb.get("testbed_params") or {}
        ecn = p.get("ecn") or {}
        if isinstance(ecn, dict) and ecn.get("ecn_kind") == "step":
            k = int(ecn["k_bytes"])
        if p.get("tau_ns"):
            tau = int(p["tau_ns"]) * 1000
    matched = d / "matched.json"
    if matched.exists():
        m = json.loads(matched.read_text())
        ecn = m.get("ecn") or {}
        if k is None and ecn.get("kind") == "step" and ecn.get("k_bytes"):
            k = int(ecn["k_bytes"])
        tau = tau or m.get("tau_ps")
    if k is None and (d / "scenario.toml").exists():
        import tomllib

        from .units import parse_size

        try:
            ecn = tomllib.loads((d / "scenario.toml").read_text()).get("switch", {}).get("ecn", {})
            if ecn.get("kind") == "step":
                k = parse_size(ecn["k"], "switch.ecn.k")
        except (ValueError, KeyError, tomllib.TOMLDecodeError):
            pass
    if tau is None and (d / "summary.json").exists():
        run = json.loads((d / "summary.json").read_text()).get("runs", {}).get(variant, {})
        tau = (run.get("engine") or {}).get("base_rtt_ps")
    return k, tau


def share_tolerance(s: float) -> float:
    return SHARE_DEFICIT * s * (1 - s) / (1 - SHARE_DEFICIT * s)


def queue_tolerance(k_bytes: int, rate_bps: int, tau_ps: int, n: int = 1) -> float:
    """(A + N) packets in bytes, A = ½·sqrt(2N(C·RTT + K)) (DCTCP §3.3)."""
    bdp_pkts = rate_bps * tau_ps / 8e12 / WIRE_PACKET
    a = 0.5 * math.sqrt(2 * n * (bdp_pkts + k_bytes / WIRE_PACKET))
    return (a + n) * WIRE_PACKET


def verdict(a: dict, b: dict, a_dir: Path, a_var: str, b_dir: Path, b_var: str) -> dict:
    """Per path: shares and queues of A and B, the tolerances and the verdict."""
    ka, ta = step_k_and_tau(a_dir, a_var)
    kb, tb = step_k_and_tau(b_dir, b_var)
    taus = [t for t in (ta, tb) if t]
    rows, ok_share, ok_queue = [], True, True
    queue_checked = ka is not None and kb is not None and bool(taus)
    for pa, pb in zip(a["paths"], b["paths"]):
        tol_s = share_tolerance(pa["share"])
        share_ok = abs(pa["share"] - pb["share"]) <= tol_s
        ok_share &= share_ok
        row = {
            "path": pa["path"],
            "port_a": pa["port"],
            "port_b": pb["port"],
            "share_a": pa["share"],
            "share_b": pb["share"],
            "share_tolerance": tol_s,
            "share_ok": share_ok,
            "queue_p50_a": pa["queue_p50"],
            "queue_p50_b": pb["queue_p50"],
        }
        if queue_checked:
            tol_q = queue_tolerance(max(ka, kb), pa["rate_bps"], max(taus))
            row["queue_tolerance_bytes"] = tol_q
            row["queue_ok"] = abs(pa["queue_p50"] - pb["queue_p50"]) <= tol_q
            ok_queue &= row["queue_ok"]
        rows.append(row)
    failed = [f"path {r['path']} share" for r in rows if not r["share_ok"]]
    failed += [f"path {r['path']} queue p50" for r in rows if r.get("queue_ok") is False]
    if len(a["paths"]) != len(b["paths"]):
        ok_share = False
        failed.append(f"path count ({len(a['paths'])} vs {len(b['paths'])})")
    holds = ok_share and (ok_queue or not queue_checked)
    why = []
    for r in rows:
        why.append(
            f"path {r['path']} share {r['share_a']:.3f} vs {r['share_b']:.3f} (tol ±{r['share_tolerance']:.3f})"
        )
        if "queue_ok" in r:
            why.append(
                f"queue p50 {r['queue_p50_a'] / 1000:.1f} vs {r['queue_p50_b'] / 1000:.1f} KB "
                f"(tol ±{r['queue_tolerance_bytes'] / 1000:.1f} KB)"
            )
    if not queue_checked:
        why.append("queue: no verdict (no step marking K recorded on both sides)")
    head = "holds: " if holds else f"differs in {', '.join(failed)}: "
    return {"rows": rows, "failed": failed, "verdict": head + "; ".join(why)}


def text_rows(a: dict, b: dict) -> list[tuple[str, str, str]]:
    def kb(x):
        return f"{x / 1000:.1f} KB"

    out = []
    for pa, pb in zip(a["paths"], b["paths"]):
        k = pa["path"]
        port = pa["port"] if pa["port"] == pb["port"] else f"{pa['port']} / {pb['port']}"
        out.append((f"path {k} ({port}) share", f"{pa['share']:.3f}", f"{pb['share']:.3f}"))
        out.append(
            (
                f"path {k} throughput",
                f"{pa['throughput_bps'] / 1e9:.3f} Gbps",
                f"{pb['throughput_bps'] / 1e9:.3f} Gbps",
            )
        )
        out.append((f"path {k} queue p50", kb(pa["queue_p50"]), kb(pb["queue_p50"])))
        out.append((f"path {k} queue p99", kb(pa["queue_p99"]), kb(pb["queue_p99"])))
    for c in sorted(set(a["subflow_share"]) | set(b["subflow_share"]), key=int):
        sa, sb = a["subflow_share"].get(c, {}), b["subflow_share"].get(c, {})
        for k in sorted(set(sa) | set(sb), key=int):
            out.append(
                (
                    f"connection {c} subflow {k} share",
                    f"{sa[k]:.3f}" if k in sa else "-",
                    f"{sb[k]:.3f}" if k in sb else "-",
                )
            )
    return out
