"""The star testbed: one namespace per host and one for the switch, joined by veth pairs shaped by
tbf at the scenario's rates, with the tc programs attached.  Everything it creates carries the
prefix dccsim- (namespaces) so that cleanup can find it after a crash."""
from __future__ import annotations

import os
from dataclasses import dataclass

from . import bpfctl
from .nsutil import NETNS_DIR, CommandError, run

NS_PREFIX = "dccsim-"
SWITCH = "sw0"
MTU_LINK = 1600   # veth MTU: headroom for INT IP options
MTU_PATH = 1500   # route MTU the hosts' TCP uses (MSS 1448 with timestamps)
IFINDEX_SW = 30000
IFINDEX_HOST = 31000
BURST_TIME_NS = 100_000  # tbf bucket: 100 us of line rate (timer-driven dequeue needs slack)


@dataclass
class Port:
    index: int        # port number in the results
    name: str         # "<node>-><peer>"
    ns: str
    dev: str
    ifindex: int
    rate_bps: int


def ns_name(node: str) -> str:
    return NS_PREFIX + node


def host_addr(i: int) -> str:
    return f"10.78.{i}.2"


def leftover_namespaces() -> list[str]:
    if not os.path.isdir(NETNS_DIR):
        return []
    return sorted(n for n in os.listdir(NETNS_DIR) if n.startswith(NS_PREFIX))


def delete_namespaces() -> list[str]:
    gone = []
    for n in leftover_namespaces():
        run(["ip", "netns", "del", n], check=False)
        gone.append(f"netns {n}")
    return gone


TSQ_BYTES = 16384  # TCP small queues budget per socket (docs/testbed.md: did not bound the tbf backlog)


def _sysctls(ns: str, forward: bool) -> None:
    settings = {"net.ipv4.tcp_ecn": "1", "net.ipv4.tcp_slow_start_after_idle": "0",
                "net.ipv4.tcp_no_metrics_save": "1", "net.ipv4.ip_forward": "1" if forward else "0",
                "net.ipv4.tcp_limit_output_bytes": str(TSQ_BYTES)}
    args = []
    for k, v in settings.items():
        args += ["-w", f"{k}={v}"]
    run(["sysctl", "-q"] + args, ns=ns)


def _offloads_off(ns: str, dev: str) -> None:
    run(["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"], ns=ns, check=False)


def _tbf(ns: str, dev: str, rate_bps: int, limit_bytes: int) -> None:
    burst = max(2 * MTU_LINK, rate_bps * BURST_TIME_NS // 8_000_000_000)
    run(["tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", "tbf", "rate", f"{rate_bps}bit",
         "burst", str(burst), "limit", str(max(limit_bytes, 2 * MTU_LINK))], ns=ns)


def _attach(ns: str, dev: str, direction: str, pinned: str) -> None:
    run(["tc", "qdisc", "replace", "dev", dev, "clsact"], ns=ns)
    run(["tc", "filter", "replace", "dev", dev, direction, "prio", "1", "handle", "1", "bpf", "da",
         "pinned", pinned], ns=ns)


def build_star(hosts: int, rate_bps: int, switch_limit: int, host_limit: int, progs: dict[str, str]
               ) -> list[Port]:
    """Create the namespaces, links, addresses, shapers and tc programs; return the egress ports
    (switch downlinks first, then host NICs)."""
    sw = ns_name(SWITCH)
    run(["ip", "netns", "add", sw])
    run(["ip", "-n", sw, "link", "set", "lo", "up"])
    _sysctls(sw, forward=True)
    ports: list[Port] = []
    host_ports: list[Port] = []
    for i in range(hosts):
        h = ns_name(f"h{i}")
        run(["ip", "netns", "add", h])
        run(["ip", "-n", h, "link", "set", "lo", "up"])
        _sysctls(h, forward=False)
        run(["ip", "link", "add", "name", f"h{i}", "index", str(IFINDEX_SW + i), "netns", sw, "mtu",
             str(MTU_LINK), "type", "veth", "peer", "name", "eth0", "index", str(IFINDEX_HOST + i),
             "netns", h, "mtu", str(MTU_LINK)])
        run(["ip", "-n", sw, "addr", "add", f"10.78.{i}.1/24", "dev", f"h{i}"])
        run(["ip", "-n", sw, "link", "set", f"h{i}", "up"])
        run(["ip", "-n", h, "addr", "add", f"{host_addr(i)}/24", "dev", "eth0"])
        run(["ip", "-n", h, "link", "set", "eth0", "up"])
        run(["ip", "-n", h, "route", "add", "10.78.0.0/16", "via", f"10.78.{i}.1", "dev", "eth0",
             "mtu", "lock", str(MTU_PATH), "advmss", str(MTU_PATH - 40), "quickack", "1"])
        _offloads_off(sw, f"h{i}")
        _offloads_off(h, "eth0")
        _tbf(sw, f"h{i}", rate_bps, switch_limit)
        _tbf(h, "eth0", rate_bps, host_limit)
        _attach(sw, f"h{i}", "egress", progs["switch_egress"])
        _attach(h, "eth0", "ingress", progs["host_ingress"])
        ports.append(Port(i, f"{SWITCH}->h{i}", sw, f"h{i}", IFINDEX_SW + i, rate_bps))
        host_ports.append(Port(0, f"h{i}->{SWITCH}", h, "eth0", IFINDEX_HOST + i, rate_bps))
    for j, p in enumerate(host_ports):
        p.index = hosts + j
    return ports + host_ports


def check_tools() -> str | None:
    """None if the machine can run the testbed, else the reason (one line)."""
    if os.geteuid() != 0:
        return "the testbed needs root (network namespaces, tc, BPF)"
    from shutil import which
    for tool in ("ip", "tc", "bpftool", "clang", "make", "nsenter", "ethtool", "sysctl"):
        if which(tool) is None:
            return f"missing tool '{tool}' (install: .ci/testbed-deps.sh)"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "kernel without BTF (/sys/kernel/btf/vmlinux): struct_ops congestion control unavailable"
    return None


def cleanup_all() -> list[str]:
    """Remove every namespace (with its links and qdiscs) and BPF object of the testbed."""
    removed = delete_namespaces()
    try:
        removed += bpfctl.cleanup()
    except (CommandError, OSError):
        pass
    return removed
