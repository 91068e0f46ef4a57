"""Cross-check a dccsim run against the PowerTCP authors' ns-3 simulator (inet-tub/ns3-datacenter).

The artifact is not part of dccsim: build it yourself (tools/artifact_crosscheck/README.md) and pass
its ns-3 directory (``simulator/ns-3.39``) with ``--artifact`` or ``DCCSIM_ARTIFACT``.

Three steps, one subcommand each (``python tools/artifact_crosscheck/crosscheck.py -h``):

* ``export RUN_DIR DIR --algorithm hpcc``: the run's topology (``scenario.toml``) and flow list
  (``flows_input.parquet``) in the artifact's input formats (``topology.txt``, ``flows.txt``) and a
  ``config.txt`` with the PowerTCP study's settings (examples/PowerTCP/config-burst.txt).
* ``run DIR``: run ``powertcp-evaluation-burst`` (the program that reads a flow file) on DIR.
* ``compare RUN_DIR VARIANT DIR``: parse the artifact's ``fct.txt``, ``pfc.txt`` and its stdout into
  dccsim's flow and port-series columns, compute both with dccsim's own analysis (analysis/fct.py,
  analysis/incast.py) and print them side by side.

Formats (read from the artifact's source, powertcp-evaluation-burst.cc):

* topology: ``nodes switches tors links``, the switch ids, then ``src dst rate delay error`` per
  link. Node ids are dccsim's: hosts 0..H-1, then the switches in the engine's order.
* flows: the count, then ``src dst pg dport bytes start_seconds`` sorted by start time (the
  program reads them sequentially and starts each at its time). A flow's source port is assigned
  per (src, dst) pair from 10000 upwards in file order, which maps fct.txt lines back to our flows.
* fct.txt (``qp_finish``): ``sip dip sport dport size start_ns fct_ns standalone_fct_ns`` with the
  node id in bits 8..23 of the IP.
* pfc.txt (``get_pfc``, enabled by uncommenting the two ``QbbPfc`` trace lines of
  powertcp-evaluation-burst.cc): ``time_ns node node_type ifindex type``, type 0/1 = RESUME/PAUSE
  received, 2/3 = PAUSE/RESUME sent.
* stdout (``PrintResults``, every 1.5 × min RTT): ``ToR 0 Port j throughput x txBytes b qlen q
  time t ...`` for the first ToR's host-facing ports (j = the host's index in that rack); b is the
  bytes sent since the previous print.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np

LONG_FLOW_BYTES = 10**12  # the artifact's "long-lived" flow (flow-burstExp-256.txt)
FIRST_SPORT = 10000  # powertcp-evaluation-burst.cc: portNumder[i][j] = 10000
PG = 3  # the data priority of every flow in the study's flow files
DPORT = 100

# CC modes of the study's scripts (script-burst.sh / script-workload.sh): (CC_MODE, wien, delayWien,
# windowCheck). "wien" turns HPCC's mode 3 into PowerTCP, "delayWien" into θ-PowerTCP; DCQCN and
# TIMELY run without the NIC window (windowCheck 0), the others with it.
ALGORITHMS = {
    "dcqcn": (1, False, False, 0),
    "powertcp": (3, True, False, 1),
    "hpcc": (3, False, False, 1),
    "theta-powertcp": (3, True, True, 1),
    "timely": (7, False, False, 0),
    "dctcp-rdma": (8, False, False, 1),
}

# config-burst.txt of the study (the same file its workload script uses), minus the file names
# and stop time, which `config_text` writes.
STUDY_CONFIG = (
    ("ENABLE_QCN", "1"),
    ("USE_DYNAMIC_PFC_THRESHOLD", "1"),
    ("PACKET_PAYLOAD_SIZE", "1000"),
    ("CC_MODE", "3"),
    ("ALPHA_RESUME_INTERVAL", "1"),
    ("RATE_DECREASE_INTERVAL", "4"),
    ("CLAMP_TARGET_RATE", "0"),
    ("RP_TIMER", "900"),
    ("EWMA_GAIN", "0.00390625"),
    ("FAST_RECOVERY_TIMES", "1"),
    ("RATE_AI", "50Mb/s"),
    ("RATE_HAI", "100Mb/s"),
    ("MIN_RATE", "100Mb/s"),
    ("DCTCP_RATE_AI", "1000Mb/s"),
    ("ERROR_RATE_PER_LINK", "0.0000"),
    ("L2_CHUNK_SIZE", "4000"),
    ("L2_ACK_INTERVAL", "1"),
    ("L2_BACK_TO_ZERO", "0"),
    ("HAS_WIN", "1"),
    ("GLOBAL_T", "1"),
    ("VAR_WIN", "1"),
    ("FAST_REACT", "1"),
    ("U_TARGET", "0.95"),
    ("MI_THRESH", "5"),
    ("INT_MULTI", "1"),
    ("MULTI_RATE", "0"),
    ("SAMPLE_FEEDBACK", "0"),
    ("PINT_LOG_BASE", "1.05"),
    ("PINT_PROB", "1.0"),
    ("RATE_BOUND", "1"),
    ("ACK_HIGH_PRIO", "0"),
    ("LINK_DOWN", "0 0 0"),
    ("ENABLE_TRACE", "1"),
    ("KMAX_MAP", "3 25000000000 400 50000000000 800 100000000000 1600"),
    ("KMIN_MAP", "3 25000000000 100 50000000000 200 100000000000 400"),
    ("PMAX_MAP", "3 25000000000 0.2 50000000000 0.2 100000000000 0.2"),
    ("BUFFER_SIZE", "4"),
    ("QLEN_MON_START", "2000000000"),
    ("QLEN_MON_END", "2010000000"),
)
BINARY = "build/examples/PowerTCP/ns3.39-powertcp-evaluation-burst-optimized"


class CrossCheckError(Exception):
    """Bad input to the driver: one line naming what is wrong."""


# ---------------------------------------------------------------- export


def fattree_links(t: dict) -> tuple[int, list[int], int, list[tuple[int, int, int, int]]]:
    """(nodes, switch ids, ToR count, links (a, b, rate_bps, delay_ps)) of a dccsim FatTree, in the
    engine's node order (crates/engine/src/topo.rs): hosts, ToRs, aggregation, core switches."""
    from dccsim.units import parse_rate, parse_time

    pods, tpp, app = t["pods"], t["tors_per_pod"], t["aggs_per_pod"]
    cores, spt = t["cores"], t["servers_per_tor"]
    hr, hd = parse_rate(t["host_rate"]), parse_time(t["host_delay"])
    tr, td = parse_rate(t["tor_agg_rate"]), parse_time(t["tor_agg_delay"])
    cr, cd = parse_rate(t["agg_core_rate"]), parse_time(t["agg_core_delay"])
    tors = pods * tpp
    hosts = tors * spt
    tor = [hosts + i for i in range(tors)]
    agg = [hosts + tors + i for i in range(pods * app)]
    core = [hosts + tors + pods * app + i for i in range(cores)] if pods > 1 else []
    links = [(h, tor[h // spt], hr, hd) for h in range(hosts)]
    for p in range(pods):
        for i in range(tpp):
            for a in range(app):
                links.append((tor[p * tpp + i], agg[p * app + a], tr, td))
    if pods > 1:
        per_agg = cores // app
        for p in range(pods):
            for a in range(app):
                for c in range(a * per_agg, (a + 1) * per_agg):
                    links.append((agg[p * app + a], core[c], cr, cd))
    return hosts + len(tor) + len(agg) + len(core), tor + agg + core, tors, links


def topology_text(topology: dict) -> str:
    if topology.get("kind") != "fattree":
        raise CrossCheckError(f"topology.kind: {topology.get('kind')!r}; the exporter supports fattree")
    nodes, switches, tors, links = fattree_links(topology)
    out = [f"{nodes} {len(switches)} {tors} {len(links)}", " ".join(map(str, switches))]
    for a, b, rate, delay in links:
        if delay % 1000:
            raise CrossCheckError(f"topology: link delay {delay} ps is not a whole ns (the artifact's unit)")
        out.append(f"{a} {b} {rate}bps {delay // 1000}ns 0")
    return "\n".join(out) + "\n"


def flow_order(src, start) -> np.ndarray:
    """Indices of the flows in file order: by start time, ties in flow-id order."""
    return np.lexsort((np.arange(len(start)), np.asarray(start)))


def flows_text(flows: dict, offset_ps: int = 0) -> str:
    """The artifact's flow file for dccsim's flows_input columns (src, dst, size_bytes, start_ps)."""
    src, dst = np.asarray(flows["src"]), np.asarray(flows["dst"])
    size, start = np.asarray(flows["size_bytes"]), np.asarray(flows["start_ps"]) + offset_ps
    if np.any(src == dst):
        raise CrossCheckError("flows: a flow with src == dst")
    lines = [str(len(src))]
    for i in flow_order(src, start):
        b = LONG_FLOW_BYTES if size[i] < 0 else int(size[i])
        lines.append(f"{src[i]} {dst[i]} {PG} {DPORT} {b} {start[i] / 1e12:.12f}")
    return "\n".join(lines) + "\n"


def source_ports(flows: dict, offset_ps: int = 0) -> dict:
    """{(src, dst, sport): flow_id}: the source port the artifact gives each flow (per pair, from
    FIRST_SPORT in file order)."""
    src, dst = np.asarray(flows["src"]), np.asarray(flows["dst"])
    start = np.asarray(flows["start_ps"]) + offset_ps
    ids = np.asarray(flows["flow_id"]) if "flow_id" in flows else np.arange(len(src))
    nxt: dict = {}
    out = {}
    for i in flow_order(src, start):
        pair = (int(src[i]), int(dst[i]))
        port = nxt.get(pair, FIRST_SPORT)
        nxt[pair] = port + 1
        out[(pair[0], pair[1], port % 65536)] = int(ids[i])
    return out


def config_text(directory: Path, stop_s: float) -> str:
    d = Path(directory).resolve()
    files = (
        ("TOPOLOGY_FILE", d / "topology.txt"),
        ("FLOW_FILE", d / "flows.txt"),
        ("TRACE_FILE", d / "trace.txt"),
        ("TRACE_OUTPUT_FILE", d / "mix.tr"),
        ("FCT_OUTPUT_FILE", d / "fct.txt"),
        ("PFC_OUTPUT_FILE", d / "pfc.txt"),
        ("QLEN_MON_FILE", d / "qlen.txt"),
    )
    rows = [(k, str(v)) for k, v in files] + [("SIMULATOR_STOP_TIME", f"{stop_s:.9f}")] + list(STUDY_CONFIG)
    return "\n".join(f"{k} {v}" for k, v in rows) + "\n"


def read_run(run_dir: Path) -> tuple[dict, dict]:
    """(scenario dict, flows_input columns) of a dccsim run directory."""
    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    for f in ("scenario.toml", "flows_input.parquet"):
        if not (run_dir / f).exists():
            raise CrossCheckError(f"{run_dir}: no {f}; pass a dccsim run directory (dccsim run … --out DIR)")
    scenario = tomllib.loads((run_dir / "scenario.toml").read_text(encoding="utf-8"))
    t = pq.read_table(run_dir / "flows_input.parquet").to_pydict()
    return scenario, {k: np.asarray(v) for k, v in t.items()}


def export(run_dir: Path, out: Path, algorithm: str, offset_ps: int, stop_ps: int | None) -> dict:
    if algorithm not in ALGORITHMS:
        raise CrossCheckError(f"--algorithm: {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")
    from dccsim.units import parse_time

    scenario, flows = read_run(run_dir)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "topology.txt").write_text(topology_text(scenario["topology"]), encoding="utf-8")
    (out / "flows.txt").write_text(flows_text(flows, offset_ps), encoding="utf-8")
    (out / "trace.txt").write_text("0\n", encoding="utf-8")
    if stop_ps is None:
        stop_ps = parse_time(scenario["duration"])
    (out / "config.txt").write_text(config_text(out, (stop_ps + offset_ps) / 1e12), encoding="utf-8")
    mode, wien, delay, window = ALGORITHMS[algorithm]
    args = {"algorithm": mode, "wien": wien, "delayWien": delay, "windowCheck": window}
    (out / "args.txt").write_text(
        " ".join(f"--{k}={str(v).lower()}" for k, v in args.items()) + f"\noffset_ps {offset_ps}\n",
        encoding="utf-8",
    )
    return args


# ---------------------------------------------------------------- run


def artifact_dir(arg: str | None) -> Path:
    a = arg or os.environ.get("DCCSIM_ARTIFACT")
    if not a:
        raise CrossCheckError("--artifact: not given and DCCSIM_ARTIFACT is not set (the ns-3.39 directory)")
    if not (Path(a) / BINARY).exists():
        raise CrossCheckError(f"--artifact: {a!r} has no {BINARY}; build it first (README.md)")
    return Path(a)


def run(artifact: Path, directory: Path) -> int:
    d = Path(directory).resolve()
    args = (d / "args.txt").read_text(encoding="utf-8").splitlines()[0].split()
    cmd = [str(artifact / BINARY), f"--conf={d / 'config.txt'}", *args]
    with open(d / "stdout.txt", "wb") as so:
        return subprocess.run(cmd, cwd=artifact, stdout=so, stderr=subprocess.STDOUT).returncode


# ---------------------------------------------------------------- parse


def node_of_ip(hex_ip: str) -> int:
    return (int(hex_ip, 16) >> 8) & 0xFFFF


def complete_lines(text: str) -> list[str]:
    """The lines of an output file the artifact writes as it runs (fct.txt, pfc.txt): a last line
    without its newline is one still being written (a running or killed run) and is left out."""
    lines = text.split("\n")
    return lines[:-1]  # "" after the final newline, or the unfinished last line


def parse_fct(text: str, ports: dict, offset_ps: int = 0) -> dict:
    """fct.txt as dccsim flows columns (flow_id, src, dst, size_bytes, start_ps, end_ps,
    ideal_fct_artifact_ps), times shifted back by the export offset."""
    cols: dict = {
        k: [] for k in ("flow_id", "src", "dst", "size_bytes", "start_ps", "end_ps", "ideal_fct_artifact_ps")
    }
    for n, line in enumerate(complete_lines(text), 1):
        f = line.split()
        if not f:
            continue
        if len(f) != 8:
            raise CrossCheckError(f"fct.txt line {n}: expected 8 fields, got {len(f)}")
        s, d, sport = node_of_ip(f[0]), node_of_ip(f[1]), int(f[2])
        key = (s, d, sport)
        if key not in ports:
            raise CrossCheckError(f"fct.txt line {n}: no exported flow {s}->{d} with source port {sport}")
        start = int(f[5]) * 1000 - offset_ps
        for k, v in zip(
            cols,
            (ports[key], s, d, int(f[4]), start, start + int(f[6]) * 1000, int(f[7]) * 1000),
        ):
            cols[k].append(v)
    return {k: np.asarray(v, dtype=np.int64) for k, v in cols.items()}


def with_unfinished(done: dict, flows: dict) -> dict:
    """All flows of flows_input, the artifact's results where it reported them, end −1 otherwise."""
    ids = np.asarray(flows["flow_id"], dtype=np.int64)
    n = len(ids)
    end = np.full(n, -1, dtype=np.int64)
    ideal = np.full(n, -1, dtype=np.int64)
    pos = {int(f): i for i, f in enumerate(ids)}
    for f, e, i in zip(done["flow_id"], done["end_ps"], done["ideal_fct_artifact_ps"]):
        end[pos[int(f)]] = e
        ideal[pos[int(f)]] = i
    return {
        "flow_id": ids,
        "src": np.asarray(flows["src"], dtype=np.int64),
        "dst": np.asarray(flows["dst"], dtype=np.int64),
        "size_bytes": np.asarray(flows["size_bytes"], dtype=np.int64),
        "start_ps": np.asarray(flows["start_ps"], dtype=np.int64),
        "end_ps": end,
        "ideal_fct_artifact_ps": ideal,
    }


PORT_LINE = re.compile(r"^ToR (\d+) Port (\d+) throughput \S+ txBytes (\d+) qlen (\d+) time (\S+)")


def parse_port_series(text: str, tor: int, port: int, offset_ps: int = 0) -> dict:
    """PrintResults' samples of one ToR host port: time_ps, queue_bytes, tx_bytes (cumulative: its
    txBytes is the queue's counter since the previous print, `getTxBytes` resets it)."""
    t, q, tx = [], [], []
    for line in text.splitlines():
        m = PORT_LINE.match(line)
        if m and int(m.group(1)) == tor and int(m.group(2)) == port:
            t.append(round(float(m.group(5)) * 1e12) - offset_ps)
            tx.append(int(m.group(3)))
            q.append(int(m.group(4)))
    tx = np.cumsum(np.asarray(tx, dtype=np.int64))
    return {
        k: np.asarray(v, dtype=np.int64) for k, v in (("time_ps", t), ("queue_bytes", q), ("tx_bytes", tx))
    }


PFC_KINDS = {0: "resume_rx", 1: "pause_rx", 2: "pause_tx", 3: "resume_tx"}


def parse_pfc(text: str, offset_ps: int = 0) -> list[tuple[int, int, int, str]]:
    """pfc.txt events: (time_ps, node, ifindex, kind)."""
    out = []
    for n, line in enumerate(complete_lines(text), 1):
        f = line.split()
        if not f:
            continue
        if len(f) != 5 or int(f[4]) not in PFC_KINDS:
            raise CrossCheckError(f"pfc.txt line {n}: expected 'time node type ifindex 0..3', got {line!r}")
        out.append((int(f[0]) * 1000 - offset_ps, int(f[1]), int(f[3]), PFC_KINDS[int(f[4])]))
    return out


def pause_counts(events, hosts: int) -> dict:
    """PAUSE frames sent, by sender kind (switch or host), and the distinct (node, port) pairs."""
    sent = [(node, port) for _, node, port, kind in events if kind == "pause_tx"]
    return {
        "pauses_sent": len(sent),
        "by_switches": sum(1 for node, _ in sent if node >= hosts),
        "by_hosts": sum(1 for node, _ in sent if node < hosts),
        "ports": len(set(sent)),
    }


# ---------------------------------------------------------------- compare


def fct_rows(ours: dict, theirs: dict, start_ps: int) -> list[dict]:
    """Per size bucket: n, median and p99 slowdown of both, with dccsim's analysis/fct.py rules."""
    from dccsim.analysis import fct

    a = fct.by_size(*fct.measured(ours, start_ps)[:2])
    b = fct.by_size(*fct.measured(theirs, start_ps)[:2])
    rows = []
    for ba, bb in zip(a["buckets"], b["buckets"]):
        rows.append({"bucket": f"({ba['lo']:g}, {ba['hi']:g}]", "ours": ba, "theirs": bb})
    for k in ("short", "medium", "long", "all"):
        rows.append({"bucket": k, "ours": a[k], "theirs": b[k]})
    return rows


def paired_bootstrap(ours: dict, theirs: dict, start_ps: int, reps: int = 1000, seed: int = 0) -> list[dict]:
    """The ratio ours / theirs of the median and the 99th percentile per flow group, with a 95%
    interval from a paired bootstrap: the same flows ran in both simulators, so each replicate
    resamples flow indices once and takes both percentiles over that one resample. An interval that
    contains a ratio (e.g. 1.25) means the difference is not resolved at this sample size."""
    from dccsim.analysis import fct

    size_a, slow_a, _ = fct.measured(ours, start_ps)
    size_b, slow_b, _ = fct.measured(theirs, start_ps)
    if not np.array_equal(size_a, size_b):
        raise CrossCheckError("the two runs did not finish the same measured flows: no paired bootstrap")
    rng = np.random.default_rng(seed)
    groups = {
        "short": size_a < fct.SHORT,
        "medium": (size_a >= fct.SHORT) & (size_a < fct.LONG),
        "long": size_a >= fct.LONG,
        "all": np.ones(len(size_a), bool),
    }
    out = []
    for name, sel in groups.items():
        a, b = slow_a[sel], slow_b[sel]
        if len(a) == 0:
            continue
        row = {"group": name, "n": len(a)}
        for q in (0.5, 0.99):
            point = fct.percentile(a, q) / fct.percentile(b, q)
            idx = rng.integers(0, len(a), size=(reps, len(a)))
            ra = np.sort(a[idx], axis=1)[:, min(len(a) - 1, int(q * len(a)))]
            rb = np.sort(b[idx], axis=1)[:, min(len(a) - 1, int(q * len(a)))]
            lo, hi = np.quantile(ra / rb, [0.025, 0.975])
            row[fct.key(q)] = (float(point), float(lo), float(hi))
        out.append(row)
    return out


def bootstrap_table(rows: list[dict]) -> str:
    out = ["| group | n | p50 ratio [95% CI] | p99 ratio [95% CI] |", "|---|---|---|---|"]
    for r in rows:
        cells = [f"{r[k][0]:.2f} [{r[k][1]:.2f}, {r[k][2]:.2f}]" for k in ("p50", "p99")]
        out.append(f"| {r['group']} | {r['n']} | {cells[0]} | {cells[1]} |")
    out.append("(ours / theirs; paired bootstrap over the measured flows, 1000 replicates)")
    return "\n".join(out)


def _v(s: dict, q: str) -> str:
    x = s[q]
    if x["value"] is None:
        return "-"
    return f"{x['value']:.2f}" + ("" if x["meaningful"] else "*")


def _ratio(s: dict, t: dict, q: str) -> str:
    a, b = s[q]["value"], t[q]["value"]
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}"


def fct_table(rows: list[dict]) -> str:
    head = (
        "| bucket (B) | n ours | n theirs | p50 ours | p50 theirs | ratio | p99 ours | p99 theirs | ratio |"
    )
    out = [head, "|" + "---|" * 9]
    for r in rows:
        o, t = r["ours"], r["theirs"]
        if o["p50"]["n"] == 0 and t["p50"]["n"] == 0:
            continue
        out.append(
            f"| {r['bucket']} | {o['p50']['n']} | {t['p50']['n']} | {_v(o, 'p50')} | {_v(t, 'p50')} | "
            f"{_ratio(o, t, 'p50')} | {_v(o, 'p99')} | {_v(t, 'p99')} | {_ratio(o, t, 'p99')} |"
        )
    out.append("(* fewer than 10 samples above the percentile: not meaningful)")
    return "\n".join(out)


def queue_metrics(t, q, t0_ps: int, tx=None, rate_bps: int = 0) -> dict:
    """Peak, recovery and (given the cumulative tx bytes) throughput in [t0, t0 + 1 ms] of a port's
    series, with analysis/incast.py's rules."""
    from dccsim.analysis import incast

    after = np.nonzero(t >= t0_ps)[0]
    if after.size == 0:
        return {"peak_bytes": None, "recovery_ps": None}
    k = int(after[0] + np.argmax(q[after]))
    peak = float(q[k])
    rec = incast.recovery_index(t, q, k, incast.THRESHOLD * peak, incast.HOLD_PS)
    out = {
        "peak_bytes": int(peak),
        "peak_at_ps": int(t[k]) - t0_ps,
        "recovery_ps": None if rec is None else int(t[rec]) - t0_ps,
    }
    if tx is not None:
        pct = incast._pct(t, tx, t0_ps, min(t0_ps + incast.WINDOW_PS, int(t[-1])), rate_bps)
        out["throughput_pct"] = None if pct is None else round(pct, 1)
    return out


def resample(t, q, grid) -> np.ndarray:
    """Our series at the artifact's sample instants (the last sample at or before each)."""
    idx = np.searchsorted(t, grid, side="right") - 1
    return np.where(idx >= 0, q[np.clip(idx, 0, None)], 0)


def started_before(flows: dict, until_ps: int) -> dict:
    """The flows (columns) that started before until_ps."""
    keep = np.asarray(flows["start_ps"]) < until_ps
    return {k: np.asarray(v)[keep] for k, v in flows.items()}


def _load_ours(run_dir: Path, variant: str):
    from dccsim import results

    r = results.load(run_dir)
    tables = r.variant(variant)
    flows = {c: tables["flows"][c].to_numpy() for c in tables["flows"].columns}
    return r, tables, flows


def compare(
    run_dir: Path,
    variant: str,
    directory: Path,
    start_ps: int,
    t0_ps: int | None,
    port: str | None,
    boot: bool = False,
    until_ps: int | None = None,
):
    scenario, flows_in = read_run(run_dir)
    d = Path(directory)
    offset = int((d / "args.txt").read_text(encoding="utf-8").splitlines()[1].split()[1])
    ports = source_ports(flows_in, offset)
    done = parse_fct((d / "fct.txt").read_text(encoding="utf-8"), ports, offset)
    theirs = with_unfinished(done, flows_in)
    _, tables, ours = _load_ours(run_dir, variant)
    lines = [f"# {variant}: dccsim {run_dir} vs artifact {d}"]
    fin_o = int(np.sum((ours["size_bytes"] > 0) & (ours["end_ps"] >= 0)))
    fin_t = int(np.sum((theirs["size_bytes"] > 0) & (theirs["end_ps"] >= 0)))
    lines.append(f"finished finite flows: ours {fin_o}, theirs {fin_t}")
    both = (ours["ideal_fct_artifact_ps"] > 0) & (theirs["ideal_fct_artifact_ps"] > 0)
    if both.any():
        rel = np.abs(ours["ideal_fct_artifact_ps"][both] / theirs["ideal_fct_artifact_ps"][both] - 1)
        lines.append(
            f"ideal FCT, ours vs the artifact's standalone_fct: max relative difference {rel.max():.2e}"
        )
    if until_ps is not None:  # a partial artifact run: measure the flows that started before until_ps
        from dccsim.analysis import fct

        ours, theirs = started_before(ours, until_ps), started_before(theirs, until_ps)
        unf = [fct.measured(x, start_ps)[2] for x in (ours, theirs)]
        lines.append(
            f"measured flows started before {until_ps / 1e9:g} ms; unfinished: ours {unf[0]}, theirs {unf[1]}"
        )
    lines.append(fct_table(fct_rows(ours, theirs, start_ps)))
    if boot:
        lines.append(bootstrap_table(paired_bootstrap(ours, theirs, start_ps)))
    if port is not None and t0_ps is not None:
        from dccsim.analysis import incast

        m = re.fullmatch(r"tor(\d+)->h(\d+)", port)
        if not m:
            raise CrossCheckError(f"--port: {port!r}; the artifact prints tor<i>->h<j> ports only")
        if int(m.group(1)) != 0:
            raise CrossCheckError(f"--port: {port!r}; the artifact prints the ports of tor0 only")
        nodes_per_tor = scenario["topology"]["servers_per_tor"]
        tor, host = int(m.group(1)), int(m.group(2))
        ts = parse_port_series(
            (d / "stdout.txt").read_text(encoding="utf-8"), tor, host % nodes_per_tor, offset
        )
        t, q, tx, rate = incast.bottleneck(tables["port_series"], tables["ports"], port)
        o = queue_metrics(t, q, t0_ps, tx, rate)
        o_grid = queue_metrics(ts["time_ps"], resample(t, q, ts["time_ps"]), t0_ps)
        a = queue_metrics(ts["time_ps"], ts["queue_bytes"], t0_ps, ts["tx_bytes"], rate)
        lines.append(f"queue {port}: ours {o} | ours at the artifact's sample instants {o_grid} | theirs {a}")
        topo = scenario["topology"]
        hosts = topo["servers_per_tor"] * topo["pods"] * topo["tors_per_pod"]
        pfc_file = d / "pfc.txt"
        if pfc_file.exists():
            lines.append(
                f"artifact PFC: {pause_counts(parse_pfc(pfc_file.read_text(encoding='utf-8'), offset), hosts)}"
            )
        pf = tables["pfc"]
        if len(pf):
            lines.append(
                f"dccsim PFC: pauses sent {int(pf['pauses_sent'].sum())} on {int((pf['pauses_sent'] > 0).sum())} ports"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    from dccsim.units import parse_time

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write the artifact's inputs for a dccsim run")
    e.add_argument("run_dir", type=Path)
    e.add_argument("out", type=Path)
    e.add_argument("--algorithm", required=True, help=", ".join(ALGORITHMS))
    e.add_argument("--offset", default="0s", help="shift every start time by this (e.g. 10ms)")
    e.add_argument(
        "--stop", default=None, help="simulated time to stop at (default: the scenario's duration)"
    )
    r = sub.add_parser("run", help="run the artifact on an exported directory")
    r.add_argument("dir", type=Path)
    r.add_argument("--artifact", default=None, help="the artifact's simulator/ns-3.39 (or DCCSIM_ARTIFACT)")
    c = sub.add_parser("compare", help="print dccsim and the artifact side by side")
    c.add_argument("run_dir", type=Path)
    c.add_argument("variant", help="the variant's slug in the run directory")
    c.add_argument("dir", type=Path)
    c.add_argument("--measure-from", default="0s", help="flows starting earlier are not measured")
    c.add_argument(
        "--measure-until",
        default=None,
        help="flows starting at or after this are not measured (an artifact run stopped early)",
    )
    c.add_argument("--t0", default=None, help="incast start for the queue metrics")
    c.add_argument("--port", default=None, help="bottleneck port, e.g. tor0->h16")
    c.add_argument(
        "--bootstrap", action="store_true", help="95%% intervals of the ratios (paired bootstrap over flows)"
    )
    a = ap.parse_args(argv)
    try:
        if a.cmd == "export":
            stop = None if a.stop is None else parse_time(a.stop, "--stop")
            print(export(a.run_dir, a.out, a.algorithm, parse_time(a.offset, "--offset"), stop))
        elif a.cmd == "run":
            return run(artifact_dir(a.artifact), a.dir)
        else:
            t0 = None if a.t0 is None else parse_time(a.t0, "--t0")
            print(
                compare(
                    a.run_dir,
                    a.variant,
                    a.dir,
                    parse_time(a.measure_from, "--measure-from"),
                    t0,
                    a.port,
                    a.bootstrap,
                    None if a.measure_until is None else parse_time(a.measure_until, "--measure-until"),
                )
            )
    except CrossCheckError as err:
        print(f"crosscheck: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
