"""`metrics.pcap`: packets.parquet and a pcap file that tcpdump reads with valid headers."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

SCENARIO = """
name = "cap"
duration = "200us"
[topology]
kind = "star"
hosts = 3
host_rate = "25Gbps"
host_delay = "1us"
[switch]
ecn = { kind = "step", k = "5KB" }
[cc]
algorithm = "dctcp"
[[flows]]
src = [0, 1]
dst = 2
size = "50KB"
[metrics]
pcap = ["sw0->h2", "h2->sw0"]
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cap")
    (tmp / "s.toml").write_text(SCENARIO)
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "dccsim",
            "run",
            str(tmp / "s.toml"),
            "--out",
            str(tmp / "o"),
            "--no-figures",
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    return tmp / "o" / "dctcp"


def test_the_pcap_holds_every_captured_packet_in_order(run_dir):
    t = pq.read_table(run_dir / "packets.parquet").to_pydict()
    raw = (run_dir / "packets.pcap").read_bytes()
    magic, major, minor, _, _, snap, link = struct.unpack("<IHHiIII", raw[:24])
    assert (magic, major, minor, link) == (0xA1B23C4D, 2, 4, 1)
    recs, off = [], 24
    while off < len(raw):
        sec, nsec, incl, orig = struct.unpack("<IIII", raw[off : off + 16])
        frame = raw[off + 16 : off + 16 + incl]
        recs.append((sec * 10**12 + nsec * 1000, orig, frame))
        off += 16 + incl
    assert off == len(raw)
    # 100 data packets to h2 (sw0->h2) and 100 ACKs from h2 (h2->sw0)
    assert len(recs) == len(t["time_ps"]) == 200
    assert [r[0] for r in recs] == [x // 1000 * 1000 for x in t["time_ps"]]  # ns resolution
    # original length: the size on the wire, or the synthetic frame's when larger (60-byte ACKs)
    from dccsim.pcap import SNAP

    assert [r[1] for r in recs] == [max(s, SNAP) for s in t["size_bytes"]]
    kinds = [r[2][14 + 20 + 8 + 4] for r in recs]
    assert kinds.count(0) == 100 and kinds.count(1) == 100
    # data goes to 10.0.0.2, ACKs come from it
    for (_, _, frame), k in zip(recs, kinds):
        dst_ip = frame[14 + 16 : 14 + 20]
        src_ip = frame[14 + 12 : 14 + 16]
        assert (dst_ip if k == 0 else src_ip) == bytes([10, 0, 0, 2])


@pytest.mark.skipif(shutil.which("tcpdump") is None, reason="tcpdump not installed (apt install tcpdump)")
def test_tcpdump_reads_it_and_finds_no_bad_checksum(run_dir):
    p = subprocess.run(
        ["tcpdump", "-nn", "-v", "-r", str(run_dir / "packets.pcap")], capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr
    lines = [line for line in p.stdout.splitlines() if " > 10.0." in line]
    assert len(lines) == 200
    assert "bad cksum" not in p.stdout
    assert any("10.0.0.0.0 > 10.0.0.2.4791: UDP" in line for line in lines)


def test_ecn_codepoints_are_ip_codepoints(run_dir):
    t = pq.read_table(run_dir / "packets.parquet").to_pydict()
    data = [e for e, k in zip(t["ecn"], t["kind"]) if k == 0]
    # data is ECT(0) (2), and the 5 KB step marks some of it CE (3) on the congested sw0->h2
    assert set(data) <= {2, 3} and 3 in data
    assert {e for e, k in zip(t["ecn"], t["kind"]) if k == 1} == {0}


def test_scapy_reads_timestamps_ecn_and_the_int_shim_back(run_dir):
    from scapy.all import IP, UDP, rdpcap

    t = pq.read_table(run_dir / "packets.parquet").to_pydict()
    ints = pq.read_table(run_dir / "packet_int.parquet").to_pydict()
    flows = pq.read_table(run_dir / "flows.parquet").to_pydict()
    pkts = rdpcap(str(run_dir / "packets.pcap"))
    assert len(pkts) == len(t["time_ps"])
    data_per_flow = {}
    for i, p in enumerate(pkts):
        assert int(p.time * 10**9) == t["time_ps"][i] // 1000  # ns timestamps (scapy: Decimal s)
        assert p[IP].tos & 3 == t["ecn"][i]
        assert p[UDP].dport == 4791 and p[UDP].sport == t["flow_id"][i]
        shim = bytes(p[UDP].payload)
        flow, kind, prio, hops = struct.unpack(">IBBB", shim[:7])
        assert (flow, kind, hops) == (t["flow_id"][i], t["kind"][i], t["int_hops"][i])
        if kind == 0:
            data_per_flow[flow] = data_per_flow.get(flow, 0) + 1
        for h in range(hops):
            q, tx, ts, rate = struct.unpack(">QQQQ", shim[16 + 32 * h : 48 + 32 * h])
            row = [j for j, (pk, hp) in enumerate(zip(ints["packet"], ints["hop"])) if pk == i and hp == h][0]
            assert (q, tx, ts, rate) == (
                ints["qlen_bytes"][row],
                ints["tx_bytes"][row],
                ints["ts_ps"][row],
                ints["rate_bps"][row],
            )
            assert rate == 25_000_000_000
    # against the flow records: every data packet of each 50 KB flow (1000-byte payloads, no loss)
    # crossed sw0->h2 once
    assert data_per_flow == {f: s // 1000 for f, s in zip(flows["flow_id"], flows["size_bytes"])}
    # data leaving the switch carries the switch's INT record; the ACKs echo it
    assert set(t["int_hops"]) == {1}
    marked = sum(1 for p in pkts if p[IP].tos & 3 == 3)
    assert marked == t["ecn"].count(3) > 0


def test_cli_pcap_flag_and_packet_budget(tmp_path):
    """`dccsim run --pcap PORT` captures like `metrics.pcap`, and `metrics.pcap_max` bounds the
    capture: exactly that many records in the pcap and in packets.parquet, the rest counted in
    the engine summary's `capture_overflow` (so a capture cannot fill a disk)."""
    import json

    text = SCENARIO.replace('pcap = ["sw0->h2", "h2->sw0"]', "pcap_max = 50")
    (tmp_path / "s.toml").write_text(text)
    p = subprocess.run(
        [sys.executable, "-m", "dccsim", "run", str(tmp_path / "s.toml"), "--pcap", "sw0->h2"]
        + ["--out", str(tmp_path / "o"), "--no-figures", "--json"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    d = tmp_path / "o" / "dctcp"
    t = pq.read_table(d / "packets.parquet").to_pydict()
    assert len(t["time_ps"]) == 50
    assert set(t["port"]) == {t["port"][0]}  # the one port asked for on the command line
    raw = (d / "packets.pcap").read_bytes()
    n, off = 0, 24
    while off < len(raw):
        incl = struct.unpack("<I", raw[off + 8 : off + 12])[0]
        off += 16 + incl
        n += 1
    assert n == 50 and off == len(raw)
    engine = json.loads(p.stdout)["runs"]["dctcp"]["engine"]
    # 100 data packets of two 50 KB flows leave sw0->h2 (the full capture test counts them)
    assert engine["capture_overflow"] == 100 - 50
