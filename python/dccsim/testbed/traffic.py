"""The testbed's own sender and receiver: TCP (or MPTCP) sockets created inside the host
namespaces, with the congestion control set before connect, and TCP_INFO sampling (per subflow
for MPTCP)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import socket
import struct
import threading
import time

from .nsutil import socket_in

TCP_CONGESTION = 13
TCP_INFO = 11
TCP_MAXSEG = 2
PORT = 5001
CHUNK = 1 << 20
_ZEROS = bytes(CHUNK)
_LINGER_ABORT = struct.pack("ii", 1, 0)

# MPTCP (include/uapi/linux/mptcp.h; the installed header may predate these)
IPPROTO_MPTCP = 262
SOL_MPTCP = 284
MPTCP_INFO = 1  # struct mptcp_info of the connection
MPTCP_TCPINFO = 2  # struct mptcp_subflow_data + one struct tcp_info per subflow
MPTCP_SUBFLOW_ADDRS = 3  # struct mptcp_subflow_data + one struct mptcp_subflow_addrs per subflow
_MPTCP_INFO_SNDUNA = 24  # offset of mptcpi_snd_una (u64) in struct mptcp_info
_MPTCP_INFO_SUBFLOWS = 0  # mptcpi_subflows (u8): subflows besides the first
_SFD = struct.Struct("=IIII")  # size_subflow_data, num_subflows, size_kernel, size_user
_TCP_INFO_SIZE = 256
_ADDRS_SIZE = 256  # two sockaddr_storage: local, remote
_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def abort_close(sock: socket.socket) -> None:
    """Close with an RST: the socket is freed at once, with no FIN_WAIT/TIME_WAIT state that would
    keep the congestion control (a struct_ops map) referenced after the run."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_ABORT)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


def tcp_info(sock: socket.socket) -> dict:
    """The TCP_INFO fields the testbed uses (struct tcp_info, include/uapi/linux/tcp.h)."""
    return parse_tcp_info(sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 256))


def _subflow_data(sock: socket.socket, optname: int, elem: int, max_subflows: int = 8) -> list[bytes]:
    """One element per subflow of an MPTCP socket (MPTCP_TCPINFO / MPTCP_SUBFLOW_ADDRS). The
    header tells the kernel the element size, so the call goes through libc: Python's getsockopt
    cannot pass an input buffer."""
    buf = ctypes.create_string_buffer(_SFD.size + elem * max_subflows)
    _SFD.pack_into(buf, 0, _SFD.size, 0, 0, elem)
    n = ctypes.c_uint32(len(buf))
    if _libc.getsockopt(sock.fileno(), SOL_MPTCP, optname, buf, ctypes.byref(n)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"getsockopt(SOL_MPTCP, {optname}): {os.strerror(err)}")
    raw = buf.raw
    _, count, _, size = _SFD.unpack_from(raw, 0)
    count = min(count, max_subflows)
    return [raw[_SFD.size + k * size : _SFD.size + (k + 1) * size] for k in range(count)]


def mptcp_subflow_infos(sock: socket.socket) -> list[dict]:
    """TCP_INFO of each subflow of an MPTCP socket, in the kernel's subflow-list order."""
    return [parse_tcp_info(b) for b in _subflow_data(sock, MPTCP_TCPINFO, _TCP_INFO_SIZE)]


def mptcp_subflow_local_addrs(sock: socket.socket) -> list[str]:
    """The local IPv4 address of each subflow, in the same order as mptcp_subflow_infos."""
    return [socket.inet_ntoa(b[4:8]) for b in _subflow_data(sock, MPTCP_SUBFLOW_ADDRS, _ADDRS_SIZE)]


def mptcp_subflow_endpoints(sock: socket.socket) -> list[tuple[str, int]]:
    """(local IPv4 address, local port) of each subflow."""
    out = []
    for b in _subflow_data(sock, MPTCP_SUBFLOW_ADDRS, _ADDRS_SIZE):
        out.append((socket.inet_ntoa(b[4:8]), struct.unpack_from("!H", b, 2)[0]))
    return out


def congestion_by_local_endpoint(ss_output: str) -> dict[tuple[str, int], str]:
    """{(local address, port): congestion control} from `ss -tinH` (a socket line, then its info
    line starting with the congestion control's name)."""
    out: dict[tuple[str, int], str] = {}
    lines = ss_output.splitlines()
    for first, info in zip(lines, lines[1:]):
        cols = first.split()
        if len(cols) < 5 or first[:1].isspace() or not info[:1].isspace():
            continue
        local = cols[3]
        addr, _, port = local.rpartition(":")
        addr = addr.split("%")[0]
        words = info.split()
        if words and port.isdigit():
            out[(addr, int(port))] = words[0]
    return out


def mptcp_info(sock: socket.socket) -> dict:
    """The connection-level fields of struct mptcp_info the testbed uses."""
    b = sock.getsockopt(SOL_MPTCP, MPTCP_INFO, 64)
    return {
        "subflows": b[_MPTCP_INFO_SUBFLOWS] if b else 0,
        "snd_una": struct.unpack_from("=Q", b, _MPTCP_INFO_SNDUNA)[0] if len(b) >= 32 else 0,
    }


def parse_tcp_info(b: bytes) -> dict:
    u32 = lambda off: struct.unpack_from("=I", b, off)[0] if len(b) >= off + 4 else 0  # noqa: E731
    u64 = lambda off: struct.unpack_from("=Q", b, off)[0] if len(b) >= off + 8 else 0  # noqa: E731
    return {
        "snd_mss": u32(16),
        "rtt_us": u32(68),
        "snd_cwnd": u32(80),
        "total_retrans": u32(100),
        "pacing_rate": u64(104),
        "bytes_acked": u64(120),
        "min_rtt_us": u32(148),
        "data_segs_out": u32(156),
        "delivered_ce": u32(196),
        "busy_us": u64(168),  # time with data in flight (tcpi_busy_time)
        "rwnd_limited_us": u64(176),
        "sndbuf_limited_us": u64(184),
        "total_rto": struct.unpack_from("=H", b, 240)[0] if len(b) >= 242 else 0,
    }


class Receiver:
    """Accepts connections on PORT in one namespace and discards what arrives."""

    def __init__(self, ns: str, addr: str, cc: str | None, mptcp: bool = False):
        # an MPTCP listener also accepts plain TCP connections (they fall back to TCP)
        self.sock = socket_in(ns, proto=IPPROTO_MPTCP if mptcp else 0)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if cc:  # the receiver side of DCTCP/TBTCP (per-packet ECE) lives in the same controller
            self.sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
        self.sock.bind((addr, PORT))
        self.sock.listen(256)
        self.conns: list[socket.socket] = []
        self.received = 0
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self._drain, args=(c,), daemon=True).start()

    def _drain(self, c: socket.socket):
        buf = bytearray(CHUNK)
        while True:
            try:
                n = c.recv_into(buf)
            except OSError:
                return
            if n == 0:
                return
            with self._lock:
                self.received += n

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        for c in self.conns + [self.sock]:
            abort_close(c)
        self.thread.join(timeout=1)


class Sender:
    """One flow: connected before time zero; sends `size` bytes (None: until stopped).

    A flow with `subflows` > 1 is an MPTCP connection: the congestion control set on the MPTCP
    socket applies to every subflow (the kernel sets it on each subflow socket), and the
    connection is only handed over once all its subflows are established. `path_of(addr)` names
    the path of a local address; subflow k is the one on path k."""

    JOIN_TIMEOUT_S = 3.0

    def __init__(self, flow, ns: str, dst_addr: str, cc: str, mss: int | None, path_of=None):
        self.flow = flow
        self.subflows = getattr(flow, "subflows", 1)
        self.mptcp = self.subflows > 1
        self.path_of = path_of
        self.sock = socket_in(ns, proto=IPPROTO_MPTCP if self.mptcp else 0)
        self.sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
        if mss:
            self.sock.setsockopt(socket.IPPROTO_TCP, TCP_MAXSEG, mss)
        self.sock.settimeout(5.0)
        self.sock.connect((dst_addr, PORT))
        self.sock.settimeout(0.1)
        if self.mptcp:
            self._await_subflows()
            self.acked0 = mptcp_info(self.sock)["snd_una"]
            self.sub_acked0 = [i["bytes_acked"] for i in self.subflow_infos()]
        else:
            self.acked0 = tcp_info(self.sock)["bytes_acked"]
        self.end_s: float | None = None
        self.started = False
        self.error: str | None = None
        self.thread: threading.Thread | None = None

    def _await_subflows(self) -> None:
        """The in-kernel path manager opens the extra subflow once the connection is fully
        established, which needs one data acknowledgement: send one byte, then wait for the join."""
        self.sock.settimeout(5.0)
        self.sock.sendall(b"\0")
        self.sock.settimeout(0.1)
        deadline = time.perf_counter() + self.JOIN_TIMEOUT_S
        while True:
            infos = self.subflow_infos()
            if all(i is not None for i in infos):
                return
            if time.perf_counter() > deadline:
                addrs = mptcp_subflow_local_addrs(self.sock)
                raise RuntimeError(
                    f"flow {self.flow.flow_id}: MPTCP connection has subflows from {addrs or 'none'} after "
                    f"{self.JOIN_TIMEOUT_S:g} s, expected {self.subflows} (one per path)"
                )
            time.sleep(0.01)

    def subflow_infos(self) -> list:
        """TCP_INFO of subflow k = the one whose local address is on path k (None if missing)."""
        infos = mptcp_subflow_infos(self.sock)
        addrs = mptcp_subflow_local_addrs(self.sock)
        by_path: list = [None] * self.subflows
        for a, i in zip(addrs, infos):
            k = self.path_of(a) if self.path_of else None
            if k is not None and k < self.subflows and by_path[k] is None:
                by_path[k] = i
        return by_path

    def infos(self) -> list:
        """TCP_INFO per subflow (one for a TCP flow), each None while that subflow is missing."""
        return self.subflow_infos() if self.mptcp else [tcp_info(self.sock)]

    def subflow_acked0(self) -> list[int]:
        """bytes_acked of each subflow at time zero."""
        return self.sub_acked0 if self.mptcp else [self.acked0]

    def acked(self) -> int:
        if self.mptcp:  # the data-level (connection) acknowledgement
            return max(0, mptcp_info(self.sock)["snd_una"] - self.acked0)
        return max(0, tcp_info(self.sock)["bytes_acked"] - self.acked0)

    def start(self, t0: float, stop: threading.Event):
        self.thread = threading.Thread(target=self._run, args=(t0, stop), daemon=True)
        self.thread.start()

    def _run(self, t0: float, stop: threading.Event):
        start = t0 + self.flow.start_ps / 1e12
        while not stop.is_set() and time.perf_counter() < start:
            time.sleep(min(0.001, max(0.0, start - time.perf_counter())))
        if stop.is_set():
            return
        self.started = True
        size = self.flow.size_bytes
        left = size if size is not None else None
        view = memoryview(_ZEROS)
        try:
            while not stop.is_set() and (left is None or left > 0):
                n = CHUNK if left is None else min(CHUNK, left)
                try:
                    sent = self.sock.send(view[:n])
                except (socket.timeout, BlockingIOError):
                    continue
                if left is not None:
                    left -= sent
            if size is None:
                return
            while not stop.is_set():  # completion = the last byte acknowledged
                if self.acked() >= size:
                    self.end_s = time.perf_counter() - t0
                    return
                time.sleep(0.0001)
        except OSError as e:
            if not stop.is_set():
                self.error = str(e)

    def close(self):
        abort_close(self.sock)
