"""Captured packets (`metrics.pcap`) as a pcap file that Wireshark, tshark, tcpdump and scapy
decode as ordinary Ethernet/IPv4/TCP (docs/results.md, "packets.pcap").

The simulator has no real headers, so each record is a TCP segment built from what the engine
knows; the payload is not stored (it is zeros), so a record holds the headers and dccsim's INT
records only, and its original length is that of the whole segment:

- timestamps in nanoseconds (pcap magic 0xa1b23c4d): the start of the packet's transmission;
- Ethernet: host h is 02:00 then h as 4 bytes; IPv4: host h is 10.(h>>16 & 255).(h>>8 & 255).(h & 255);
  a data packet goes src -> dst of its flow, ACKs and NACKs the other way;
- IPv4: DF, TTL 64, TOS = switch priority << 2 | ECN codepoint (data: ECT(0) = 2, CE = 3),
  total length = 20 + TCP header (44) + payload bytes (at most 65 535);
- TCP, one 5-tuple per flow: data source port 57344 + (flow id & 4095), destination port
  61440 + (flow id >> 12 & 4095) (a range no Wireshark dissector claims; unique below 2^24
  flows); data: seq = the payload's first byte offset in the flow (mod 2^32), ack 0; ACK/NACK:
  seq 0, ack = the next byte expected (mod 2^32), ECE when it echoes congestion (`ece`);
  flag ACK, window 65535; correct checksum over the segment with its zero payload;
- TCP option kind 254 (experimental, RFC 6994), length 24, ExID 0xDCC5, then big-endian:
  flow id u32, sequence u64 (the engine's, not wrapped), size on the wire u32, kind u8 (0 data,
  1 ACK, 2 NACK), priority u8, INT hop count u8, one zero byte;
- INT records, 32 bytes per hop, big-endian u64 queue bytes, transmitted (or received) bytes,
  timestamp (ps), link rate (bit/s): the first bytes of the TCP payload when the payload is at
  least that long (data), otherwise after the IP packet, as an Ethernet trailer (ACKs, NACKs).

python/dccsim/wireshark/dccsim.lua decodes the option and the INT records in Wireshark.
Built with numpy in chunks of 65 536 packets: a million packets (half of them ACKs, 0-5 INT
records each) take 2.6-3.2 s and 174 MB on a shared 2-core machine, where the fixed-size UDP
frames written before took 2.3-2.6 s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

INT_SLOTS = 5  # most INT records a packet carries
HOP_BYTES = 32
OPTION_KIND = 254
OPTION_LEN = 24
EXID = 0xDCC5
TCP_HEADER = 20 + OPTION_LEN
HEADERS = 14 + 20 + TCP_HEADER  # bytes of every record before the payload
SPORT_BASE, DPORT_BASE = 0xE000, 0xF000  # 57344, 61440
MAX_IP_LEN = 65_535
CHUNK = 1 << 16
LUA = Path(__file__).resolve().parent / "wireshark" / "dccsim.lua"  # the Wireshark dissector

HEAD = np.dtype(
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
        ("tcp_seq", ">u4"),
        ("tcp_ack", ">u4"),
        ("tcp_off_flags", ">u2"),
        ("window", ">u2"),
        ("tcp_csum", ">u2"),
        ("urgent", ">u2"),
        ("opt_kind", "u1"),
        ("opt_len", "u1"),
        ("exid", ">u2"),
        ("flow", ">u4"),
        ("seq", ">u8"),
        ("size", ">u4"),
        ("kind", "u1"),
        ("prio", "u1"),
        ("int_hops", "u1"),
        ("pad", "u1"),
    ]
)
assert HEAD.itemsize == 16 + HEADERS
TCP_AT = 16 + 14 + 20  # the TCP header's offset in a record (after the pcap record header)

# magic (ns timestamps), version 2.4, zone 0, sigfigs 0, snaplen, linktype 1 (Ethernet)
HEADER = np.array([(0xA1B23C4D, 2, 4, 0, 0, 65535, 1)], dtype="<u4,<u2,<u2,<i4,<u4,<u4,<u4").tobytes()


def ipv4(h: np.ndarray) -> np.ndarray:
    """Host index -> IPv4 address 10.x.y.z as an integer."""
    return (10 << 24) | (np.asarray(h, dtype=np.int64) & 0xFFFFFF)


def ports(flow_id: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(source, destination) TCP ports of a flow's data packets."""
    f = np.asarray(flow_id, dtype=np.int64)
    return SPORT_BASE + (f & 0xFFF), DPORT_BASE + ((f >> 12) & 0xFFF)


def _fold(s: np.ndarray) -> np.ndarray:
    """One's-complement checksum of 32-bit-or-wider sums of 16-bit words."""
    while (s >> 16).any():
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _chunk(packets: dict, lo: int, hi: int, src_of, dst_of, ints: dict | None) -> bytes:
    col = {k: np.asarray(packets[k][lo:hi], dtype=np.int64) for k in packets}
    t, fid, kind = col["time_ps"], col["flow_id"], col["kind"]
    n = len(t)
    data = kind == 0
    src = np.where(data, src_of[fid], dst_of[fid])
    dst = np.where(data, dst_of[fid], src_of[fid])
    hops = col["int_hops"]
    int_len = HOP_BYTES * hops
    ip_len = np.minimum(20 + TCP_HEADER + col["payload_bytes"], MAX_IP_LEN)
    payload = ip_len - 20 - TCP_HEADER
    in_payload = payload >= int_len  # INT fits at the payload's start; else an Ethernet trailer
    trailer = np.where(in_payload, 0, int_len)

    h = np.zeros(n, dtype=HEAD)
    h["ts_sec"] = t // 10**12
    h["ts_nsec"] = (t % 10**12) // 1000
    h["incl_len"] = HEADERS + np.where(in_payload, int_len, payload + int_len)
    h["orig_len"] = 14 + ip_len + trailer
    h["eth_dst_hi"] = h["eth_src_hi"] = 0x0200
    h["eth_dst_lo"], h["eth_src_lo"] = dst, src
    h["ethertype"] = 0x0800
    h["ver_ihl"] = 0x45
    tos = (col["prio"] << 2) | col["ecn"]
    h["tos"] = tos
    h["ip_len"] = ip_len
    h["frag"] = 0x4000  # DF
    h["ttl"] = 64
    h["proto"] = 6
    ip_src, ip_dst = ipv4(src), ipv4(dst)
    h["ip_src"], h["ip_dst"] = ip_src, ip_dst
    h["ip_csum"] = _fold(
        (0x45 << 8 | tos) + ip_len + 0x4000 + (64 << 8 | 6)
        + (ip_src >> 16) + (ip_src & 0xFFFF) + (ip_dst >> 16) + (ip_dst & 0xFFFF)
    )  # fmt: skip
    sp, dp = ports(fid)
    h["sport"], h["dport"] = np.where(data, sp, dp), np.where(data, dp, sp)
    seq = col["seq"]
    h["tcp_seq"] = np.where(data, seq & 0xFFFFFFFF, 0)
    h["tcp_ack"] = np.where(data, 0, seq & 0xFFFFFFFF)
    ece = col["ece"] if "ece" in col else np.zeros(n, dtype=np.int64)  # tables before the column
    h["tcp_off_flags"] = (TCP_HEADER // 4) << 12 | 0x10 | np.where(ece == 1, 0x40, 0)  # offset; ACK; ECE
    h["window"] = 0xFFFF
    h["opt_kind"], h["opt_len"], h["exid"] = OPTION_KIND, OPTION_LEN, EXID
    h["flow"], h["seq"], h["size"] = fid, seq, col["size_bytes"]
    h["kind"], h["prio"], h["int_hops"] = kind, col["prio"], hops

    width = max(16 + HEADERS + 2 * HOP_BYTES * INT_SLOTS, int(h["incl_len"].max(initial=0)) + 16)
    buf = np.zeros((n, width), dtype=np.uint8)
    buf[:, : HEAD.itemsize] = h.view(np.uint8).reshape(n, HEAD.itemsize)
    if ints is not None:
        a, b = np.searchsorted(ints["packet"], [lo, hi])  # rows are in packet order
        recs = np.zeros((n, INT_SLOTS, 4), dtype=">u8")
        for j, name in enumerate(("qlen_bytes", "tx_bytes", "ts_ps", "rate_bps")):
            recs[ints["packet"][a:b] - lo, ints["hop"][a:b], j] = ints[name][a:b]
        flat = recs.view(np.uint8).reshape(n, INT_SLOTS * HOP_BYTES)  # zeros after the last hop
        at = 16 + HEADERS + np.where(in_payload, 0, payload)
        for off in np.unique(at[hops > 0]):
            sel = (at == off) & (hops > 0)
            buf[sel, off : off + INT_SLOTS * HOP_BYTES] = flat[sel]
    # TCP checksum: pseudo-header + header + payload (its INT bytes, else zeros; not the trailer)
    seg = np.ascontiguousarray(buf[:, TCP_AT : TCP_AT + TCP_HEADER + INT_SLOTS * HOP_BYTES]).view(">u2")
    head = seg[:, : TCP_HEADER // 2].sum(axis=1, dtype=np.int64)
    rest = seg[:, TCP_HEADER // 2 :].sum(axis=1, dtype=np.int64)  # INT records, then zeros
    tcp_len = ip_len - 20
    pseudo = (ip_src >> 16) + (ip_src & 0xFFFF) + (ip_dst >> 16) + (ip_dst & 0xFFFF) + 6 + tcp_len
    csum = _fold(head + np.where(in_payload, rest, 0) + pseudo)
    buf[:, TCP_AT + 16] = csum >> 8
    buf[:, TCP_AT + 17] = csum & 0xFF
    keep = np.arange(width)[None, :] < (16 + h["incl_len"].astype(np.int64))[:, None]
    return buf[keep].tobytes()


def write(path, packets: dict, flows: dict, packet_int: dict | None = None) -> None:
    """Write `packets` (the engine's packets table, with its INT rows) as a pcap file at `path`."""
    fid = np.asarray(packets["flow_id"], dtype=np.int64)
    ids = np.asarray(flows["flow_id"], dtype=np.int64)
    size = int(max(fid.max(initial=0), ids.max(initial=0))) + 1
    src_of, dst_of = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    src_of[ids] = np.asarray(flows["src"], dtype=np.int64)
    dst_of[ids] = np.asarray(flows["dst"], dtype=np.int64)
    ints = None
    if packet_int is not None and len(packet_int.get("packet", ())):
        ints = {k: np.asarray(v, dtype=np.int64) for k, v in packet_int.items()}
    with open(Path(path), "wb") as f:
        f.write(HEADER)
        for lo in range(0, len(fid), CHUNK):
            f.write(_chunk(packets, lo, min(lo + CHUNK, len(fid)), src_of, dst_of, ints))
