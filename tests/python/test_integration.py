"""Integration set: the CLI and the front end to end with the compiled engine (marker `engine`).

Without the extension these tests FAIL with a build hint (see conftest.py); deselect them
explicitly with `-m "not engine"` on a machine that has no build.
"""

import json

import pytest
from cli_helpers import DATA, assert_input_error, dccsim

from dccsim import engine, results

pytestmark = pytest.mark.engine


def files(d):
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def incast_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("incast")
    outs = {}
    for label, seed in (("a", 7), ("b", 7)):
        p = dccsim("run", DATA / "incast-small.toml", "--out", base / label, "--seed", seed, "--json")
        assert p.returncode == 0, p.stderr
        outs[label] = (base / label, p)
    return outs


def test_engine_lists_the_paper_algorithms():
    assert {"powertcp", "theta-powertcp", "hpcc"} <= set(engine.algorithms())


def test_run_json_prints_only_the_summary(incast_runs):
    out, p = incast_runs["a"]
    summary = json.loads(p.stdout)  # the whole of stdout is one JSON document
    assert summary == json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["experiment"] == "incast-small" and summary["seed"] == 7
    assert summary["order"] == ["powertcp", "hpcc"] and set(summary["runs"]) == {"powertcp", "hpcc"}
    assert summary["runs"]["hpcc"]["name"] == "HPCC" and summary["runs"]["hpcc"]["algorithm"] == "hpcc"
    assert summary["figures"] == ["incast.png"] and len(summary["claims"]) == 2
    for v in summary["runs"].values():
        assert v["engine"]["events"] > 0
        assert v["metrics"]["peak_queue_bytes"] > 0
    assert "Traceback" not in p.stderr


def test_output_layout_and_load(incast_runs):
    out, _ = incast_runs["a"]
    names = set(files(out))
    for slug in ("powertcp", "hpcc"):
        for f in (
            "flows.parquet",
            "port_series.parquet",
            "flow_series.parquet",
            "ports.parquet",
            "summary.json",
        ):
            assert f"{slug}/{f}" in names
    assert {"summary.json", "scenario.toml", "meta.json", "incast.png"} <= names
    r = results.load(out)
    assert set(r.flows["variant"]) == {"powertcp", "hpcc"}
    assert len(r.flows) == 2 * 11
    assert set(r.port_series["port_name"]) == {"sw0->h0"}
    assert list(r.ports.columns) == ["variant", "port", "name", "rate_bps"] and len(r.ports) == 2
    assert len(r.flow_series) > 0


def test_rerun_is_byte_identical_except_meta(incast_runs):
    a, b = files(incast_runs["a"][0]), files(incast_runs["b"][0])
    assert set(a) == set(b)
    differing = sorted(k for k in a if a[k] != b[k])
    assert differing in ([], ["meta.json"])


def test_another_seed_differs(tmp_path):
    runs = {}
    for seed in (1, 2):
        p = dccsim("run", DATA / "perm-small.toml", "--out", tmp_path / str(seed), "--seed", seed, "--quiet")
        assert p.returncode == 0, p.stderr
        runs[seed] = files(tmp_path / str(seed))
    assert runs[1]["powertcp/flows.parquet"] != runs[2]["powertcp/flows.parquet"]
    r = results.load(tmp_path / "1")
    assert sorted(r.flows["dst"]) == list(range(16))


def test_engine_side_error_exits_2_without_traceback(tmp_path):
    # h9 exists but hangs off tor2, so the port tor0->h9 does not exist: only the engine knows.
    text = (DATA / "perm-small.toml").read_text().replace('ports = ["*"]', 'ports = ["tor0->h9"]')
    f = tmp_path / "bad.toml"
    f.write_text(text)
    p = dccsim("run", f, "--out", tmp_path / "out")
    assert_input_error(p, "metrics.ports")
    assert not (tmp_path / "out").exists()  # nothing is written for input the engine rejects


def test_unknown_cc_parameter_is_reported_by_the_engine(tmp_path):
    text = (
        (DATA / "incast-small.toml")
        .read_text()
        .replace('[cc]\nalgorithm = "powertcp"', '[cc]\nalgorithm = "powertcp"\ngama = 0.9')
    )
    assert "gama" in text
    f = tmp_path / "bad.toml"
    f.write_text(text)
    p = dccsim("run", f, "--out", tmp_path / "out", "--json")
    assert_input_error(p, "cc")
    assert "gama" in p.stderr and p.stdout == ""


def test_bench_json_reports_rates():
    p = dccsim("bench", "--json", "--only", "powertcp-incast/hpcc")
    assert p.returncode == 0, p.stderr
    row = json.loads(p.stdout)["benchmarks"]["powertcp-incast/hpcc"]
    assert row["events"] > 0 and row["events_per_s"] > 0
    assert row["packet_hops_per_s"] >= row["data_packets_delivered_per_s"] > 0
    assert row["peak_rss_mib"] > 0 and row["sim_time_ps"] == 3 * 10**9
    # the phases: setup = front + engine build; build and simulation inside the engine call
    assert row["build_s"] > 0 and row["simulate_s"] > 0 and row["front_s"] > 0
    # each of the three is rounded to 4 decimals on its own: the sum may differ by up to 1.5e-4
    assert abs(row["setup_s"] - (row["front_s"] + row["build_s"])) <= 1.5e-4 + 1e-12
    # each figure is rounded to 1e-4 s (3 roundings: 1.5e-4 at most)
    assert row["build_s"] + row["simulate_s"] <= row["engine_wall_s"] + 1.5e-4
    # rates per second of simulation (simulate_s rounded by 5e-5 s at most, the rate by 0.5)
    assert (
        abs(row["events_per_s"] * row["simulate_s"] - row["events"])
        <= row["events_per_s"] * 5e-5 + row["simulate_s"]
    )


def test_bench_refuses_an_unknown_case():
    p = dccsim("bench", "--only", "no-such-bench")
    assert p.returncode == 2 and "--only" in p.stderr and "bench-fattree-65536-perm" in p.stderr


def test_shared_analysis_end_to_end(tmp_path):
    p = dccsim("run", DATA / "shared-small.toml", "--out", tmp_path / "o", "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["analysis"] == "shared" and s["figures"] == ["shared.png"]
    for slug in ("powertcp", "hpcc"):
        m = s["runs"][slug]["metrics"]
        assert len(m["flow_throughput_bps"]) == 4
        assert 0 < m["jain_index"] <= 1
        assert 0 < m["utilization_pct"] <= 101  # wire bytes over line rate; 1 % slack for the interpolation
    assert (tmp_path / "o" / "shared.png").stat().st_size > 0
