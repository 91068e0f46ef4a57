"""The testbed's own sender and receiver: plain TCP sockets created inside the host namespaces,
with the congestion control set before connect, and TCP_INFO sampling."""

from __future__ import annotations

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
    b = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 256)
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
        "total_rto": struct.unpack_from("=H", b, 240)[0] if len(b) >= 242 else 0,
    }


class Receiver:
    """Accepts connections on PORT in one namespace and discards what arrives."""

    def __init__(self, ns: str, addr: str, cc: str | None):
        self.sock = socket_in(ns)
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
    """One flow: connected before time zero; sends `size` bytes (None: until stopped)."""

    def __init__(self, flow, ns: str, dst_addr: str, cc: str, mss: int | None):
        self.flow = flow
        self.sock = socket_in(ns)
        self.sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
        if mss:
            self.sock.setsockopt(socket.IPPROTO_TCP, TCP_MAXSEG, mss)
        self.sock.settimeout(5.0)
        self.sock.connect((dst_addr, PORT))
        self.sock.settimeout(0.1)
        self.acked0 = tcp_info(self.sock)["bytes_acked"]
        self.end_s: float | None = None
        self.started = False
        self.error: str | None = None
        self.thread: threading.Thread | None = None

    def acked(self) -> int:
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
