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
MPTCP_TABLE = 101  # two-path: the tors' routing table of traffic from a host's path-1 address
BURST_TIME_NS = 100_000  # tbf bucket: 100 us of line rate (timer-driven dequeue needs slack)
TRUNK_SUBNET = "10.79.0.0/16"  # switch-to-switch links; hosts route it via their switch (hops.py)
TWO_PATH_TRUNKS = (("tor0", "path0"), ("tor0", "path1"), ("tor1", "path0"), ("tor1", "path1"))


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
    """Host i's path-0 address (10.78.i.2, = host_addr) or path-1 address (10.77.i.2) in the
    two-path topology; .1 is the switch's side of the link."""
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
    # keep each flow's hash (no rehash after a timeout or a spurious retransmission): RPS steers
    # by it, and a new hash moves the flow to another CPU mid-stream (_rps). A kernel without the
    # key runs without it.
    run(["sysctl", "-q", "-w", "net.core.txrehash=0"], ns=ns, check=False)


def _offloads_off(ns: str, dev: str) -> None:
    run(["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"], ns=ns, check=False)


def cpu_mask(cpus: int) -> str:
    """Every CPU as a sysfs CPU bitmap: hex words of 32 CPUs, the highest first, comma-separated."""
    words = []
    while cpus > 0:
        n = min(cpus, 32)
        words.append(format((1 << n) - 1, "x"))
        cpus -= n
    return ",".join(reversed(words)) or "0"


def _rps(ns: str, dev: str) -> None:
    """Receive packet steering on every CPU: a veth hands each packet it receives to the backlog of
    one CPU chosen by the flow's hash, so a flow's packets are processed in order. Without it each
    goes to the backlog of the CPU that sent it, and a flow sent from two CPUs (its process on one,
    ACK-clocked sends from the softirq on the other) is delivered out of order (docs/testbed.md,
    "Reordering at 1 Gbps"). Written through `ip netns exec`, which mounts the namespace's sysfs."""
    path = f"/sys/class/net/{dev}/queues/rx-0/rps_cpus"
    run(["ip", "netns", "exec", ns, "sh", "-c", f"echo {cpu_mask(os.cpu_count() or 1)} > {path}"])


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
        _rps(ns, dev)


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
        addr0, addr1 = _trunk_addr("sw0", "sw1"), _trunk_addr("sw1", "sw0")
        run(["ip", "-n", a, "addr", "add", f"{addr0}/30", "dev", "sw1"])
        run(["ip", "-n", b, "addr", "add", f"{addr1}/30", "dev", "sw0"])
        for i, sw in enumerate(layout.host_switch):  # each switch reaches the other's hosts via the trunk
            here, via = (a, addr1) if sw == "sw1" else (b, addr0)
            run(["ip", "-n", here, "route", "add", f"10.78.{i}.0/24", "via", via])
        for ns, dev, idx, name in (
            (a, "sw1", IFINDEX_TRUNK, "sw0->sw1"),
            (b, "sw0", IFINDEX_TRUNK + 1, "sw1->sw0"),
        ):
            _tbf(ns, dev, layout.trunk_rate_bps, switch_limit)
            _attach(ns, dev, "egress", progs["switch_egress"])
            trunk.append(Port(0, name, ns, dev, idx, layout.trunk_rate_bps))
        for i in range(len(layout.host_switch)):  # the far switch's trunk address (hops.py)
            run(["ip", "-n", ns_name(f"h{i}"), "route", "add", TRUNK_SUBNET, "via", f"10.78.{i}.1"])
    ports = down + trunk + nics
    for k, p in enumerate(ports):
        p.index = k
    return ports


def _host_route(ns: str, dst: str, via: str, dev: str) -> None:
    cmd = ["ip", "-n", ns, "route", "add", dst, "via", via, "dev", dev]
    run(cmd + ["mtu", "lock", str(MTU_PATH), "advmss", str(MTU_PATH - 40), "quickack", "1"])


@dataclass
class TwoPath:
    """The simulator's `two-path` topology (docs/scenario.md): `senders` hosts h0.. on switch tor0,
    `receivers` hosts on tor1, tor0 and tor1 joined through switch path0 and switch path1 (both
    links of path k at path_rates[k]), and one cross-traffic host on each path switch
    (h<S+R> on path0, h<S+R+1> on path1)."""

    senders: int
    receivers: int
    host_rate_bps: int
    path_rates_bps: tuple[int, ...]

    @property
    def hosts(self) -> int:
        return self.senders + self.receivers + 2

    def host_switch(self, i: int) -> str:
        if i < self.senders:
            return "tor0"
        if i < self.senders + self.receivers:
            return "tor1"
        return f"path{i - self.senders - self.receivers}"


def _next_hop(t: TwoPath, sw: str, host: int, family: int) -> str | None:
    """The neighbour switch through which `sw` reaches host `host`'s address of `family` (0:
    10.78.i.2, 1: 10.77.i.2), or None when the host hangs off `sw`. A host's path-1 address is
    reached over path1 and its path-0 address over path0 (main tables); tor0 and tor1 also send
    what comes from a path-1 address over path1 (a source rule, see build_two_path)."""
    home = t.host_switch(host)
    if home == sw:
        return None
    if sw in ("tor0", "tor1"):
        if home.startswith("path"):
            return home
        return f"path{family}"
    # a path switch: the tors' hosts through their tor; the other path's cross host through tor1
    return home if home.startswith("tor") else "tor1"


def build_two_path(
    t: TwoPath, switch_limit: int, host_limit: int, progs: dict[str, str], mptcp_senders: set[int]
) -> list[Port]:
    """Build the two-path topology with the simulator's node and port names (`tor0->path0`, ...).

    Host i has 10.78.i.2 (its path-0 address) and, on tor hosts, 10.77.i.2 (its path-1 address) on
    its one NIC. tor0 and tor1 route a packet over path k by its addresses: to a path-1 address,
    or from a path-1 address (source rule, table MPTCP_TABLE), over path1; otherwise over path0.
    So an MPTCP subflow takes the path of its local address. A host that opens MPTCP connections
    (`mptcp_senders`) has its path-1 address as an MPTCP `subflow` endpoint: the in-kernel path
    manager opens one more subflow from it to the peer's address (`limits subflows 1` on every
    tor host, which also bounds the joins a receiver accepts). Ports: the switches' ports, then
    the host NICs."""
    switches = ["tor0", "tor1", "path0", "path1"]
    sw_ns = {sw: _namespace(sw, forward=True) for sw in switches}
    for sw in ("tor0", "tor1"):  # a path-1 subflow's packets come back on the other path's port
        for key in ("all", "default"):
            run(["sysctl", "-q", "-w", f"net.ipv4.conf.{key}.rp_filter=0"], ns=sw_ns[sw])
    rate_of = {"path0": t.path_rates_bps[0], "path1": t.path_rates_bps[1]}
    down: list[Port] = []
    nics: list[Port] = []
    tor_hosts = range(t.senders + t.receivers)
    for i in range(t.hosts):
        h = _namespace(f"h{i}", forward=False)
        sw = t.host_switch(i)
        swns = sw_ns[sw]
        _veth(swns, f"h{i}", IFINDEX_SW + i, h, "eth0", IFINDEX_HOST + i)
        families = (0, 1) if i in tor_hosts else (0,)
        for fam in families:
            run(["ip", "-n", swns, "addr", "add", f"{path_addr(fam, i, True)}/24", "dev", f"h{i}"])
            run(["ip", "-n", h, "addr", "add", f"{path_addr(fam, i)}/24", "dev", "eth0"])
        _host_route(h, "10.78.0.0/16", path_addr(0, i, True), "eth0")
        _host_route(h, "10.77.0.0/16", path_addr(0, i, True), "eth0")
        run(["ip", "-n", h, "route", "add", TRUNK_SUBNET, "via", path_addr(0, i, True)])
        _tbf(swns, f"h{i}", t.host_rate_bps, switch_limit)
        _tbf(h, "eth0", t.host_rate_bps, host_limit)
        _attach(swns, f"h{i}", "egress", progs["switch_egress"])
        _attach(h, "eth0", "ingress", progs["host_ingress"])
        down.append(Port(0, f"{sw}->h{i}", swns, f"h{i}", IFINDEX_SW + i, t.host_rate_bps))
        nics.append(Port(0, f"h{i}->{sw}", h, "eth0", IFINDEX_HOST + i, t.host_rate_bps))
        if i in tor_hosts:
            run(["sysctl", "-q", "-w", "net.mptcp.enabled=1"], ns=h)
            run(["ip", "-n", h, "mptcp", "limits", "set", "subflows", "1", "add_addr_accepted", "0"])
            if i in mptcp_senders:
                run(["ip", "-n", h, "mptcp", "endpoint", "add", path_addr(1, i), "dev", "eth0", "subflow"])
    trunk: list[Port] = []
    link_addr = {}
    idx = IFINDEX_TRUNK
    for k, (tor, mid) in enumerate(TWO_PATH_TRUNKS):
        rate = rate_of[mid]
        _veth(sw_ns[tor], mid, idx, sw_ns[mid], tor, idx + 1)
        a, b = _trunk_addr(tor, mid), _trunk_addr(mid, tor)
        run(["ip", "-n", sw_ns[tor], "addr", "add", f"{a}/30", "dev", mid])
        run(["ip", "-n", sw_ns[mid], "addr", "add", f"{b}/30", "dev", tor])
        link_addr[(tor, mid)], link_addr[(mid, tor)] = b, a  # the neighbour's address, seen from the first
        for ns_, dev, ifi, name in (
            (sw_ns[tor], mid, idx, f"{tor}->{mid}"),
            (sw_ns[mid], tor, idx + 1, f"{mid}->{tor}"),
        ):
            _tbf(ns_, dev, rate, switch_limit)
            _attach(ns_, dev, "egress", progs["switch_egress"])
            trunk.append(Port(0, name, ns_, dev, ifi, rate))
        idx += 2
    for sw in switches:
        ns_ = sw_ns[sw]
        for i in range(t.hosts):
            for fam in (0, 1) if i in tor_hosts else (0,):
                via = _next_hop(t, sw, i, fam)
                if via is not None:
                    run(
                        [
                            "ip",
                            "-n",
                            ns_,
                            "route",
                            "add",
                            f"10.{78 - fam}.{i}.0/24",
                            "via",
                            link_addr[(sw, via)],
                        ]
                    )
        if sw.startswith("tor"):
            # the far tor's trunk addresses over the path they are on (the per-hop measurement)
            for k, (tor, mid) in enumerate(TWO_PATH_TRUNKS):
                if tor != sw:
                    run(["ip", "-n", ns_, "route", "add", f"10.79.{k}.0/30", "via", link_addr[(sw, mid)]])
            # what comes from a path-1 address goes over path1, also to the far side's path-0 addresses
            run(["ip", "-n", ns_, "rule", "add", "from", "10.77.0.0/16", "table", str(MPTCP_TABLE)])
            for i in tor_hosts:
                if t.host_switch(i) != sw:
                    run(
                        [
                            "ip",
                            "-n",
                            ns_,
                            "route",
                            "add",
                            f"10.78.{i}.0/24",
                            "via",
                            link_addr[(sw, "path1")],
                            "table",
                            str(MPTCP_TABLE),
                        ]
                    )
    ports = down + trunk + nics
    for k, p in enumerate(ports):
        p.index = k
    return ports


def path_nodes(t: Layout | TwoPath, src: int, dst: int, family: int = 0) -> list[str]:
    """The nodes a packet from host `src` to host `dst`'s address of `family` crosses, in the
    simulator's names (h0, sw0, …): link k of the path is nodes[k-1] -> nodes[k]."""
    if isinstance(t, TwoPath):
        cur, end = t.host_switch(src), t.host_switch(dst)
        nodes = [f"h{src}", cur]
        while cur != end:
            cur = _next_hop(t, cur, dst, family)
            nodes.append(cur)
    else:
        a, b = t.host_switch[src], t.host_switch[dst]
        nodes = [f"h{src}", a] + ([b] if b != a else [])
    return nodes + [f"h{dst}"]


def _trunk_addr(node: str, other: str) -> str:
    """`node`'s address on its switch-to-switch link with `other` (a dumbbell's sw0-sw1, or
    two-path's tor-path links: 10.79.k.1 on the tor's side, .2 on the path switch's): the one
    address plan of the builders (build, build_two_path) and the per-hop measurement."""
    if {node, other} == {"sw0", "sw1"}:
        return "10.79.0.1" if node == "sw0" else "10.79.0.2"
    tor, mid = (node, other) if node.startswith("tor") else (other, node)
    k = TWO_PATH_TRUNKS.index((tor, mid))
    return f"10.79.{k}.{1 if node == tor else 2}"


def path_targets(t: Layout | TwoPath, src: int, dst: int, family: int = 0) -> tuple[list[str], list[str]]:
    """(nodes, addresses): path_nodes and, for each node after the source, its address on the link
    the path reaches it by: the per-hop measurement pings them in turn (hops.py). The first switch
    answers at its side of the source's link, later switches at their trunk address (reached over
    the routes to TRUNK_SUBNET), the destination at its address of `family`."""
    nodes = path_nodes(t, src, dst, family)
    addrs = [path_addr(family, src, switch_side=True)]
    addrs += [_trunk_addr(node, prev) for prev, node in zip(nodes[1:-2], nodes[2:-1])]
    return nodes, addrs + [path_addr(family, dst)]


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


def kernel_has_mptcp() -> bool:
    """Upstream MPTCP is built in (the per-namespace sysctl exists)."""
    return os.path.exists("/proc/sys/net/mptcp/enabled")


def cleanup_all() -> list[str]:
    """Remove every namespace (with its links and qdiscs) and BPF object of the testbed."""
    removed = delete_namespaces()
    try:
        removed += bpfctl.cleanup()
    except (CommandError, OSError):
        pass
    return removed
