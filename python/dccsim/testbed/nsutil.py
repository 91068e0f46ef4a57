"""Network-namespace helpers: run commands inside a namespace, create sockets that belong to it."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import socket
import subprocess
import threading

NETNS_DIR = "/run/netns"
CLONE_NEWNET = 0x40000000

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_setns_lock = threading.Lock()


class CommandError(RuntimeError):
    """A command of the testbed failed; the message holds the command and its stderr."""


def run(cmd: list[str], ns: str | None = None, check: bool = True, input: str | None = None) -> str:
    """Run cmd (inside network namespace ns, keeping this mount namespace so that pinned BPF objects
    stay visible) and return stdout."""
    if ns is not None:
        cmd = ["nsenter", f"--net={NETNS_DIR}/{ns}", "--"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, input=input)
    if check and p.returncode != 0:
        raise CommandError(f"{' '.join(cmd)}: {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def in_netns(ns: str, factory):
    """Call factory() with this thread inside network namespace ns; objects it creates (sockets)
    stay in that namespace after the thread returns to its own."""
    with _setns_lock:
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(f"{NETNS_DIR}/{ns}", os.O_RDONLY)
        try:
            _setns(target)
            try:
                return factory()
            finally:
                _setns(own)
        finally:
            os.close(own)
            os.close(target)


def socket_in(ns: str, family=socket.AF_INET, type=socket.SOCK_STREAM, proto=0) -> socket.socket:
    return in_netns(ns, lambda: socket.socket(family, type, proto))
