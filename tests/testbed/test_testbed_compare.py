"""dccsim compare on synthetic result directories (no root needed)."""

import json
import re

import pyarrow as pa
import pyarrow.parquet as pq

from tb_helpers import ROOT  # noqa: F401  (puts python/ on the path)
from dccsim import compare


def _write(d, variant, shares, queue, engine=None, retransmits=0):
    (d / variant).mkdir(parents=True)
    (d / "summary.json").write_text(
        json.dumps(
            {
                "schema": "dccsim-results/1",
                "experiment": "x",
                "seed": 1,
                "order": [variant],
                "runs": {variant: {"engine": engine or {}}},
            }
        )
    )
    n = len(shares)
    pq.write_table(
        pa.table(
            {
                "flow_id": list(range(n)),
                "src": list(range(n)),
                "dst": [9] * n,
                "size_bytes": [-1] * n,
                "start_ps": [0] * n,
                "end_ps": [-1] * n,
                "bytes_acked": [0] * n,
                "base_rtt_ps": [1] * n,
                "ideal_fct_ps": [-1] * n,
                "retransmits": [retransmits] * n,
                "timeouts": [0] * n,
            }
        ),
        d / variant / "flows.parquet",
    )
    pq.write_table(
        pa.table({"port": [0, 1], "name": ["sw0->h9", "h0->sw0"], "rate_bps": [10**9] * 2}),
        d / variant / "ports.parquet",
    )
    t = [i * 10**9 for i in range(len(queue))]
    pq.write_table(
        pa.table(
            {
                "time_ps": t,
                "port": [0] * len(t),
                "queue_bytes": queue,
                "tx_bytes": [i * 1000 for i in range(len(t))],
            }
        ),
        d / variant / "port_series.parquet",
    )
    rows = {"time_ps": [], "flow_id": [], "cwnd_bytes": [], "rate_bps": [], "bytes_acked": []}
    for k in range(11):
        for f, s in enumerate(shares):
            rows["time_ps"].append(k * 10**9)
            rows["flow_id"].append(f)
            rows["cwnd_bytes"].append(1000)
            rows["rate_bps"].append(0)
            rows["bytes_acked"].append(int(k * s * 1000))
    pq.write_table(pa.table(rows), d / variant / "flow_series.parquet")


def test_shares_jain_queue_and_recovery(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a, "sim", [1, 1, 1, 1], [0, 0, 3000, 50000, 20000, 4000, 0, 0])
    _write(b, "dctcp", [3, 1, 1, 1], [0] * 8)
    assert compare.main([str(a), str(b), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ca, cb = out["comparisons"][0]["a"], out["comparisons"][0]["b"]
    assert abs(ca["jain"] - 1.0) < 1e-9
    assert abs(cb["jain"] - 36 / 48) < 1e-9  # (3+1+1+1)^2 / (4 * (9+1+1+1))
    assert abs(cb["share"]["0"] - 0.5) < 1e-9
    assert ca["queue_max"] == 50000 and ca["peak_time_ps"] == 3 * 10**9
    assert ca["recovery_time_ps"] == 2 * 10**9  # back to <= max(5000, median(0,0,3000)+1500) at t=5
    assert compare.main([str(a), str(b)]) == 0
    assert "Jain" in capsys.readouterr().out


def test_retransmits_drops_and_tau_of_both_sides(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a, "cubic", [1, 1], [0] * 8, {"base_rtt_ps": 105_226_668, "packets_dropped": 7820}, retransmits=9)
    _write(b, "cubic", [1, 1], [0] * 8, {"base_rtt_ps": 435_000_000, "packets_dropped": 101})
    assert compare.main([str(a), str(b), "--json"]) == 0
    c = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert (c["a"]["retransmits"], c["b"]["retransmits"]) == (18, 0)  # summed over the flows
    assert (c["a"]["packets_dropped"], c["b"]["packets_dropped"]) == (7820, 101)
    assert (c["a"]["tau_ps"], c["b"]["tau_ps"]) == (105_226_668, 435_000_000)
    assert compare.main([str(a), str(b)]) == 0
    rows = {
        r[0]: r[1:] for r in (re.split(r"\s{2,}", ln.strip()) for ln in capsys.readouterr().out.splitlines())
    }
    assert rows["τ (base RTT)"] == ["105.2 us", "435.0 us"]
    assert rows["packets dropped"] == ["7820", "101"] and rows["retransmits"] == ["18", "0"]


def test_missing_directory_exits_2(tmp_path, capsys):
    assert compare.main([str(tmp_path / "nope"), str(tmp_path)]) == 2


def _verdict(a, b, capsys):
    assert compare.main([str(a), str(b), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["comparisons"][0]["verdict"]


def test_single_path_verdict_names_the_check_that_failed(tmp_path, capsys):
    """Throughput within δ = 0.17 of the line rate; the queue p50 within (A + N) packets of DCTCP §3.3
    at a step K (compare_verdict). Here C = 1 Gbps, τ = 100 µs, K = 30 000 B, N = 4 long flows:
    A = ½·sqrt(2·4·(8.26 + 19.8)) = 7.49 packets, tolerance (7.49 + 4)·1514 B = 17.4 KB."""
    engine = {"base_rtt_ps": 100_000_000}
    step = '[switch]\necn = { kind = "step", k = "30000B" }\n'
    dirs = {}
    for name, shares, queue in (
        ("a", [1, 1, 1, 1], [30000] * 8),
        ("same", [1, 1, 1, 1], [40000] * 8),  # 10 KB apart: inside 17.4 KB
        ("fast", [100, 100, 100, 100], [30000] * 8),  # 3.2 Gbps against 32 Mbps
        ("deep", [1, 1, 1, 1], [60000] * 8),  # 30 KB apart
    ):
        d = tmp_path / name
        _write(d, "dctcp", shares, queue, engine)
        (d / "scenario.toml").write_text(step)
        dirs[name] = d
    v = _verdict(dirs["a"], dirs["same"], capsys)
    assert v["failed"] == [] and v["verdict"].startswith("holds: throughput 32.0 vs 32.0 Mbps (tol ±170.0)")
    assert [c["name"] for c in v["checks"]] == ["throughput", "queue p50"]
    assert abs(v["checks"][1]["tolerance"] - 17_400) < 100
    v = _verdict(dirs["a"], dirs["fast"], capsys)
    assert v["failed"] == ["throughput"] and v["verdict"].startswith("differs in throughput: ")
    v = _verdict(dirs["a"], dirs["deep"], capsys)
    assert v["failed"] == ["queue p50"] and v["verdict"].startswith("differs in queue p50: ")
    # without a step K on both sides the queue has no verdict, and the text says so
    (dirs["deep"] / "scenario.toml").unlink()
    v = _verdict(dirs["a"], dirs["deep"], capsys)
    assert [c["name"] for c in v["checks"]] == ["throughput"]
    assert "queue: no verdict" in v["verdict"]
    assert compare.main([str(dirs["a"]), str(dirs["fast"])]) == 0
    assert "  verdict: differs in throughput: " in capsys.readouterr().out
