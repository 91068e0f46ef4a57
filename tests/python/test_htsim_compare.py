"""The htsim comparison driver (tools/htsim_compare/htsim_compare.py): its export and its parser.

htsim itself does not run here; the formats are those of its source (Broadcom/csg-htsim 841d9e7,
sim/datacenter/connection_matrix.cpp and main_swift.cpp, sim/swift.cpp).
"""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest
from cli_helpers import dccsim, load_script

SCENARIO = """
name = "htsim-small"
seed = 3
duration = "600us"

[topology]
kind = "fattree"
pods = 4
tors_per_pod = 2
aggs_per_pod = 2
cores = 4
servers_per_tor = 2
host_rate = "100Gbps"
host_delay = "1us"
tor_agg_rate = "100Gbps"
tor_agg_delay = "1us"
agg_core_rate = "100Gbps"
agg_core_delay = "1us"

[host]
payload = "1000B"
header = "48B"

[cc]
algorithm = "swift"

[workload]
kind = "poisson"
stop = "500us"
cdf = "websearch"
load = 0.5

[metrics]
ports = []
"""


@pytest.fixture(scope="module")
def hc():
    return load_script("tools/htsim_compare/htsim_compare.py", "htsim_compare")


def test_a_flow_is_written_as_the_same_packets_on_the_wire(hc):
    # 1000 B of payload per 1048 B packet: 1 B → one packet, 1000 B → one, 1001 B → two
    sizes = np.array([1, 1000, 1001, 63977])
    assert list(hc.wire_size(sizes, 1000, 48)) == [1048, 1048, 2096, 64 * 1048]


def test_connection_matrix_starts_in_whole_microseconds(hc):
    text = hc.cm_text(16, [0, 5], [3, 9], [999_999, 2_000_000], [1048, 2096])
    # main_swift.cpp starts a flow at timeFromUs((uint32_t)start): the file holds whole µs
    assert text == "Nodes 16\nConnections 2\n0->3 id 1 start 0 size 1048\n5->9 id 2 start 2 size 2096\n"


def test_replay_scenario_keeps_everything_but_the_workload(hc):
    text = '[topology]\nkind = "fattree"\n\n[workload]\nkind = "poisson"\nload = 0.5\n\n[workload.incast]\nrate = 1\n\n[metrics]\nports = []\n\n[experiment]\nx = 1\n'
    out = hc.replay_scenario(text)
    assert (
        out
        == '[topology]\nkind = "fattree"\n\n[metrics]\nports = []\n\n[workload]\nkind = "replay"\nfile = "flows_input.parquet"\n'
    )


def test_parser_reads_the_finished_lines_only(hc):
    text = "Logging to x\nFlow swift_746_941 finished at 13.3606 total bytes 11528\nSrc, sent: 12\n"
    assert hc.parse_htsim(text) == [(746, 941, 13.3606, 11528)]


@pytest.mark.engine
def test_export_replays_the_same_starts_and_compare_pairs_every_flow(hc, tmp_path):
    (tmp_path / "s.toml").write_text(SCENARIO)
    p = dccsim("run", "s.toml", "--out", "gen", "--no-figures", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    n = hc.export(tmp_path / "gen", tmp_path / "x")
    assert n > 5
    cm = (tmp_path / "x" / "flows.cm").read_text().splitlines()
    assert cm[:2] == ["Nodes 16", f"Connections {n}"]
    replay = pq.read_table(tmp_path / "x" / "flows_input.parquet").to_pydict()
    assert all(t % 1_000_000 == 0 for t in replay["start_ps"])
    p = dccsim("run", "x/replay.toml", "--out", "replay", "--no-figures", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    flows = pq.read_table(next((tmp_path / "replay").glob("*/flows.parquet"))).to_pydict()
    assert sorted(flows["start_ps"]) == sorted(replay["start_ps"])
    # an htsim stdout as SwiftSrc prints it: every flow of the matrix done 10 µs after its start,
    # its acknowledgement number one 1048-B packet past its size
    lines = []
    for line in cm[2:]:
        pair, _, _, _, start, _, size = line.split()
        s, d = pair.split("->")
        lines.append(f"Flow swift_{s}_{d} finished at {int(start) + 10} total bytes {int(size) + 1048}")
    out = tmp_path / "htsim.out"
    out.write_text("\n".join(lines) + "\n")
    size, ours, theirs = hc.fct_us(tmp_path / "replay", out)
    assert np.allclose(theirs, 10.0)  # every flow paired, FCT from its own start
    assert len(size) == n
    text = hc.compare(tmp_path / "replay", out)
    assert f"htsim {n} of {n}" in text
    # htsim's column of every group it has flows in is its 10 µs, at p50 and p99 alike
    groups = [line for line in text.splitlines()[2:] if "| 0 |" not in line]
    assert groups and all(g.split(" | ")[2].endswith("/ 10.0*") for g in groups)  # * : < 10 flows above
    # a line that names no flow of the run is refused in one line
    out.write_text("Flow swift_0_1 finished at 5 total bytes 7\n")
    with pytest.raises(hc.CompareError, match="not in the run"):
        hc.fct_us(tmp_path / "replay", out)
