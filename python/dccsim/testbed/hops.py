"""Per-hop round trips of a testbed path (issue 29 item 4): ICMP Echo Requests (RFC 792) from the
source host's namespace to each node of the path, each at its address on the link the path reaches
it by (topology.path_targets), the last being the destination host. The round trip to node k less
the round trip to node k−1 is what link k adds to a round trip: both directions of the link and
the forwarding at its near end. Echo Requests rather than a traceroute's TTL-expired probes:
Linux rate-limits Time Exceeded per destination by default (`net.ipv4.icmp_ratelimit`), Echo
Replies not.

Send instants are taken just before `sendto`, receive instants from the kernel (SO_TIMESTAMPNS),
both on CLOCK_REALTIME. A hop's value is the 10th percentile over rounds, as τ's probe takes it.
What this resolves on a 2-core machine (docs/testbed.md, "Per-hop delays"): a request's round trip
depends on the CPUs' state by tens of µs (its place in a round alone moved one by 28 µs), so a
link's own share is not resolved; the path's whole ICMP round trip is.
"""

from __future__ import annotations

import random
import select
import socket
import struct
import time

from .nsutil import socket_in

ECHO_REQUEST = 8
ECHO_REPLY = 0
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
PAYLOAD = b"dccsim-hops"
ECHO_WIRE_BYTES = 14 + 20 + 8 + len(PAYLOAD)  # Ethernet + IPv4 + ICMP + payload, as tbf counts it
REPLY_TIMEOUT_S = 0.05  # a hop that has not answered in 50 ms is counted as lost for that round


def checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071): one's complement of the one's-complement sum of 16-bit words."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def echo_request(ident: int, seq: int, payload: bytes = PAYLOAD) -> bytes:
    """An ICMP Echo Request (type 8, code 0) with its checksum."""
    head = struct.pack("!BBHHH", ECHO_REQUEST, 0, 0, ident, seq)
    csum = checksum(head + payload)
    return struct.pack("!BBHHH", ECHO_REQUEST, 0, csum, ident, seq) + payload


def parse(datagram: bytes) -> tuple[int, int] | None:
    """(ident, seq) of an Echo Reply in an IPv4 datagram a raw ICMP socket received; None for
    any other ICMP message."""
    if len(datagram) < 20:
        return None
    icmp = datagram[(datagram[0] & 0x0F) * 4 :]
    if len(icmp) < 8 or icmp[0] != ECHO_REPLY:
        return None
    ident, seq = struct.unpack("!HH", icmp[4:8])
    return ident, seq


def percentile10(samples: list[int]) -> int | None:
    """The 10th percentile as τ's probe takes it (the sample at index len/10 of the sorted list)."""
    if not samples:
        return None
    s = sorted(samples)
    return s[len(s) // 10]


def one_way_latency_ns(link_rtt_ns: int, rate_bps: int) -> int:
    """A link's one-way latency beyond serialization: its round-trip share less the echo's
    serialization at the link's rate in each direction, halved (at least 0). This is what the
    simulator's link `delay` is (topo/rtt.rs: a link adds 2·delay + the two packets' transmission
    times to a round trip)."""
    ser = ECHO_WIRE_BYTES * 8 * 1_000_000_000 // rate_bps
    return max(0, link_rtt_ns - 2 * ser) // 2


def link_round_trips(hop_rtt_ns: list[int | None]) -> list[int | None]:
    """Per link: the round trip to its far end less the round trip to its near end (0 for the source
    host), at least 0; None where either end was not measured."""
    out: list[int | None] = []
    prev: int | None = 0
    for r in hop_rtt_ns:
        out.append(None if r is None or prev is None else max(0, r - prev))
        prev = r
    return out


class Tracer:
    """A raw ICMP socket in the source host's namespace, bound to the source address (which picks
    the path on two-path: a path-1 address is routed over path 1). `round()` sends one Echo Request
    to each target in turn, each after the previous one's answer, after one to the first target
    that is not counted: the first request after an idle spell took 20–40 µs longer than the next
    one (measured with the targets in reverse order), which would be charged to the first link."""

    def __init__(self, ns: str, src_addr: str, targets: list[str], ident: int):
        self.targets = targets
        self.ident = ident & 0xFFFF
        self.seq = 0
        self.rounds: list[list[int | None]] = []
        self.rng = random.Random(ident)
        self.sock = socket_in(ns, socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        self.sock.bind((src_addr, 0))
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.setblocking(False)

    def close(self) -> None:
        self.sock.close()

    def _await(self, seq: int, deadline: float) -> int | None:
        """The kernel's receive instant (ns) of the answer to request `seq`, or None on timeout."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return None
            try:
                data, anc, _, _ = self.sock.recvmsg(2048, 64)
            except BlockingIOError:
                continue
            got = parse(data)
            if got != (self.ident, seq):
                continue  # another socket's ICMP, or a late answer to an earlier round
            for level, kind, value in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", value[:16])
                    return sec * 1_000_000_000 + nsec
            return time.time_ns()

    def _echo(self, addr: str) -> int | None:
        """One request to addr: its round trip in ns, None when unanswered."""
        self.seq = (self.seq + 1) & 0xFFFF
        sent = time.time_ns()
        self.sock.sendto(echo_request(self.ident, self.seq), (addr, 0))
        got = self._await(self.seq, time.monotonic() + REPLY_TIMEOUT_S)
        return got - sent if got is not None and got >= sent else None

    def round(self) -> None:
        """One request to each target, in an order shuffled per round (seeded by `ident`): the
        round trip of a request depended on its place in a fixed order by up to 30 µs (the
        source's switch: 17 µs first, 45 µs last), so a fixed order would bias each hop alike in
        every round."""
        order = list(range(len(self.targets)))
        self.rng.shuffle(order)
        self._echo(self.targets[order[0]])  # the warm-up request
        got: list[int | None] = [None] * len(order)
        for k in order:
            got[k] = self._echo(self.targets[k])
        self.rounds.append(got)

    def result(self) -> dict:
        """{"hop_rtt_ns": per hop (its 10th percentile), "link_rtt_ns": per link (link_round_trips
        of those), "answers": per hop}; None where nothing was measured."""
        per_hop = [[r[k] for r in self.rounds if r[k] is not None] for k in range(len(self.targets))]
        hop = [percentile10(x) for x in per_hop]
        return {"hop_rtt_ns": hop, "link_rtt_ns": link_round_trips(hop), "answers": [len(x) for x in per_hop]}
