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
MTU_LINK = 1600  # veth MTU: headroom for INT IP options
MTU_PATH = 1500  # route MTU the hosts' TCP uses (MSS 1448 with timestamps)
IFINDEX_SW = 30000
IFINDEX_HOST = 31000
IFINDEX_TRUNK = 32000
IFINDEX_SW_PATH1 = 33000  # two-path: path 1's switch side of host i's link (path 0 uses IFINDEX_SW)
IFINDEX_HOST_PATH1 = 34000  # two-path: host i's NIC on path 1 (path 0: IFINDEX_HOST)
MPTCP_TABLE = 101  # two-path: routing table of traffic sourced from a host's path-1 address
BURST_TIME_NS = 100_000  # tbf bucket: 100 us of line rate (timer-driven dequeue needs slack)


@dataclass
class Port:
    index: int  # port number in the results
    name: str  # "<node>-><peer>"
    ns: str
    dev: str
    ifindex: int
    rate_bps: int


def ns_name(node: str) -> str:
    return NS_PREFIX + node


def host_addr(i: int) -> str:
    return f"10.78.{i}.2"


def path_addr(path: int, i: int, switch_side: bool = False) -> str:
    """Host i's address on path 0 (10.78.i.2, = host_addr) or path 1 (10.77.i.2) of the two-path
    topology; .1 is the switch's side of the link."""
    return f"10.{78 - path}.{i}.{1 if switch_side else 2}"


def path_of_addr(addr: str) -> int | None:
    """The path (0 or 1) of a host address of the two-path topology."""
    for k in (0, 1):
        if addr.startswith(f"10.{78 - k}."):
            return k
    return None


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
    settings = {
        "net.ipv4.tcp_ecn": "1",
        "net.ipv4.tcp_slow_start_after_idle": "0",
        "net.ipv4.tcp_no_metrics_save": "1",
        "net.ipv4.ip_forward": "1" if forward else "0",
        "net.ipv4.tcp_limit_output_bytes": str(TSQ_BYTES),
    }
    args = []
    for k, v in settings.items():
        args += ["-w", f"{k}={v}"]
    run(["sysctl", "-q"] + args, ns=ns)


def _offloads_off(ns: str, dev: str) -> None:
    run(["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"], ns=ns, check=False)


def _tbf(ns: str, dev: str, rate_bps: int, limit_bytes: int) -> None:
    burst = max(2 * MTU_LINK, rate_bps * BURST_TIME_NS // 8_000_000_000)
    run(
        [
            "tc",
            "qdisc",
            "replace",
            "dev",
            dev,
            "root",
            "handle",
            "1:",
            "tbf",
            "rate",
            f"{rate_bps}bit",
            "burst",
            str(burst),
            "limit",
            str(max(limit_bytes, 2 * MTU_LINK)),
        ],
        ns=ns,
    )


def _attach(ns: str, dev: str, direction: str, pinned: str) -> None:
    run(["tc", "qdisc", "replace", "dev", dev, "clsact"], ns=ns)
    run(
        [
            "tc",
            "filter",
            "replace",
            "dev",
            dev,
            direction,
            "prio",
            "1",
            "handle",
            "1",
            "bpf",
            "da",
            "pinned",
            pinned,
        ],
        ns=ns,
    )


@dataclass
class Layout:
    """What to build: host i hangs off switch host_switch[i]; trunk = (rate) of the sw0<->sw1
    link of a dumbbell, None for a star."""

    host_switch: list[str]
    host_rate_bps: int
    trunk_rate_bps: int | None = None

    @property
    def switches(self) -> list[str]:
        return ["sw0", "sw1"] if self.trunk_rate_bps is not None else [SWITCH]


def star(hosts: int, rate_bps: int) -> Layout:
    return Layout([SWITCH] * hosts, rate_bps)


def dumbbell(left: int, right: int, host_rate_bps: int, bottleneck_rate_bps: int) -> Layout:
    return Layout(["sw0"] * left + ["sw1"] * right, host_rate_bps, bottleneck_rate_bps)


def _namespace(node: str, forward: bool) -> str:
    ns = ns_name(node)
    run(["ip", "netns", "add", ns])
    run(["ip", "-n", ns, "link", "set", "lo", "up"])
    _sysctls(ns, forward=forward)
    return ns


def _veth(ns_a: str, dev_a: str, idx_a: int, ns_b: str, dev_b: str, idx_b: int) -> None:
    run(
        [
            "ip",
            "link",
            "add",
            "name",
            dev_a,
            "index",
            str(idx_a),
            "netns",
            ns_a,
            "mtu",
            str(MTU_LINK),
            "type",
            "veth",
            "peer",
            "name",
            dev_b,
            "index",
            str(idx_b),
            "netns",
            ns_b,
            "mtu",
            str(MTU_LINK),
        ]
    )
    for ns, dev in ((ns_a, dev_a), (ns_b, dev_b)):
        run(["ip", "-n", ns, "link", "set", dev, "up"])
        _offloads_off(ns, dev)


def build(layout: Layout, switch_limit: int, host_limit: int, progs: dict[str, str]) -> list[Port]:
    """The star or dumbbell: create the namespaces, links, addresses, routes, shapers and tc programs; return the egress
    ports: switch downlinks (by host), the trunk ports of a dumbbell, then host NICs."""
    switches = {sw: _namespace(sw, forward=True) for sw in layout.switches}
    down: list[Port] = []
    nics: list[Port] = []
    rate = layout.host_rate_bps
    for i, sw in enumerate(layout.host_switch):
        h = _namespace(f"h{i}", forward=False)
        swns = switches[sw]
        _veth(swns, f"h{i}", IFINDEX_SW + i, h, "eth0", IFINDEX_HOST + i)
        run(["ip", "-n", swns, "addr", "add", f"10.78.{i}.1/24", "dev", f"h{i}"])
        run(["ip", "-n", h, "addr", "add", f"{host_addr(i)}/24", "dev", "eth0"])
        run(
            [
                "ip",
                "-n",
                h,
                "route",
                "add",
                "10.78.0.0/16",
                "via",
                f"10.78.{i}.1",
                "dev",
                "eth0",
                "mtu",
                "lock",
                str(MTU_PATH),
                "advmss",
                str(MTU_PATH - 40),
                "quickack",
                "1",
            ]
        )
        _tbf(swns, f"h{i}", rate, switch_limit)
        _tbf(h, "eth0", rate, host_limit)
        _attach(swns, f"h{i}", "egress", progs["switch_egress"])
        _attach(h, "eth0", "ingress", progs["host_ingress"])
        down.append(Port(0, f"{sw}->h{i}", swns, f"h{i}", IFINDEX_SW + i, rate))
        nics.append(Port(0, f"h{i}->{sw}", h, "eth0", IFINDEX_HOST + i, rate))
    trunk: list[Port] = []
    if layout.trunk_rate_bps is not None:
        a, b = switches["sw0"], switches["sw1"]
        _veth(a, "sw1", IFINDEX_TRUNK, b, "sw0", IFINDEX_TRUNK + 1)
        run(["ip", "-n", a, "addr", "add", "10.79.0.1/30", "dev", "sw1"])
        run(["ip", "-n", b, "addr", "add", "10.79.0.2/30", "dev", "sw0"])
        for i, sw in enumerate(layout.host_switch):  # each switch reaches the other's hosts via the trunk
            here, via = (a, "10.79.0.2") if sw == "sw1" else (b, "10.79.0.1")
            run(["ip", "-n", here, "route", "add", f"10.78.{i}.0/24", "via", via])
        for ns, dev, idx, name in (
            (a, "sw1", IFINDEX_TRUNK, "sw0->sw1"),
            (b, "sw0", IFINDEX_TRUNK + 1, "sw1->sw0"),
        ):
            _tbf(ns, dev, layout.trunk_rate_bps, switch_limit)
            _attach(ns, dev, "egress", progs["switch_egress"])
            trunk.append(Port(0, name, ns, dev, idx, layout.trunk_rate_bps))
    ports = down + trunk + nics
    for k, p in enumerate(ports):
        p.index = k
    return ports


def _host_route(ns: str, dst: str, via: str, dev: str, table: int | None = None) -> None:
    cmd = ["ip", "-n", ns, "route", "add", dst, "via", via, "dev", dev]
    cmd += ["mtu", "lock", str(MTU_PATH), "advmss", str(MTU_PATH - 40), "quickack", "1"]
    run(cmd + (["table", str(table)] if table is not None else []))


def build_two_path(
    path_rates: tuple[int, ...],
    host_rate: int,
    switch_limit: int,
    host_limit: int,
    progs: dict[str, str],
    mptcp_senders: set[int],
) -> list[Port]:
    """Two hosts joined by two disjoint switch paths (docs/testbed.md, "MPTCP on two paths"):

        h0.eth0 -- sw0 -- h1.eth0      path 0, switch ports at path_rates[0]
        h0.eth1 -- sw1 -- h1.eth1      path 1, switch ports at path_rates[1]

    Host NICs run at host_rate. Host i has 10.78.i.2 on eth0 and 10.77.i.2 on eth1; traffic from
    its path-1 address is routed over eth1 by a source rule (table MPTCP_TABLE), also to the peer's
    path-0 address, so an MPTCP subflow takes the path of its local address. A host that opens
    MPTCP connections (`mptcp_senders`) has its path-1 address as an MPTCP `subflow` endpoint: the
    in-kernel path manager opens one more subflow from it to the peer's address (`limits
    subflows 1` on both hosts, which also bounds the joins a receiver accepts). Ports: the switch ports
    sw<k>->h<i>, then the host NICs h<i>->sw<k>."""
    sws = [_namespace(f"sw{k}", forward=True) for k in range(2)]
    hosts = [_namespace(f"h{i}", forward=False) for i in range(2)]
    down: list[Port] = []
    nics: list[Port] = []
    for k, (swns, rate) in enumerate(zip(sws, path_rates)):
        for i, h in enumerate(hosts):
            dev = f"eth{k}"
            sw_idx = (IFINDEX_SW if k == 0 else IFINDEX_SW_PATH1) + i
            h_idx = (IFINDEX_HOST if k == 0 else IFINDEX_HOST_PATH1) + i
            _veth(swns, f"h{i}", sw_idx, h, dev, h_idx)
            run(["ip", "-n", swns, "addr", "add", f"{path_addr(k, i, True)}/24", "dev", f"h{i}"])
            run(["ip", "-n", h, "addr", "add", f"{path_addr(k, i)}/24", "dev", dev])
            _tbf(swns, f"h{i}", rate, switch_limit)
            _tbf(h, dev, host_rate, host_limit)
            _attach(swns, f"h{i}", "egress", progs["switch_egress"])
            _attach(h, dev, "ingress", progs["host_ingress"])
            down.append(Port(0, f"sw{k}->h{i}", swns, f"h{i}", sw_idx, rate))
            nics.append(Port(0, f"h{i}->sw{k}", h, dev, h_idx, host_rate))
    for i, h in enumerate(hosts):
        peer = 1 - i
        _host_route(h, "10.78.0.0/16", path_addr(0, i, True), "eth0")
        _host_route(h, "10.77.0.0/16", path_addr(1, i, True), "eth1")
        # a subflow from the path-1 address to the peer's path-0 address stays on path 1
        run(["ip", "-n", h, "rule", "add", "from", path_addr(1, i), "table", str(MPTCP_TABLE)])
        _host_route(h, "10.78.0.0/16", path_addr(1, i, True), "eth1", MPTCP_TABLE)
        _host_route(h, "10.77.0.0/16", path_addr(1, i, True), "eth1", MPTCP_TABLE)
        # sw1 delivers the peer's path-0 address over its path-1 link
        run(
            [
                "ip",
                "-n",
                sws[1],
                "route",
                "add",
                f"{path_addr(0, peer)}/32",
                "via",
                path_addr(1, peer),
                "dev",
                f"h{peer}",
            ]
        )
        for key in ("all", "default", "eth0", "eth1"):  # packets to the path-0 address arrive on eth1
            run(["sysctl", "-q", "-w", f"net.ipv4.conf.{key}.rp_filter=0"], ns=h)
        run(["sysctl", "-q", "-w", "net.mptcp.enabled=1"], ns=h)
        run(["ip", "-n", h, "mptcp", "limits", "set", "subflows", "1", "add_addr_accepted", "0"])
        if i in mptcp_senders:
            run(["ip", "-n", h, "mptcp", "endpoint", "add", path_addr(1, i), "dev", "eth1", "subflow"])
    ports = down + nics
    for k, p in enumerate(ports):
        p.index = k
    return ports


def switch_ports(ports: list[Port]) -> list[Port]:
    return [p for p in ports if not p.name.startswith("h")]


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
