"""The kernel's own congestion controls as references (`--cc cubic|reno|bbr|linux-dctcp`).

Nobody here wrote them, so they are the best check of the simulator's own CUBIC, NewReno and DCTCP:
`--compare` runs each against its simulator counterpart. `linux-dctcp` is the kernel's DCTCP
module (`dctcp` is the project's eBPF DCTCP); it is offered where the kernel has it. A socket
selects the control with setsockopt(TCP_CONGESTION) as for the eBPF ones; as root that also loads a
module the kernel has but has not loaded yet.

Both sides run Linux's retransmission timeout for these (and for the eBPF laws, testbed/simside.py): the kernel's RTO is at least TCP_RTO_MIN
(200 ms) and doubles on each expiry; the testbed scenarios' `host.rto` (the simulator's default
1 ms, below their few ms of queueing delay) would make the simulator's loss-based laws time out
thousands of times where Linux never does, so the simulator's side gets `host.rto = SIM_RTO`
(docs/testbed.md, "The kernel's controllers")."""

from __future__ import annotations

import socket

# testbed algorithm -> kernel congestion-control name
KERNEL = {"cubic": "cubic", "reno": "reno", "bbr": "bbr", "linux-dctcp": "dctcp"}
# testbed algorithm -> the simulator's algorithm (None: it has none)
SIM_COUNTERPART = {"cubic": "cubic", "reno": "reno", "linux-dctcp": "dctcp", "bbr": None}
SIM_RTO = "200ms"  # Linux's TCP_RTO_MIN (the simulator's RTO is fixed: no backoff)
# Linux recovers losses by SACK (net.ipv4.tcp_sack defaults to 1 and the testbed leaves it so):
# the simulator's side of every comparison runs `host.recovery = "sack"` (transport/sack.rs)
SIM_RECOVERY = "sack"
# Linux's test of whether a window is the limit counts the host queue as in flight, for every
# law, and lets slow start grow below twice the largest flight (`host.linux_window`,
# transport/host_queue.rs): the simulator's side of every comparison runs it
SIM_LINUX_WINDOW = True
AVAILABLE = "/proc/sys/net/ipv4/tcp_available_congestion_control"


def available() -> list[str]:
    with open(AVAILABLE) as f:
        return f.read().split()


def ensure(alg: str) -> str | None:
    """None when the kernel offers `alg`'s control (loading its module if need be), else the
    one-line reason."""
    name = KERNEL[alg]
    if name not in available():
        with socket.socket() as s:  # as root, selecting a control loads its module (tcp_<name>)
            try:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, name.encode())
            except OSError:
                pass
    if name in available():
        return None
    return f"--cc: this kernel has no '{name}' congestion control ({AVAILABLE}: {' '.join(available())})"
