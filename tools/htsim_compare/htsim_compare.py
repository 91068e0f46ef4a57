"""Run one dccsim flow list in htsim (github.com/Broadcom/csg-htsim) and compare the two.

htsim is not part of dccsim: build it beside the project (tools/htsim_compare/README.md). Two
subcommands (``python tools/htsim_compare/htsim_compare.py -h``):

* ``export RUN_DIR DIR``: the run's flow list (``flows_input.parquet``) as htsim's connection
  matrix ``DIR/flows.cm``, and the same list with each start floored to the microsecond as
  ``DIR/flows_input.parquet`` beside a scenario ``DIR/replay.toml`` that replays it (the run's
  ``scenario.toml`` with ``[workload] kind = "replay"``), so both simulators start every flow at
  the same instant.
* ``compare REPLAY_RUN HTSIM_STDOUT``: finished flows and FCT percentiles of both, per size bucket.

Formats (read from htsim's source, sim/datacenter):

* connection matrix (``connection_matrix.cpp``, ``ConnectionMatrix::load``): ``Nodes N``,
  ``Connections C``, then ``src->dst id K start T size S`` per flow. ``main_swift.cpp`` starts a
  flow at ``timeFromUs((uint32_t)start)``: whole microseconds, hence the floor.
* size: htsim's Swift source counts a flow in whole data packets of its ``-mtu`` bytes, header
  included (``SwiftSrc``: ``_mss = Packet::data_packet_size()``), dccsim in payload bytes of
  ``host.payload``; a flow of S bytes is written as ceil(S / payload) × (payload + header) bytes so
  both send the same number of packets of the same wire size. Stock ``main_swift.cpp`` ignores
  ``size`` (one ``-flowsize`` for every flow): the README's one-line patch passes it on.
* htsim stdout (``SwiftSrc::update_dsn_ack``): ``Flow NAME finished at T_US total bytes B``, with
  NAME ``swift_SRC_DST`` and B its acknowledgement number at the end: the size written plus one
  packet in htsim 841d9e7.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

import numpy as np

PS_PER_US = 1_000_000
FINISHED = re.compile(r"^Flow swift_(\d+)_(\d+) finished at ([0-9.eE+-]+) total bytes (\d+)")


class CompareError(Exception):
    """Bad input: printed as one line, exit 2."""


def _scenario(run_dir: Path) -> dict:
    p = run_dir / "scenario.toml"
    if not p.exists():
        raise CompareError(
            f"{run_dir}: no scenario.toml; pass a dccsim run directory (dccsim run … --out DIR)"
        )
    return tomllib.loads(p.read_text(encoding="utf-8"))


def _packet(scn: dict) -> tuple[int, int]:
    """(payload, header) bytes of the scenario's data packets (`[host]`)."""
    from dccsim.units import parse_size

    return parse_size(scn["host"]["payload"]), parse_size(scn["host"]["header"])


def wire_size(size: np.ndarray, payload: int, header: int) -> np.ndarray:
    """htsim's flow size for dccsim flows of `size` payload bytes: the same packets on the wire."""
    return -(-size // payload) * (payload + header)


def cm_text(nodes: int, src, dst, start_ps, size) -> str:
    lines = [f"Nodes {nodes}", f"Connections {len(src)}"]
    for k, (s, d, t, b) in enumerate(zip(src, dst, start_ps, size), 1):
        lines.append(f"{s}->{d} id {k} start {t // PS_PER_US} size {b}")
    return "\n".join(lines) + "\n"


def replay_scenario(text: str) -> str:
    """The run's scenario.toml with its [workload] table replaced by a replay of flows_input.parquet
    (beside it) and no [experiment] table: the run's topology, hosts, switch and controller."""
    sections = re.split(r"(?m)^(?=\[)", text)
    kept = [s for s in sections if not re.match(r"\[(workload|experiment)[\].]", s)]
    return "".join(kept).rstrip("\n") + '\n\n[workload]\nkind = "replay"\nfile = "flows_input.parquet"\n'


def export(run_dir: Path, out: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    run_dir, out = Path(run_dir), Path(out)
    scn = _scenario(run_dir)
    if scn["topology"].get("kind") != "fattree":
        raise CompareError(
            f"{run_dir}: topology.kind = {scn['topology'].get('kind')!r}; htsim's FatTree needs 'fattree'"
        )
    t = pq.read_table(run_dir / "flows_input.parquet")
    cols = {k: np.asarray(v) for k, v in t.to_pydict().items()}
    if np.any(cols["subflows"] != 1):
        raise CompareError(f"{run_dir}: multipath flows; htsim's Swift program runs one path per flow here")
    floored = cols["start_ps"] // PS_PER_US * PS_PER_US
    order = np.argsort(floored, kind="stable")
    topo = scn["topology"]
    nodes = topo["pods"] * topo["tors_per_pod"] * topo["servers_per_tor"]
    payload, header = _packet(scn)
    out.mkdir(parents=True, exist_ok=True)
    (out / "flows.cm").write_text(
        cm_text(
            nodes,
            cols["src"][order],
            cols["dst"][order],
            floored[order],
            wire_size(cols["size_bytes"][order], payload, header),
        ),
        encoding="utf-8",
    )
    pq.write_table(
        t.set_column(t.schema.get_field_index("start_ps"), "start_ps", pa.array(floored)),
        out / "flows_input.parquet",
    )
    (out / "replay.toml").write_text(
        replay_scenario((run_dir / "scenario.toml").read_text(encoding="utf-8")), encoding="utf-8"
    )
    return len(order)


def parse_htsim(text: str) -> list[tuple[int, int, float, int]]:
    """(src, dst, finish_us, bytes) per 'Flow … finished' line of htsim's stdout."""
    rows = []
    for line in text.splitlines():
        m = FINISHED.match(line)
        if m:
            rows.append((int(m[1]), int(m[2]), float(m[3]), int(m[4])))
    return rows


def fct_us(run_dir: Path, htsim_stdout: Path):
    """Per flow of the replay run: (size, dccsim FCT µs or nan, htsim FCT µs or nan)."""
    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    variants = [p for p in run_dir.iterdir() if (p / "flows.parquet").exists()]
    if len(variants) != 1:
        raise CompareError(f"{run_dir}: expected one variant's flows.parquet, found {len(variants)}")
    scn = _scenario(run_dir)
    payload, header = _packet(scn)
    f = {k: np.asarray(v) for k, v in pq.read_table(variants[0] / "flows.parquet").to_pydict().items()}
    wire = wire_size(f["size_bytes"], payload, header)
    start_us = f["start_ps"] / PS_PER_US
    ours = np.where(f["end_ps"] >= 0, (f["end_ps"] - f["start_ps"]) / PS_PER_US, np.nan)
    theirs = np.full(len(ours), np.nan)
    # htsim names a flow by its (src, dst) and prints its acknowledgement number at the end: in
    # 841d9e7 the size written plus one packet. (src, dst, size) finds our flow; flows equal in
    # all three (rare) are matched in start order. A line that matches no flow is an error.
    by_key: dict = {}
    for i in np.argsort(f["start_ps"], kind="stable"):
        by_key.setdefault((int(f["src"][i]), int(f["dst"][i]), int(wire[i])), []).append(i)
    text = Path(htsim_stdout).read_text(encoding="utf-8", errors="replace")
    for s, d, end, b in sorted(parse_htsim(text), key=lambda r: r[2]):
        queue = by_key.get((s, d, b - payload - header))
        if not queue:
            raise CompareError(
                f"{htsim_stdout}: flow {s}->{d} ({b} B) finished in htsim but is not in the run"
            )
        i = queue.pop(0)
        theirs[i] = end - start_us[i]
    return f["size_bytes"], ours, theirs


def compare(run_dir: Path, htsim_stdout: Path) -> str:
    """Finished flows of both, and FCT p50/p99 per size group over the flows finished in both, by
    dccsim's own groups and percentile rule (`analysis.fct.by_size`: element ⌊q·n⌋; `*` = fewer
    than 10 flows above the percentile)."""
    from dccsim.analysis.fct import LONG, SHORT, by_size

    size, ours, theirs = fct_us(run_dir, htsim_stdout)
    done = ~np.isnan(ours) & ~np.isnan(theirs)
    qs = (0.5, 0.99)
    a, b = by_size(size[done], ours[done], qs), by_size(size[done], theirs[done], qs)

    def cell(c):
        return f"{c['value']:.1f}" + ("" if c["meaningful"] else "*")

    rows = [
        f"finished: dccsim {int(np.sum(~np.isnan(ours)))}, htsim {int(np.sum(~np.isnan(theirs)))} of {len(size)}",
        "group | n both | FCT p50 µs dccsim / htsim | p99 dccsim / htsim",
    ]
    names = {
        "short": f"short (< {SHORT // 1000} KB)",
        "medium": "medium",
        "long": f"long (≥ {LONG // 1_000_000} MB)",
    }
    for g, name in names.items():
        a50, a99, b50, b99 = a[g]["p50"], a[g]["p99"], b[g]["p50"], b[g]["p99"]
        if not a50["n"]:
            rows.append(f"{name} | 0 | — | —")
            continue
        rows.append(f"{name} | {a50['n']} | {cell(a50)} / {cell(b50)} | {cell(a99)} / {cell(b99)}")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write htsim's connection matrix and the replay of the same starts")
    e.add_argument("run_dir", type=Path)
    e.add_argument("out", type=Path)
    c = sub.add_parser("compare", help="FCTs of the replay run and of htsim's stdout, per size bucket")
    c.add_argument("run_dir", type=Path)
    c.add_argument("htsim_stdout", type=Path)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "export":
            print(f"{export(a.run_dir, a.out)} flows -> {a.out / 'flows.cm'}, {a.out / 'replay.toml'}")
        else:
            print(compare(a.run_dir, a.htsim_stdout))
    except (CompareError, OSError) as err:
        print(f"htsim_compare: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
