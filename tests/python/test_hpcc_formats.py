"""Migrating from the HPCC/PowerTCP ns-3 simulators (issue 26 item 8): their topology, flow and
FCT files in and out of dccsim, and the fabric profiles named after each simulator."""

from __future__ import annotations

import numpy as np
import pytest

from cli_helpers import assert_input_error, dccsim
from dccsim import engine, experiments, topology
from dccsim.hpcc import fct, flows, topology as hpcc_topology
from dccsim.scenario import dump_toml, load, loads

pytestmark = pytest.mark.engine

# four hosts (nodes 0..3) on one switch (node 4), the rate and delay in the spellings ns-3 takes
TOPO = """5 1 4
4
0 4 100Gbps 1000ns 0
1 4 100Gbps 0.001ms 0
2 4 100Gb/s 1us 0
3 4 100Gbps 1000ns 0.000000
"""
# traffic_gen's format; its first line may carry a trailing space (it rewrites the count in place)
FLOWS = (
    "3 \n"
    + """0 1 3 100 50000 2.000000000
2 1 3 100 20000 2.000001000
3 0 3 100 1000 2.000010000
"""
)


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_topology_file_imports_to_an_engine_graph_with_its_hosts_and_links(tmp_path):
    t = hpcc_topology.load(_write(tmp_path, "topology.txt", TOPO))
    table = t.scenario_table()
    assert (table["hosts"], table["switches"], len(table["links"])) == (4, 1, 4)
    values = {"hosts": 4, "switches": 1, "links": ()}
    hosts, names, _ = topology.facts("custom", values)
    assert hosts == 4 and set(names) == {"h0", "h1", "h2", "h3", "s0"}
    p = dccsim(
        "import", "hpcc-topology", tmp_path / "topology.txt", "--flows", _write(tmp_path, "f.txt", FLOWS)
    )
    assert p.returncode == 0, p.stderr
    scn = loads(p.stdout)
    cfg = scn.to_engine_config(None)
    assert engine.topology_facts(cfg["topology"])[0] == 4
    assert engine.topology_facts(cfg["topology"])[2] == 8  # two egress ports per link
    links = {(x["a"], x["b"]): (x["rate_bps"], x["delay_ps"]) for x in cfg["topology"]["links"]}
    assert links[("h1", "s0")] == (100_000_000_000, 1_000_000)  # 0.001ms
    assert links[("h2", "s0")] == (100_000_000_000, 1_000_000)  # 100Gb/s, 1us


def test_hosts_are_the_non_switch_nodes_in_id_order(tmp_path):
    # a switch numbered first: node 1 is h0, node 2 is h1
    t = hpcc_topology.load(_write(tmp_path, "t.txt", "3 1 2\n0\n0 1 10Gbps 1us 0\n0 2 10Gbps 1us 0\n"))
    assert t.hosts == (1, 2) and t.name(0) == "s0" and t.name(2) == "h1"
    got, unread = flows.load(_write(tmp_path, "f.txt", "1\n2 1 3 100 1000 0.000000001\n"))
    assert unread == ""
    table = flows.scenario(t, got, "x")
    assert table["flows"] == [{"src": 1, "dst": 0, "size": "1000B", "start": "1ns"}]


def test_flow_file_imports_as_a_static_flow_list_with_exact_start_times(tmp_path):
    topo = _write(tmp_path, "topology.txt", TOPO)
    out = tmp_path / "imported.toml"
    p = dccsim("import", "hpcc-flows", _write(tmp_path, "flow.txt", FLOWS), "--topology", topo, "-o", out)
    assert p.returncode == 0, p.stderr
    scn = load(out)
    got = [(f.src, f.dst, f.size_bytes, f.start_ps) for f in scn.flows]
    assert got == [
        (0, 1, 50000, 2 * 10**12),
        (2, 1, 20000, 2 * 10**12 + 10**6),
        (3, 0, 1000, 2 * 10**12 + 10**7),
    ]
    assert scn.cc.algorithm == "hpcc" and scn.switch.buffer_bytes == 32 * 2**20  # the hpcc-ns3 profile
    assert scn.duration_ps == 4 * 10**12  # run.py's SIMULATOR_STOP_TIME


def test_fct_export_then_import_gives_the_same_records(tmp_path):
    topo = _write(tmp_path, "topology.txt", TOPO)
    scn_file = tmp_path / "s.toml"
    assert (
        dccsim(
            "import", "hpcc-flows", _write(tmp_path, "f.txt", FLOWS), "--topology", topo, "-o", scn_file
        ).returncode
        == 0
    )
    run = tmp_path / "run"
    p = dccsim("run", scn_file, "--out", run, "--quiet", "--no-figures")
    assert p.returncode == 0, p.stderr
    p = dccsim("export", run, "--format", "hpcc-fct", "--topology", topo, "-o", tmp_path / "fct.txt")
    assert p.returncode == 0, p.stderr
    lines = (tmp_path / "fct.txt").read_text().splitlines()
    assert len(lines) == 3
    by_size = {line.split()[4]: line.split() for line in lines}
    sip, dip, sport, dport, size, start, dur, ideal = by_size["1000"]
    # node 3 -> node 0: 11.0.3.1 -> 11.0.0.1, the pair's first source port, traffic_gen's port
    assert (sip, dip, sport, dport) == ("0b000301", "0b000001", "10000", "100")
    ends = [int(x[5]) + int(x[6]) for x in map(str.split, lines)]
    assert ends == sorted(ends)  # written in completion order, as the simulator does
    assert int(start) == 2_000_010_000 and int(dur) > 0 and int(ideal) > 0
    p = dccsim("import", "hpcc-fct", tmp_path / "fct.txt", "--topology", topo, "-o", tmp_path / "fct.parquet")
    assert p.returncode == 0, p.stderr
    import pyarrow.parquet as pq

    back = pq.read_table(tmp_path / "fct.parquet").to_pydict()
    orig = pq.read_table(run / "hpcc" / "flows.parquet").to_pydict()
    ns = lambda x: (x + 500) // 1000 * 1000  # noqa: E731  (the format's nanoseconds)
    want = sorted(
        (s, d, z, ns(a), ns(e), ns(i))
        for s, d, z, a, e, i in zip(
            orig["src"],
            orig["dst"],
            orig["size_bytes"],
            orig["start_ps"],
            orig["end_ps"],
            orig["ideal_fct_artifact_ps"],
        )
    )
    have = sorted(
        zip(
            back["src"],
            back["dst"],
            back["size_bytes"],
            back["start_ps"],
            back["end_ps"],
            back["ideal_fct_artifact_ps"],
        )
    )
    assert have == want
    # the imported table is one the fct analysis reads
    from dccsim.analysis import fct as fct_analysis

    size, slow, unfinished = fct_analysis.measured(back, 0)
    assert len(slow) == 3 and unfinished == 0 and (slow > 0).all()


def test_fct_lines_are_the_simulators_format():
    cols = {
        "flow_id": np.array([0, 1, 2]),
        "src": np.array([0, 0, 300]),
        "dst": np.array([5, 5, 1]),
        "size_bytes": np.array([1000, 2000, 3000]),
        "start_ps": np.array([1_000_000, 2_000_000, 0]),
        "end_ps": np.array([9_000_000, 5_000_400, -1]),
        "ideal_fct_artifact_ps": np.array([2_000_000, 2_500_000, 3_000_000]),
    }
    assert fct.write_lines(cols) == [
        "0b000001 0b000501 10001 100 2000 2000 3000 2500",  # finishes first; the pair's second start
        "0b000001 0b000501 10000 100 1000 1000 8000 2000",
    ]  # the unfinished flow is not written (the simulator writes a line at completion)
    assert fct.ip_node(fct.node_ip(300)) == 300 and fct.node_ip(300) == 0x0B012C01  # 11.1.44.1


@pytest.mark.parametrize(
    "text,where,what",
    [
        ("5 1 4\n4\n0 4 100Gbps 1000ns 0.01\n", "t.txt:3", "error rate"),
        ("5 1 1\n4\n0 9 100Gbps 1000ns 0\n", "t.txt:3", "two distinct nodes"),
        ("5 1 1\n4\n0 4 fast 1000ns 0\n", "t.txt:3", "rate"),
        ("5 1 2\n4\n0 4 100Gbps 1000ns 0\n", "t.txt:end", "ended before link 2"),
    ],
)
def test_a_bad_topology_file_is_one_line_naming_file_and_line(tmp_path, text, where, what):
    p = dccsim("import", "hpcc-topology", _write(tmp_path, "t.txt", text))
    assert_input_error(p, str(tmp_path / where))
    assert what in p.stderr


def test_a_flow_between_a_host_and_a_switch_is_refused(tmp_path):
    topo = _write(tmp_path, "t.txt", TOPO)
    p = dccsim("import", "hpcc-flows", _write(tmp_path, "f.txt", "1\n0 4 3 100 1000 0\n"), "--topology", topo)
    assert_input_error(p, str(tmp_path / "f.txt:2"))
    assert "node 4 is a switch" in p.stderr


def test_a_bad_fct_line_names_its_line(tmp_path):
    p = dccsim(
        "import",
        "hpcc-fct",
        _write(tmp_path, "fct.txt", "0b000001 0b000101 10000 100 1000 0 10\n"),
        "-o",
        tmp_path / "x.parquet",
    )
    assert_input_error(p, str(tmp_path / "fct.txt:1"))


# --- profiles


def _cfg(profile: str, cc: str = "hpcc"):
    text = experiments.text("powertcp-incast").replace(
        "[topology]", f'[fabric]\nprofile = "{profile}"\n\n[topology]', 1
    )
    # the file's own fabric keys out, so that the profile's show
    for key in ('buffer = "4MiB"\n', 'int_bytes = "tx"\n', 'ecn = { kind = "none" }\n'):
        assert key in text
        text = text.replace(key, "")
    scn = loads(text)
    return scn, scn.to_engine_config(scn.variant(cc))


def test_the_hpcc_ns3_profile_is_the_hpcc_simulators_run_py():
    scn, cfg = _cfg("hpcc-ns3")
    sw = cfg["switch"]
    assert sw["buffer_bytes"] == 32 * 2**20 and sw["int_bytes_mode"] == "tx" and sw["pfc"]["model"] == "hpcc"
    assert cfg["host"]["nic"] == "rdma-study"
    hpcc = scn.variant("hpcc").cc.params
    assert (hpcc["law"], hpcc["max_stage"], hpcc["min_rate_bps"]) == ("hpcc-artifact", 0, 1e9)
    # the written scenario holds the profile's values
    text = dump_toml(scn)
    assert "min_rate_bps = 1000000000.0" in text


def test_profile_defaults_never_override_the_files_controller_keys():
    text = experiments.text("powertcp-incast").replace(
        "[topology]", '[fabric]\nprofile = "hpcc-ns3"\n\n[topology]', 1
    )
    text = text.replace(
        '{ name = "HPCC", cc = { algorithm = "hpcc" } }',
        '{ name = "HPCC", cc = { algorithm = "hpcc", min_rate_bps = 5e8 } }',
    )
    assert "min_rate_bps = 5e8" in text
    assert loads(text).variant("hpcc").cc.params["min_rate_bps"] == 5e8


def test_artifact_is_the_old_name_of_powertcp_ns3_with_a_warning(capsys):
    from dccsim.scenario import profiles

    profiles._warned.clear()
    _, old = _cfg("artifact")
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and '"powertcp-ns3"' in err
    _, new = _cfg("powertcp-ns3")
    assert old == new
    assert new["switch"]["buffer_bytes"] == 4 * 2**20 and new["switch"]["int_bytes_mode"] == "rx"
    _, again = _cfg("artifact")
    assert capsys.readouterr().err == ""  # once per run


def test_text_after_the_announced_links_is_reported_not_read(tmp_path):
    # the artifact's own mix/topology.txt has more links and notes below the announced ones;
    # the simulator reads no further, and neither does the import (it says so)
    p = dccsim("import", "hpcc-topology", _write(tmp_path, "t.txt", TOPO + "0 9 1Gbps 1us 0\nnotes here\n"))
    assert p.returncode == 0, p.stderr
    assert f"{tmp_path / 't.txt'}:7: not read" in p.stderr
    scn = loads(p.stdout)
    assert len(scn.topology.values["links"]) == 4
    # no flow file: a permutation of long flows, said on stderr
    assert scn.workload.kind == "permutation" and "no flows given" in p.stderr
