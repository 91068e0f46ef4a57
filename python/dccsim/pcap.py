"""Captured packets (`metrics.pcap`) as a pcap file that Wireshark, tcpdump and scapy read.

The simulator has no real headers, so each record is a synthetic Ethernet/IPv4/UDP frame that
carries what the engine knows, truncated to those headers plus a 16-byte dccsim header and the
INT shim (the original length is the packet's size on the wire, or the synthetic frame's 250
bytes when that is larger, as for 60-byte ACKs):

- timestamps in nanoseconds (pcap magic 0xa1b23c4d); the capture time is the start of the
  packet's transmission on its port;
- MAC and IPv4 addresses from host indices: host h is 02:00:00:00:hh:hh and 10.0.hh.hh (h >> 8,
  h & 255); data goes src → dst of its flow, ACKs and NACKs the other way;
- IPv4 TOS = switch priority << 2 | ECN bits (ECT(0) = 2 on data, CE = 3);
- UDP destination port 4791 (RoCEv2), source port = flow id & 0xffff;
- dccsim header (big-endian): flow id u32, kind u8 (0 data, 1 ACK, 2 NACK), priority u8, INT
  hop count u8, 1 byte zero, sequence u64;
- INT shim: 5 hop slots of 32 bytes, big-endian u64 queue bytes, transmitted (or received)
  bytes, timestamp (ps), link rate (bit/s) — the first `hop count` are the packet's records (a data
  packet's so far on its path, an ACK's echo), the rest zero.

Built with numpy records, so a million packets take a fraction of a second.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

INT_SLOTS = 5
SNAP = 14 + 20 + 8 + 16 + 32 * INT_SLOTS  # bytes kept per packet
RECORD = np.dtype(
    [
        ("ts_sec", "<u4"),
        ("ts_nsec", "<u4"),
        ("incl_len", "<u4"),
        ("orig_len", "<u4"),
        ("eth_dst_hi", ">u2"),
        ("eth_dst_lo", ">u4"),
        ("eth_src_hi", ">u2"),
        ("eth_src_lo", ">u4"),
        ("ethertype", ">u2"),
        ("ver_ihl", "u1"),
        ("tos", "u1"),
        ("ip_len", ">u2"),
        ("ident", ">u2"),
        ("frag", ">u2"),
        ("ttl", "u1"),
        ("proto", "u1"),
        ("ip_csum", ">u2"),
        ("ip_src", ">u4"),
        ("ip_dst", ">u4"),
        ("sport", ">u2"),
        ("dport", ">u2"),
        ("udp_len", ">u2"),
        ("udp_csum", ">u2"),
        ("flow", ">u4"),
        ("kind", "u1"),
        ("prio", "u1"),
        ("int_hops", "u1"),
        ("pad", "u1"),
        ("seq", ">u8"),
        ("int", ">u8", (INT_SLOTS, 4)),
    ]
)
assert RECORD.itemsize == 16 + SNAP

# magic (ns timestamps), version 2.4, zone 0, sigfigs 0, snaplen, linktype 1 (Ethernet)
HEADER = np.array([(0xA1B23C4D, 2, 4, 0, 0, 65535, 1)], dtype="<u4,<u2,<u2,<i4,<u4,<u4,<u4").tobytes()


def _ipv4(h: np.ndarray) -> np.ndarray:
    return (10 << 24) | ((h >> 8) & 0xFF) << 8 | (h & 0xFF)


def records(packets: dict, flows: dict, packet_int: dict | None = None) -> np.ndarray:
    """The pcap records of `packets` (engine columns) with addresses from `flows`."""
    t = np.asarray(packets["time_ps"], dtype=np.int64)
    fid = np.asarray(packets["flow_id"], dtype=np.int64)
    kind = np.asarray(packets["kind"], dtype=np.int64)
    src_of = np.zeros(int(fid.max(initial=0)) + 1, dtype=np.int64)
    dst_of = np.zeros_like(src_of)
    ids = np.asarray(flows["flow_id"], dtype=np.int64)
    src_of[ids] = np.asarray(flows["src"], dtype=np.int64)
    dst_of[ids] = np.asarray(flows["dst"], dtype=np.int64)
    data = kind == 0
    src = np.where(data, src_of[fid], dst_of[fid])
    dst = np.where(data, dst_of[fid], src_of[fid])
    size = np.asarray(packets["size_bytes"], dtype=np.int64)
    ip_len = np.maximum(size - 14, SNAP - 14)

    r = np.zeros(len(t), dtype=RECORD)
    r["ts_sec"] = t // 10**12
    r["ts_nsec"] = (t % 10**12) // 1000
    r["incl_len"] = SNAP
    r["orig_len"] = np.maximum(size, SNAP)
    r["eth_dst_hi"] = r["eth_src_hi"] = 0x0200
    r["eth_dst_lo"], r["eth_src_lo"] = dst, src
    r["ethertype"] = 0x0800
    r["ver_ihl"] = 0x45
    r["tos"] = (np.asarray(packets["prio"], dtype=np.int64) << 2) | np.asarray(packets["ecn"], dtype=np.int64)
    r["ip_len"] = ip_len
    r["ttl"] = 64
    r["proto"] = 17
    r["ip_src"], r["ip_dst"] = _ipv4(src), _ipv4(dst)
    # IPv4 header checksum: one's-complement sum of the header's 16-bit words
    words = (
        (0x45 << 8 | r["tos"].astype(np.int64))
        + ip_len
        + (64 << 8 | 17)
        + (r["ip_src"].astype(np.int64) >> 16)
        + (r["ip_src"].astype(np.int64) & 0xFFFF)
        + (r["ip_dst"].astype(np.int64) >> 16)
        + (r["ip_dst"].astype(np.int64) & 0xFFFF)
    )
    while (words >> 16).any():
        words = (words & 0xFFFF) + (words >> 16)
    r["ip_csum"] = ~words & 0xFFFF
    r["sport"] = fid & 0xFFFF
    r["dport"] = 4791
    r["udp_len"] = ip_len - 20
    r["flow"] = fid
    r["kind"] = kind
    r["prio"] = packets["prio"]
    r["seq"] = packets["seq"]
    r["int_hops"] = packets["int_hops"]
    if packet_int is not None and len(packet_int.get("packet", ())):
        row = np.asarray(packet_int["packet"], dtype=np.int64)
        hop = np.asarray(packet_int["hop"], dtype=np.int64)
        for j, col in enumerate(("qlen_bytes", "tx_bytes", "ts_ps", "rate_bps")):
            r["int"][row, hop, j] = packet_int[col]
    return r


def write(path, packets: dict, flows: dict, packet_int: dict | None = None) -> None:
    """Write `packets` (the engine's packets table, with its INT rows) as a pcap file at `path`."""
    with open(Path(path), "wb") as f:
        f.write(HEADER)
        f.write(records(packets, flows, packet_int).tobytes())
