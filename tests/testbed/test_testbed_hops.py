"""The testbed's per-hop measurement (testbed/hops.py, issue 29 item 4): ICMP echo packets, the
per-link arithmetic, the addresses each path's nodes answer at, and what the calibration does with
them. Hand-computed; no root needed (the live measurement is checked by the MPTCP and dumbbell runs
in test_testbed_mptcp.py and test_testbed_flows.py)."""

import dataclasses
import struct

import pytest

from tb_helpers import needs_engine


def _ipv4(payload: bytes, ihl: int = 5) -> bytes:
    """An IPv4 header of `ihl` words (options zero-filled) in front of payload; only the fields
    hops.parse reads are meaningful."""
    head = bytes([0x40 | ihl, 0]) + struct.pack("!H", 4 * ihl + len(payload)) + bytes(16)
    return head + bytes(4 * ihl - 20) + payload


def test_the_rfc_1071_checksum():
    from dccsim.testbed.hops import checksum, echo_request

    # RFC 1071 section 3's example: 0001 f203 f4f5 f6f7 sums (one's complement) to ddf2
    assert checksum(bytes.fromhex("0001f203f4f5f6f7")) == 0xFFFF - 0xDDF2
    pkt = echo_request(0x1234, 7)
    assert pkt[0] == 8 and pkt[1] == 0 and struct.unpack("!HH", pkt[4:8]) == (0x1234, 7)
    assert checksum(pkt) == 0  # a packet with its checksum in place sums to all ones
    assert checksum(echo_request(1, 2, b"odd")) == 0  # an odd length is padded with a zero byte


def test_only_an_echo_reply_is_parsed_whatever_the_ip_header_length():
    from dccsim.testbed.hops import echo_request, parse

    reply = bytes([0, 0, 0, 0]) + struct.pack("!HH", 99, 3) + b"x"
    assert parse(_ipv4(reply)) == (99, 3)
    assert parse(_ipv4(reply, ihl=6)) == (99, 3)  # an IP option in front
    assert parse(_ipv4(echo_request(99, 3))) is None  # our own request, seen on the raw socket
    assert parse(_ipv4(bytes([11, 0, 0, 0, 0, 0, 0, 0]))) is None  # Time Exceeded
    assert parse(_ipv4(reply[:6])) is None and parse(b"\x45" * 10) is None  # truncated


def test_per_link_round_trips_and_one_way_latency_by_hand():
    from dccsim.testbed.hops import ECHO_WIRE_BYTES, link_round_trips, one_way_latency_ns, percentile10

    assert link_round_trips([20, 50, 45, 70]) == [20, 30, 0, 25]  # a nearer far end counts 0
    assert link_round_trips([20, None, 70]) == [20, None, None]  # an unanswered hop ends both its links
    assert percentile10(list(range(100, 0, -1))) == 11 and percentile10([]) is None
    # 53 B on the wire (14 + 20 + 8 + 11 bytes of payload) take 4 240 ns at 100 Mbps each way
    assert ECHO_WIRE_BYTES == 53
    assert one_way_latency_ns(20_000, 100_000_000) == (20_000 - 2 * 4_240) // 2 == 5_760
    assert one_way_latency_ns(5_000, 100_000_000) == 0  # less than the echo's serialization


def test_each_path_node_answers_at_the_address_of_the_link_it_is_reached_by():
    from dccsim.testbed.topology import TwoPath, dumbbell, path_targets, star

    assert path_targets(star(4, 1), 0, 3) == (["h0", "sw0", "h3"], ["10.78.0.1", "10.78.3.2"])
    d = dumbbell(2, 1, 1, 1)
    assert path_targets(d, 0, 2) == (["h0", "sw0", "sw1", "h2"], ["10.78.0.1", "10.79.0.2", "10.78.2.2"])
    assert path_targets(d, 2, 1) == (["h2", "sw1", "sw0", "h1"], ["10.78.2.1", "10.79.0.1", "10.78.1.2"])
    t = TwoPath(1, 1, 1, (2, 1))
    # trunk k of (tor0-path0, tor0-path1, tor1-path0, tor1-path1) is 10.79.k.0/30, .1 on the tor
    assert path_targets(t, 0, 1, 0) == (
        ["h0", "tor0", "path0", "tor1", "h1"],
        ["10.78.0.1", "10.79.0.2", "10.79.2.1", "10.78.1.2"],
    )
    assert path_targets(t, 0, 1, 1) == (
        ["h0", "tor0", "path1", "tor1", "h1"],
        ["10.77.0.1", "10.79.1.2", "10.79.3.1", "10.77.1.2"],
    )
    assert path_targets(t, 1, 0, 1)[1] == ["10.77.1.1", "10.79.3.2", "10.79.1.1", "10.77.0.2"]


def test_each_link_has_the_simulators_delay_key():
    from dccsim.testbed.simside import delay_key

    assert delay_key("h0->sw0") == delay_key("sw0->h3") == delay_key("tor1->h1") == "host_delay"
    assert delay_key("sw0->sw1") == delay_key("sw1->sw0") == "bottleneck_delay"
    assert delay_key("tor0->path1") == delay_key("path1->tor1") == "path1_delay"


# a two-path measurement as runner.measure_tau records it (values from a run on this machine kind)
HOPS = [
    {
        "src": 0,
        "dst": 1,
        "family": fam,
        "links": ["h0->tor0", f"tor0->path{fam}", f"path{fam}->tor1", "tor1->h1"],
        "latency_ns": lat,
    }
    for fam, lat in ((0, [11_401, 25_470, 0, 0]), (1, [14_427, 7_499, 2_125, None]))
]


@needs_engine
def test_two_path_calibration_matches_the_flows_path_and_gives_the_laws_the_testbeds_tau():
    """The simulator's own τ on two-path is its longest path, an idle cross host's over both
    paths; the testbed's is the flow's pair's. Calibrating that longest path to the testbed's τ
    (the method before) left the flow's own round trip 137 µs short at τ = 562 µs."""
    from dccsim.testbed import simside
    from dccsim.testbed.scenario import load

    scn = simside._scenario(load("testbed-mptcp-2path", "1s", "300Mbps"), "dctcp")
    target = 562_000_000
    out, cal = simside.calibrate(scn, target, HOPS)
    assert cal["matched"] and cal["tau_ps"] == pytest.approx(target, abs=4)
    assert simside.sim_path_rtt_ps(out) == cal["tau_ps"]
    assert simside.sim_tau_ps(out) == target  # base_rtt: the laws' τ is the testbed's
    unpinned = dataclasses.replace(out, base_rtt_ps=None)
    assert simside.sim_tau_ps(unpinned) > target + 100_000_000  # the cross hosts' path, left alone
    # switch-to-switch links keep the scenario's 5 µs; the measured latencies stand beside them
    assert out.topology.values["path0_delay"] == out.topology.values["path1_delay"] == 5_000_000
    rows = cal["links"]
    assert [(r["path"], r["link"], r["delay_key"]) for r in rows][:2] == [
        (0, "h0->tor0", "host_delay"),
        (0, "tor0->path0", "path0_delay"),
    ]
    assert rows[1]["testbed_latency_ps"] == 25_470_000 and rows[1]["sim_delay_ps"] == 5_000_000
    assert rows[0]["sim_delay_ps"] == cal["host_delay_ps"] and rows[-1]["testbed_latency_ps"] is None
    lines = simside.hop_lines(rows)
    assert len(lines) == 2 and "tor0->path1 7.5/5.0" in lines[1] and "tor1->h1 -/" in lines[1]
