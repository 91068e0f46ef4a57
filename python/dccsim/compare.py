"""`dccsim compare A B [--json] [--port NAME]` — two result directories of the same scenario side by side.

A and B are result directories (summary.json + <variant>/ tables), e.g. a simulator run and a testbed
run, or two algorithms.  `DIR:variant` picks one variant of a directory holding several; otherwise the
variants with the same name in A and B are compared (or the only one of each).

Metrics per run (docs/testbed.md, "compare"):
  - share of each long-lived flow and Jain's fairness index, over the window in which every long flow
    is active (from the last long-flow start to the end of the series);
  - bottleneck queue percentiles p50/p95/p99/max over the whole series (the switch egress port with the
    most transmitted bytes unless --port is given), and the peak queue with its time;
  - recovery time: from the peak until the queue is first back at or below max(10% of the peak, the
    pre-peak median + 1 packet of 1500 B).
With --t0 T (e.g. the incast start) the peak is searched from T on, so that recovery is measured
from the event; queue percentiles stay over the whole series.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pyarrow.parquet as pq

from . import compare_multipath, compare_verdict
from .cli import OneLineParser
from .analysis.common import jain, percentile

LINEAR = "linear"  # compare interpolates between order statistics (numpy's default)

PACKET = 1500


class CompareError(ValueError):
    pass


def _load_runs(arg: str) -> tuple[Path, dict[str, Path], dict]:
    path, _, variant = arg.partition(":")
    if variant and not Path(arg).exists():
        d = Path(path)
    else:
        d, variant = Path(arg), ""
    summary_path = d / "summary.json"
    if not summary_path.exists():
        raise CompareError(f"{arg}: not a result directory (no summary.json)")
    summary = json.loads(summary_path.read_text())
    runs = {v: d / v for v in summary.get("runs", {}) if (d / v / "flows.parquet").exists()}
    if variant:
        if variant not in runs:
            raise CompareError(f"{arg}: no variant '{variant}'; has: {', '.join(sorted(runs)) or 'none'}")
        runs = {variant: runs[variant]}
    if not runs:
        raise CompareError(f"{arg}: no run tables found")
    return d, runs, summary


def _col(table, name):
    return table.column(name).to_pylist()


def analyse(run_dir: Path, port_name: str | None = None, t0_ps: int = 0) -> dict:
    flows = pq.read_table(run_dir / "flows.parquet")
    ports = pq.read_table(run_dir / "ports.parquet")
    ps = pq.read_table(run_dir / "port_series.parquet")
    fs = pq.read_table(run_dir / "flow_series.parquet")

    names = dict(zip(_col(ports, "port"), _col(ports, "name")))
    p_time, p_port, p_q, p_tx = (_col(ps, c) for c in ("time_ps", "port", "queue_bytes", "tx_bytes"))
    if port_name is None:
        last_tx: dict[int, int] = {}
        for p, tx in zip(p_port, p_tx):
            last_tx[p] = tx
        cands = [p for p in last_tx if not names.get(p, "h").startswith("h")] or list(last_tx)
        if not cands:
            raise CompareError(f"{run_dir}: the port series is empty")
        port = max(cands, key=lambda p: last_tx[p])
    else:
        inv = {v: k for k, v in names.items()}
        if port_name not in inv:
            raise CompareError(f"{run_dir}: no port '{port_name}'; ports: {', '.join(names.values())}")
        port = inv[port_name]
    series = [(t, q) for t, p, q in zip(p_time, p_port, p_q) if p == port]
    qs = [q for _, q in series]
    after = [x for x in series if x[0] >= t0_ps]
    peak_t, peak_q = max(after, key=lambda x: x[1]) if after else (0, 0)
    before = [q for t, q in series if t < peak_t]
    thresh = max(0.1 * peak_q, (percentile(before, 0.5, LINEAR) if before else 0.0) + PACKET)
    recovery = None
    for t, q in series:
        if t > peak_t and q <= thresh:
            recovery = t - peak_t
            break

    # long-flow shares over the window where all long flows run
    f_id, f_size, f_start = _col(flows, "flow_id"), _col(flows, "size_bytes"), _col(flows, "start_ps")
    long_ids = [i for i, s in zip(f_id, f_size) if s < 0]
    share, jfi, window = {}, None, None
    if long_ids:
        t_all = max(st for i, st in zip(f_id, f_start) if i in long_ids)
        s_time, s_flow, s_acked = _col(fs, "time_ps"), _col(fs, "flow_id"), _col(fs, "bytes_acked")
        first: dict[int, tuple[int, int]] = {}
        last: dict[int, tuple[int, int]] = {}
        for t, fid, a in zip(s_time, s_flow, s_acked):
            if fid in long_ids and t >= t_all:
                first.setdefault(fid, (t, a))
                last[fid] = (t, a)
        got = {fid: last[fid][1] - first[fid][1] for fid in long_ids if fid in first}
        if got:
            t0 = min(v[0] for v in first.values())
            t1 = max(v[0] for v in last.values())
            total = sum(got.values())
            share = {str(fid): (got[fid] / total if total else 0.0) for fid in sorted(got)}
            jfi = jain([float(got[fid]) for fid in long_ids if fid in got])
            window = {
                "from_ps": t0,
                "to_ps": t1,
                "throughput_bps": total * 8 / ((t1 - t0) / 1e12) if t1 > t0 else 0.0,
            }
    # short flows: completion
    f_end, f_ideal = _col(flows, "end_ps"), _col(flows, "ideal_fct_ps")
    fct = [(e - s) for s, e, z in zip(f_start, f_end, f_size) if z >= 0 and e >= 0]
    slow = [(e - s) / i for s, e, z, i in zip(f_start, f_end, f_size, f_ideal) if z >= 0 and e >= 0 and i > 0]
    return {
        "port": names.get(port, str(port)),
        "queue_p50": percentile(qs, 0.5, LINEAR),
        "queue_p95": percentile(qs, 0.95, LINEAR),
        "queue_p99": percentile(qs, 0.99, LINEAR),
        "queue_max": max(qs) if qs else 0,
        "peak_queue_bytes": peak_q,
        "peak_time_ps": peak_t,
        "recovery_time_ps": recovery,
        "share": share,
        "jain": jfi,
        "long_window": window,
        "short_flows": sum(1 for z in f_size if z >= 0),
        "short_completed": len(fct),
        "short_fct_p50_ps": percentile(fct, 0.5, LINEAR) if fct else None,
        "short_fct_p99_ps": percentile(fct, 0.99, LINEAR) if fct else None,
        "short_slowdown_p50": percentile(slow, 0.5, LINEAR) if slow else None,
        "retransmits": sum(_col(flows, "retransmits")),
        "timeouts": sum(_col(flows, "timeouts")),
    }


def _fmt(v, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if unit == "B":
        return f"{v / 1000:.1f} KB"
    if unit == "ps":
        return f"{v / 1e9:.3f} ms"
    if unit == "us":
        return f"{v / 1e6:.1f} us"
    if unit == "bps":
        return f"{v / 1e9:.3f} Gbps"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _rows(a: dict, b: dict) -> list[tuple[str, str, str]]:
    rows = [("bottleneck port", a["port"], b["port"])]
    for fid in sorted(set(a["share"]) | set(b["share"]), key=int):
        rows.append((f"share flow {fid}", _fmt(a["share"].get(fid)), _fmt(b["share"].get(fid))))
    rows.append(("Jain's index (long flows)", _fmt(a["jain"]), _fmt(b["jain"])))
    rows.append(
        (
            "long-flow throughput",
            _fmt((a["long_window"] or {}).get("throughput_bps"), "bps"),
            _fmt((b["long_window"] or {}).get("throughput_bps"), "bps"),
        )
    )
    for k in ("queue_p50", "queue_p95", "queue_p99", "queue_max"):
        rows.append((k.replace("_", " "), _fmt(a[k], "B"), _fmt(b[k], "B")))
    rows.append(
        (
            "peak queue (per packet)",
            _fmt(a.get("peak_queue_per_packet_bytes"), "B"),
            _fmt(b.get("peak_queue_per_packet_bytes"), "B"),
        )
    )
    rows.append(("peak queue at", _fmt(a["peak_time_ps"], "ps"), _fmt(b["peak_time_ps"], "ps")))
    rows.append(("recovery time", _fmt(a["recovery_time_ps"], "ps"), _fmt(b["recovery_time_ps"], "ps")))
    rows.append(("τ (base RTT)", _fmt(a.get("tau_ps"), "us"), _fmt(b.get("tau_ps"), "us")))
    for k, label in (
        ("packets_dropped", "packets dropped"),
        ("retransmits", "retransmits"),
        ("timeouts", "timeouts"),
    ):
        rows.append((label, _fmt(a.get(k)), _fmt(b.get(k))))
    if a["short_flows"] or b["short_flows"]:
        rows.append(
            (
                "short flows completed",
                f"{a['short_completed']}/{a['short_flows']}",
                f"{b['short_completed']}/{b['short_flows']}",
            )
        )
        rows.append(("short FCT p50", _fmt(a["short_fct_p50_ps"], "ps"), _fmt(b["short_fct_p50_ps"], "ps")))
        rows.append(("short FCT p99", _fmt(a["short_fct_p99_ps"], "ps"), _fmt(b["short_fct_p99_ps"], "ps")))
    return rows


def _pairs(ra: dict[str, Path], rb: dict[str, Path]) -> list[tuple[str, str]]:
    common = sorted(set(ra) & set(rb))
    if common:
        return [(v, v) for v in common]
    if len(ra) == 1 and len(rb) == 1:
        return [(next(iter(ra)), next(iter(rb)))]
    raise CompareError(
        f"no common variant (A: {', '.join(sorted(ra))}; B: {', '.join(sorted(rb))}); "
        "pick one with DIR:variant"
    )


def main(argv: list[str]) -> int:
    ap = OneLineParser(prog="dccsim compare", description=__doc__.splitlines()[0])
    ap.add_argument("a", help="result directory (or DIR:variant)")
    ap.add_argument("b", help="result directory (or DIR:variant)")
    ap.add_argument("--port", default=None, help="bottleneck port name, e.g. sw0->h4")
    ap.add_argument("--t0", default=None, help="search the peak from this time on, e.g. 1s")
    ap.add_argument(
        "--paths",
        default=None,
        help="multipath: the port of each path, comma-separated (default tor0->path0,tor0->path1 of a two-path topology)",
    )
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--html", metavar="PAGE.html", help="also write a self-contained HTML page")
    ap.add_argument(
        "--different-experiments", action="store_true", help="compare runs of different experiments"
    )
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        t0 = 0
        if args.t0 is not None:
            from .units import parse_time

            t0 = parse_time(args.t0, "--t0")
        da, ra, sa = _load_runs(args.a)
        db, rb, sb = _load_runs(args.b)
        if sa.get("experiment") != sb.get("experiment") and not args.different_experiments:
            raise CompareError(
                f"b: results of another experiment ('{sb.get('experiment')}', A is "
                f"'{sa.get('experiment')}'); the table would compare unrelated runs "
                "(pass --different-experiments to compare them anyway)"
            )
        for name, summ in (("a", sa), ("b", sb)):
            if summ.get("complete") is False:
                print(
                    f"dccsim compare: warning: {name}: the run is incomplete (complete: false, "
                    "interrupted or still running); its missing variants are not compared",
                    file=sys.stderr,
                )
        out = []
        for va, vb in _pairs(ra, rb):
            a = {"dir": str(da), "variant": va, **analyse(ra[va], args.port, t0)}
            b = {"dir": str(db), "variant": vb, **analyse(rb[vb], args.port, t0)}
            for side, summ, v in ((a, sa, va), (b, sb, vb)):
                # testbed runs also record the largest queue any packet found (not only samples)
                engine = summ.get("runs", {}).get(v, {}).get("engine") or {}
                side["peak_queue_per_packet_bytes"] = (engine.get("port_peak_queue_bytes") or {}).get(
                    side["port"]
                )
                # τ: the testbed's measured or given one, the simulator's resolved base RTT
                side["tau_ps"] = engine.get("base_rtt_ps")
                side["packets_dropped"] = engine.get("packets_dropped")
            c = {"a": a, "b": b}
            paths = args.paths.split(",") if args.paths else None
            ma, mb = compare_multipath.analyse(ra[va], paths), compare_multipath.analyse(rb[vb], paths)
            if ma is not None or mb is not None:
                a["multipath"], b["multipath"] = ma, mb
                if ma is not None and mb is not None:
                    c["multipath_verdict"] = compare_multipath.verdict(ma, mb, ra[va], va, rb[vb], vb)
                else:
                    c["multipath_verdict"] = {
                        "rows": [],
                        "verdict": f"n/a: only {'A' if ma is not None else 'B'} has multipath connections",
                    }
            else:
                c["verdict"] = compare_verdict.verdict(a, b, ra[va], va, rb[vb], vb)
            out.append(c)
    except (CompareError, OSError, ValueError) as e:
        print(f"dccsim: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"experiment": sa.get("experiment"), "comparisons": out}, sort_keys=True))
        return 0
    lines = []
    for c in out:
        rows = [("", f"A: {c['a']['variant']}", f"B: {c['b']['variant']}")] + _rows(c["a"], c["b"])
        if c["a"].get("multipath") and c["b"].get("multipath"):
            rows += compare_multipath.text_rows(c["a"]["multipath"], c["b"]["multipath"])
        w0 = max(len(r[0]) for r in rows)
        w1 = max(len(r[1]) for r in rows)
        lines.append(f"{sa.get('experiment')}: A={c['a']['dir']}  B={c['b']['dir']}")
        for r in rows:
            lines.append(f"  {r[0]:<{w0}}  {r[1]:>{w1}}  {r[2]}")
        if "multipath_verdict" in c:
            lines.append(f"  multipath verdict: {c['multipath_verdict']['verdict']}")
        if "verdict" in c:
            lines.append(f"  verdict: {c['verdict']['verdict']}")
    print("\n".join(lines))
    if args.html:
        from .report import write_compare

        print(f"report: {write_compare(da, db, chr(10).join(lines), args.html)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
