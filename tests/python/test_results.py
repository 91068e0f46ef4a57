"""Output files are byte-stable and load back (written from hand-built engine-shaped columns)."""

import json

from dccsim import results

RESULT = {
    "summary": {"events": 10, "sim_time_ps": 5},
    "flows": {
        "flow_id": [0, 1],
        "src": [1, 2],
        "dst": [0, 0],
        "size_bytes": [-1, 1000],
        "start_ps": [0, 5],
        "end_ps": [-1, 40],
        "bytes_acked": [9, 1000],
        "base_rtt_ps": [4, 4],
        "ideal_fct_ps": [-1, 30],
        "retransmits": [0, 1],
        "timeouts": [0, 0],
    },
    "ports": {"port": [3], "name": ["sw0->h0"], "rate_bps": [10**10]},
    "port_series": {"time_ps": [0, 1], "port": [3, 3], "queue_bytes": [0, 5], "tx_bytes": [0, 7]},
    "flow_series": {
        "time_ps": [0],
        "flow_id": [0],
        "cwnd_bytes": [1.5],
        "rate_bps": [float("inf")],
        "bytes_acked": [0],
    },
}


def test_variant_files_are_deterministic_and_load(tmp_path):
    for d in ("a", "b"):
        results.write_variant(tmp_path / d, "v", RESULT, {"x": 1.0, "nan": float("nan")})
        results.write_json(tmp_path / d / "summary.json", {"order": ["v"], "runs": {"v": {}}, "b": 1, "a": 2})
    for name in (
        "flows.parquet",
        "port_series.parquet",
        "flow_series.parquet",
        "ports.parquet",
        "summary.json",
    ):
        assert (tmp_path / "a" / "v" / name).read_bytes() == (tmp_path / "b" / "v" / name).read_bytes()
    assert json.loads((tmp_path / "a" / "v" / "summary.json").read_text())["nan"] is None
    assert list(json.loads((tmp_path / "a" / "summary.json").read_text())) == ["a", "b", "order", "runs"]
    r = results.load(tmp_path / "a")
    assert list(r.flows["variant"]) == ["v", "v"]
    assert list(r.flows["size_bytes"]) == [-1, 1000]
    assert list(r.port_series["port_name"]) == ["sw0->h0", "sw0->h0"]
    assert r.flow_series["rate_bps"].iloc[0] == float("inf")
    assert str(r.port_series["tx_bytes"].dtype) == "int64"
    assert list(r.ports["name"]) == ["sw0->h0"] and list(r.ports["rate_bps"]) == [10**10]
    assert not list(tmp_path.rglob("*.tmp"))


def test_flows_table_gets_a_slowdown_column(tmp_path):
    from dccsim import results as R

    flows = {
        "flow_id": [0, 1, 2],
        "src": [0, 0, 1],
        "dst": [1, 1, 0],
        "size_bytes": [1000, 5000, -1],
        "start_ps": [0, 100, 0],
        "end_ps": [400, 1100, -1],
        "bytes_acked": [1000, 5000, 7],
        "base_rtt_ps": [100, 100, 100],
        "ideal_fct_ps": [200, 500, -1],
        "retransmits": [0, 0, 0],
        "timeouts": [0, 0, 0],
    }
    R.write_parquet(tmp_path / "flows.parquet", "flows", flows)
    import pyarrow.parquet as pq

    sd = pq.read_table(tmp_path / "flows.parquet").column("slowdown").to_pylist()
    assert sd[0] == 2.0 and sd[1] == 2.0  # 400/200 and 1000/500
    assert sd[2] != sd[2]  # NaN for the long flow
