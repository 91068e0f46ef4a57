"""`metrics.pcap`: packets.parquet and a pcap file of real Ethernet/IPv4/TCP frames that tshark,
tcpdump and scapy decode without a malformed packet, with dccsim's fields in a TCP option and
the INT records in the payload or an Ethernet trailer (docs/results.md, "packets.pcap")."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess

import pyarrow.parquet as pq
import pytest

from cli_helpers import dccsim
from dccsim import pcap

pytestmark = pytest.mark.engine

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

# INT on a 5-switch path with 100-byte payloads: data carry 5 INT records (160 B), more than
# their payload, so they go in the trailer as an ACK's do
FATTREE = """
name = "cap-ft"
duration = "100us"
[topology]
kind = "fattree"
pods = 2
tors_per_pod = 1
aggs_per_pod = 1
cores = 1
servers_per_tor = 2
host_rate = "25Gbps"
host_delay = "1us"
tor_agg_rate = "100Gbps"
tor_agg_delay = "1us"
agg_core_rate = "100Gbps"
agg_core_delay = "1us"
[switch]
int = true
[host]
payload = "100B"
[cc]
algorithm = "hpcc"
[[flows]]
src = [0, 1]
dst = 2
size = "5KB"
[metrics]
pcap = ["tor1->h2", "tor0->h0"]
"""


def _run(tmp, text, *extra):
    (tmp / "s.toml").write_text(text)
    p = dccsim("run", tmp / "s.toml", "--out", tmp / "o", "--no-figures", *extra)
    assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cap")
    _run(tmp, SCENARIO, "--quiet")
    return tmp / "o" / "dctcp"


@pytest.fixture(scope="module")
def ft_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("capft")
    _run(tmp, FATTREE, "--quiet")
    return tmp / "o" / "hpcc"


def _tables(d):
    return {n: pq.read_table(d / f"{n}.parquet").to_pydict() for n in ("packets", "packet_int", "flows")}


def _records(path):
    raw = path.read_bytes()
    magic, major, minor, _, _, snap, link = struct.unpack("<IHHiIII", raw[:24])
    assert (magic, major, minor, link) == (0xA1B23C4D, 2, 4, 1)
    recs, off = [], 24
    while off < len(raw):
        sec, nsec, incl, orig = struct.unpack("<IIII", raw[off : off + 16])
        recs.append((sec * 10**12 + nsec * 1000, orig, raw[off + 16 : off + 16 + incl]))
        off += 16 + incl
    assert off == len(raw)
    return recs


def _int_rows(ints, i):
    return [
        (ints["qlen_bytes"][r], ints["tx_bytes"][r], ints["ts_ps"][r], ints["rate_bps"][r])
        for r in range(len(ints["packet"]))
        if ints["packet"][r] == i
    ]


def _tshark():
    path = shutil.which("tshark")
    if path is None:
        msg = "tshark not installed (apt-get install tshark)"
        if os.environ.get("CI"):
            pytest.fail(msg)  # .ci/run installs it: CI must decode the captures
        pytest.skip(msg)
    return path


def _tshark_fields(path, fields, *extra):
    p = subprocess.run(
        [_tshark(), "-r", str(path), *extra, "-T", "fields", "-E", "occurrence=a"]
        + [a for f in fields for a in ("-e", f)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    return [line.split("\t") for line in p.stdout.splitlines()]


@pytest.mark.parametrize("which", ["run_dir", "ft_dir"])
def test_every_record_is_a_tcp_segment_with_dccsims_option(which, request):
    d = request.getfixturevalue(which)
    t = _tables(d)
    pk, ints = t["packets"], t["packet_int"]
    recs = _records(d / "packets.pcap")
    assert len(recs) == len(pk["time_ps"]) > 0
    assert [r[0] for r in recs] == [x // 1000 * 1000 for x in pk["time_ps"]]  # ns resolution
    trailers = 0
    for i, (_, orig, frame) in enumerate(recs):
        assert frame[12:14] == b"\x08\x00" and frame[14] == 0x45 and frame[23] == 6  # IPv4, TCP
        ip_len = struct.unpack(">H", frame[16:18])[0]
        assert ip_len == 20 + 44 + pk["payload_bytes"][i]
        tcp = frame[34:]
        assert tcp[12] >> 4 == 11  # 44-byte TCP header
        kind, length, exid = struct.unpack(">BBH", tcp[20:24])
        assert (kind, length, exid) == (254, 24, 0xDCC5)
        flow, seq, size, k, prio, hops, _ = struct.unpack(">IQIBBBB", tcp[24:44])
        assert (flow, seq, size, k, prio, hops) == (
            pk["flow_id"][i], pk["seq"][i], pk["size_bytes"][i], pk["kind"][i], pk["prio"][i], pk["int_hops"][i]
        )  # fmt: skip
        # INT records: at the payload's start when it is long enough, else after the IP packet
        n = 32 * hops
        at = 14 + 20 + 44 if pk["payload_bytes"][i] >= n else 14 + ip_len
        trailers += at == 14 + ip_len and n > 0
        got = [struct.unpack(">QQQQ", frame[at + 32 * h : at + 32 * h + 32]) for h in range(hops)]
        assert got == _int_rows(ints, i)
        assert orig == 14 + ip_len + (n if at == 14 + ip_len else 0)
        assert len(frame) == at + n
    assert trailers > 0


def test_ports_and_addresses_make_one_5tuple_per_flow(run_dir):
    pk = _tables(run_dir)["packets"]
    seen = {}
    for i, (_, _, f) in enumerate(_records(run_dir / "packets.pcap")):
        src, dst = f[26:30], f[30:34]
        sport, dport = struct.unpack(">HH", f[34:38])
        if pk["kind"][i] != 0:  # an ACK goes the other way
            src, dst, sport, dport = dst, src, dport, sport
        seen.setdefault(pk["flow_id"][i], set()).add((src, dst, sport, dport))
        assert dst == bytes([10, 0, 0, 2])  # both flows go to h2
    assert all(len(v) == 1 for v in seen.values())
    assert len({next(iter(v)) for v in seen.values()}) == len(seen) == 2


def test_tshark_decodes_every_packet_without_a_malformed_one_and_good_checksums(ft_dir, run_dir):
    for d in (run_dir, ft_dir):
        rows = _tshark_fields(
            d / "packets.pcap",
            ["frame.protocols", "ip.checksum.status", "tcp.checksum.status", "_ws.malformed", "_ws.expert"],
            "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
        )  # fmt: skip
        assert len(rows) == len(_tables(d)["packets"]["time_ps"])
        for proto, ip_ok, tcp_ok, malformed, expert in rows:
            assert proto.startswith("eth:ethertype:ip:tcp"), proto
            assert malformed == "" and expert == ""  # no malformed packet, no expert warning at all
            assert ip_ok == "1"  # good
            assert tcp_ok in ("1", "2")  # good, or unverified: a data frame's payload is not stored
        assert any(r[2] == "1" for r in rows)  # frames stored whole (ACKs) are verified


def test_tshark_sequence_numbers_match_the_flow_records(run_dir):
    t = _tables(run_dir)
    pk, flows = t["packets"], t["flows"]
    fields = ["tcp.seq_raw", "tcp.ack_raw", "tcp.len", "ip.dsfield.ecn", "tcp.flags.ece"]
    rows = [r[:4] + [r[4] in ("1", "True")] for r in _tshark_fields(run_dir / "packets.pcap", fields)]
    assert len(rows) == len(pk["seq"])
    end = {}
    for i, (seq, ack, n, ecn, ece) in enumerate(rows):
        assert int(ecn) == pk["ecn"][i] and ece == (pk["ece"][i] == 1)
        if pk["kind"][i] == 0:
            assert int(seq) == pk["seq"][i] % 2**32 and int(n) == pk["payload_bytes"][i]
            f = pk["flow_id"][i]
            end[f] = max(end.get(f, 0), int(seq) + int(n))
        else:
            assert int(ack) == pk["seq"][i] % 2**32 and int(n) == 0
    # every byte of each 50 KB flow crossed sw0->h2, and the last ACK acknowledges it all
    assert end == dict(zip(flows["flow_id"], flows["size_bytes"]))
    last_ack = {}
    for i, (seq, ack, n, ecn, ece) in enumerate(rows):
        if pk["kind"][i] == 1:
            last_ack[pk["flow_id"][i]] = int(ack)
    assert last_ack == end
    # the 5 KB step marks some data CE (3) on the congested sw0->h2; tshark reads the IP bits
    assert {r[3] for r, k in zip(rows, pk["kind"]) if k == 0} == {"2", "3"}
    # DCTCP's receiver echoes the marks: some ACKs carry ECE, data never does
    assert any(r[4] for r, k in zip(rows, pk["kind"]) if k == 1)
    assert not any(r[4] for r, k in zip(rows, pk["kind"]) if k == 0)


@pytest.mark.parametrize("which", ["run_dir", "ft_dir"])
def test_lua_dissector_decodes_dccsims_fields_and_int(which, request):
    ft_dir = request.getfixturevalue(which)  # INT in the payload (run_dir's data) or a trailer
    lua = pcap.LUA
    assert lua.is_file()
    t = _tables(ft_dir)
    pk, ints = t["packets"], t["packet_int"]
    fields = ["dccsim.flow", "dccsim.kind", "dccsim.seq", "dccsim.size", "dccsim.int_hops"]
    fields += ["dccsim.int.qlen", "dccsim.int.tx_bytes", "dccsim.int.ts_ps", "dccsim.int.rate_bps"]
    version = subprocess.run([_tshark(), "-v"], capture_output=True, text=True).stdout
    if "with Lua" not in version:
        pytest.skip("this tshark is built without Lua")
    rows = _tshark_fields(ft_dir / "packets.pcap", fields, "-X", f"lua_script:{lua}")
    assert len(rows) == len(pk["time_ps"])
    for i, r in enumerate(rows):
        assert [int(x) for x in r[:5]] == [
            pk[c][i] for c in ("flow_id", "kind", "seq", "size_bytes", "int_hops")
        ]
        hops = [tuple(int(x) for x in col.split(",")) if col else () for col in r[5:]]
        assert list(zip(*hops)) == _int_rows(ints, i)
    # the whole path: 5 switches on the fat tree, 1 on the star, on data and ACKs
    assert {int(r[4]) for r in rows} == {5 if which == "ft_dir" else 1}


def test_scapy_reads_it_and_recomputes_the_same_checksums(run_dir):
    from scapy.all import IP, TCP, Ether, rdpcap

    t = _tables(run_dir)
    pk = t["packets"]
    pkts = rdpcap(str(run_dir / "packets.pcap"))
    assert len(pkts) == len(pk["time_ps"])
    for i, p in enumerate(pkts):
        assert int(p.time * 10**9) == pk["time_ps"][i] // 1000  # ns timestamps (scapy: Decimal s)
        assert p[IP].tos & 3 == pk["ecn"][i]
        # rebuild the whole segment (payload: the stored INT bytes, then zeros) and let scapy
        # compute both checksums
        payload = bytes(p[TCP].payload)[: pk["payload_bytes"][i]]
        full = payload + bytes(pk["payload_bytes"][i] - len(payload))
        ip = p[IP].copy()
        ip[TCP].remove_payload()
        del ip.chksum, ip[TCP].chksum, ip.len
        again = IP(bytes(ip / full))
        assert (again.chksum, again[TCP].chksum) == (p[IP].chksum, p[TCP].chksum)
        assert isinstance(p, Ether)


def test_cli_pcap_flag_budget_and_where_it_went(tmp_path):
    """`dccsim run --pcap PORT` captures like `metrics.pcap`, and `metrics.pcap_max` bounds the
    capture: exactly that many records in the pcap and in packets.parquet, the rest counted in
    the engine summary's `capture_overflow` (so a capture cannot fill a disk). The run names the
    pcap in one line on stderr; stdout stays the JSON summary."""
    text = SCENARIO.replace('pcap = ["sw0->h2", "h2->sw0"]', "pcap_max = 50")
    p = _run(tmp_path, text, "--pcap", "sw0->h2", "--json")
    d = tmp_path / "o" / "dctcp"
    t = pq.read_table(d / "packets.parquet").to_pydict()
    assert len(t["time_ps"]) == 50
    assert set(t["port"]) == {t["port"][0]}  # the one port asked for on the command line
    assert len(_records(d / "packets.pcap")) == 50
    engine = json.loads(p.stdout)["runs"]["dctcp"]["engine"]
    # 100 data packets of two 50 KB flows leave sw0->h2 (the full capture test counts them)
    assert engine["capture_overflow"] == 100 - 50
    lines = [x for x in p.stderr.splitlines() if "packets.pcap" in x]
    assert len(lines) == 1 and str(d / "packets.pcap") in lines[0] and "dccsim.lua" in lines[0]


@pytest.mark.skipif(shutil.which("tcpdump") is None, reason="tcpdump not installed (apt install tcpdump)")
def test_tcpdump_reads_it_and_finds_no_bad_checksum(run_dir):
    p = subprocess.run(
        ["tcpdump", "-nn", "-v", "-r", str(run_dir / "packets.pcap")], capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr
    lines = [line for line in p.stdout.splitlines() if " > 10.0." in line]
    assert len(lines) == 200
    assert "bad cksum" not in p.stdout
    assert any("10.0.0.0.57344 > 10.0.0.2.61440: Flags [.]" in line for line in lines)
