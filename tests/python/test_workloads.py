"""Generated workloads (issue 8 item 4): CDF sampling, Poisson load, destinations, incast,
determinism, the flow table and its replay, stop_when_done."""

from __future__ import annotations

import copy

import numpy as np
import pyarrow.parquet as pq
import pytest

from dccsim import runner
from dccsim.scenario import from_dict
from dccsim.workloads import cdf
from dccsim.workloads.generate import flow_list
from dccsim.workloads.racks import racks

# The PowerTCP FatTree: 8 racks of 32 hosts, each ToR with 2 × 100G uplinks (4:1 oversubscribed)
FATTREE = {
    "kind": "fattree", "pods": 4, "tors_per_pod": 2, "aggs_per_pod": 2, "cores": 4,
    "servers_per_tor": 32, "host_rate": "25Gbps", "host_delay": "1us", "tor_agg_rate": "100Gbps",
    "tor_agg_delay": "1us", "agg_core_rate": "100Gbps", "agg_core_delay": "5us",
}  # fmt: skip
SMALL = {
    **FATTREE,
    "pods": 2,
    "cores": 2,
    "servers_per_tor": 4,
    "tor_agg_rate": "25Gbps",
    "agg_core_rate": "25Gbps",
}


def scenario(workload: dict, topology=FATTREE, duration="2s", **extra):
    return from_dict(
        {
            "name": "wl",
            "duration": duration,
            "topology": topology,
            "cc": {"algorithm": "hpcc"},
            "workload": workload,
            **extra,
        }
    )


def websearch(load=0.6, stop="1s", **kw):
    return {"kind": "poisson", "cdf": "websearch", "load": load, "start": "0s", "stop": stop, **kw}


def test_websearch_mean_is_the_hand_computed_value():
    # Σ (p_{i+1} − p_i)(s_i + s_{i+1})/2 over websearch.cdf, by hand: 1,711,222.5 B (the value
    # artifact-notes.md gives for the PowerTCP generator).
    assert cdf.mean(cdf.load_packaged("websearch", "x")) == pytest.approx(1_711_222.5, abs=1e-6)


def test_sampling_interpolates_linearly_and_honours_a_point_mass():
    pts = ((10.0, 0.5), (20.0, 0.75), (100.0, 1.0))
    # u < 0.5: the point mass at 10; u = 0.625 is half-way between 10 and 20; u = 0.875 → 60
    got = cdf.sample(pts, np.array([0.0, 0.3, 0.5, 0.625, 0.875]))
    assert got.tolist() == [10, 10, 10, 15, 60]
    assert cdf.mean(pts) == pytest.approx(0.5 * 10 + 0.25 * 15 + 0.25 * 60)


def test_offered_load_is_within_2_percent_of_the_target_on_every_rack():
    # load = bytes offered by a rack's hosts / (duration × the rack's uplink capacity), all of it
    # crossing the uplinks (destinations in other racks). Over 10 s each rack offers ≈ 88 k
    # flows; the relative standard deviation of a compound Poisson sum is
    # sqrt(E[S²] / (N·E[S]²)) ≈ sqrt(3.4 / 88 000) ≈ 0.6 % for websearch, so 2 % is > 3σ.
    scn = scenario(websearch(load=0.6, stop="10s"), duration="10s")
    fl = flow_list(scn)
    rk = racks("fattree", scn.topology.values)
    src_rack = rk.of_hosts(fl.src)
    assert not np.any(src_rack == rk.of_hosts(fl.dst))
    for r in range(rk.count):
        offered = fl.size[src_rack == r].sum() * 8 / 10.0 / rk.uplink_bps[r]
        assert offered == pytest.approx(0.6, rel=0.02), f"rack {r}"
    # the per-host rate is the artifact's load·25G/4/(8·E[size]) (artifact-notes.md)
    assert len(fl) / 256 / 10.0 == pytest.approx(0.6 * 25e9 / 4 / (8 * 1_711_222.5), rel=0.02)


def test_arrivals_lie_in_start_stop_and_are_sorted():
    fl = flow_list(scenario(websearch(start="5ms", stop="20ms"), duration="30ms"))
    assert fl.start.min() >= 5_000_000_000 and fl.start.max() < 20_000_000_000
    assert np.all(np.diff(fl.start) >= 0)


def test_artifact_destinations():
    # the artifact: uniform in [first host of the own rack, end of the sending racks), only the
    # sender itself excluded — so racks below the sender's are never chosen, its own rack is
    fl = flow_list(scenario(websearch(destinations="artifact", sending_racks=2)))
    first = (fl.src // 32) * 32
    assert set(np.unique(fl.src // 32).tolist()) == {0, 1}
    assert np.all((fl.dst >= first) & (fl.dst < 64) & (fl.dst != fl.src))
    assert np.any(fl.dst // 32 == fl.src // 32)


def test_generation_is_deterministic_per_seed_and_incast_does_not_move_poisson_flows():
    a = flow_list(scenario(websearch(stop="50ms")))
    b = flow_list(scenario(websearch(stop="50ms")))
    assert a.table().keys() == b.table().keys()
    for k, v in a.table().items():
        assert list(v) == list(b.table()[k])
    c = flow_list(scenario(websearch(stop="50ms"), seed=2))
    assert not np.array_equal(a.size[: len(c)], c.size[: len(a)])
    d = flow_list(scenario(websearch(stop="50ms", incast={"rate": 16, "size": "2MB"})))
    pois = np.array([s == "poisson" for s in d.source])
    assert np.array_equal(d.src[pois], a.src) and np.array_equal(d.size[pois], a.size)


def test_incast_requests():
    fl = flow_list(
        scenario({"kind": "incast", "start": "0s", "stop": "1s", "incast": {"rate": 8, "size": "2MB"}})
    )
    assert set(fl.source) == {"incast"}
    n_req = fl.request.max() + 1
    # 256 hosts × 8 requests/s × 1 s = 2048 expected; Poisson σ ≈ 45, so ±5 % is > 2σ
    assert n_req == pytest.approx(2048, rel=0.05)
    for r in range(n_req):
        rows = fl.request == r
        assert rows.sum() == 10
        servers, requester = fl.src[rows], fl.dst[rows]
        assert len(set(servers.tolist())) == 10  # ten distinct servers ...
        assert len(set((servers // 32).tolist())) == 1  # ... of one rack ...
        assert servers[0] // 32 != requester[0] // 32  # ... not the requester's
        assert len(set(requester.tolist())) == 1 and len(set(fl.start[rows].tolist())) == 1
    assert set(fl.size.tolist()) == {200_000}


def test_incast_global_rate_is_spread_over_the_hosts():
    fl = flow_list(scenario({"kind": "incast", "stop": "1s", "incast": {"global_rate": 1000, "size": "1MB"}}))
    assert fl.request.max() + 1 == pytest.approx(1000, rel=0.1)  # σ ≈ 32: ±10 % is 3σ


def test_permutation_and_explicit_flows_keep_their_order_and_source():
    scn = from_dict(
        {
            "name": "p",
            "duration": "1ms",
            "topology": SMALL,
            "cc": {"algorithm": "hpcc"},
            "flows": [{"src": [1, 2], "dst": 0, "size": "10KB"}],
            "workload": {"kind": "permutation"},
        }
    )
    fl = scn.flow_list()
    assert fl.source == ["flows"] * 2 + ["permutation"] * 16
    assert fl.size[:2].tolist() == [10_000, 10_000] and np.all(fl.size[2:] == -1)


SMALL_RUN = {
    "name": "small",
    "duration": "50ms",
    "topology": SMALL,
    "cc": {"algorithm": "hpcc"},
    "workload": {
        "kind": "poisson",
        "cdf": "websearch",
        "load": 0.3,
        "start": "0s",
        "stop": "2ms",
        "incast": {"rate": 200, "size": "400KB", "fan_in": 3},
    },
}


@pytest.mark.engine
def test_run_writes_the_flow_table_and_a_replay_reproduces_the_run(tmp_path):
    scn = from_dict(copy.deepcopy(SMALL_RUN))
    runner.run(scn, tmp_path / "a", progress=False, argv=[])
    table = pq.read_table(tmp_path / "a" / "flows_input.parquet").to_pydict()
    fl = scn.flow_list()
    assert table["src"] == fl.src.tolist() and table["start_ps"] == fl.start.tolist()
    assert set(table["source"]) == {"poisson", "incast"}
    flows = pq.read_table(tmp_path / "a" / "hpcc" / "flows.parquet").to_pydict()
    assert flows["size_bytes"] == table["size_bytes"]
    # stop_when_done (the default of generated workloads): the run ends at the last completion
    summary = runner.results.load(tmp_path / "a").summary["runs"]["hpcc"]["engine"]
    assert all(e > 0 for e in flows["end_ps"])
    assert summary["sim_time_ps"] == max(flows["end_ps"]) < 50_000_000_000

    replay = copy.deepcopy(SMALL_RUN)
    replay["workload"] = {"kind": "replay", "file": str(tmp_path / "a")}
    rscn = from_dict(replay)
    assert rscn.to_engine_config()["flows"] == scn.to_engine_config()["flows"]
    runner.run(rscn, tmp_path / "b", progress=False, argv=[])
    for f in ("flows_input.parquet", "hpcc/flows.parquet", "hpcc/summary.json"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_replay_rejects_a_table_with_a_bad_row(tmp_path):
    import pyarrow as pa

    from dccsim.errors import ScenarioError

    cols = {"src": [0, 1], "dst": [1, 1], "size_bytes": [10, 10], "start_ps": [0, 0]}
    pq.write_table(pa.table(cols), tmp_path / "f.parquet")
    d = copy.deepcopy(SMALL_RUN)
    d["workload"] = {"kind": "replay", "file": str(tmp_path / "f.parquet")}
    with pytest.raises(ScenarioError, match="row 1: src and dst must differ"):
        from_dict(d)


def test_relative_file_paths_are_relative_to_the_scenario_file(tmp_path):
    import tomli_w

    from dccsim.scenario import load

    (tmp_path / "my.cdf").write_text("# sizes\n100 0\n300 1\n")
    d = copy.deepcopy(SMALL_RUN)
    d["workload"] = {**websearch(load=0.5, stop="1ms"), "cdf_file": "my.cdf"}
    del d["workload"]["cdf"]
    (tmp_path / "s.toml").write_text(tomli_w.dumps(d))
    scn = load(tmp_path / "s.toml")
    assert scn.workload.cdf_points == ((100.0, 0.0), (300.0, 1.0))
    assert set(scn.flow_list().size.tolist()) <= set(range(100, 301))
