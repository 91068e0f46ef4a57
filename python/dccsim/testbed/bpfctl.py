"""Build, register and configure the testbed's BPF objects (bpf/ at the repository root)."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

from . import kernel_cc
from .nsutil import CommandError, run

BPFFS = "/sys/fs/bpf"
PIN_PREFIX = "dccsim_"
TC_PIN_DIR = f"{BPFFS}/dccsim_tc"
FP_ONE = 1 << 20

# algorithm name (as in the simulator) -> its law's plugin source bpf/laws/<stem>.bpf.c (the file the
# simulator also runs), built inside plugin_kernel.bpf.c as build/law_<stem>.bpf.o (bpf/Makefile) /
# kernel congestion-control name
ALGORITHMS = {
    "powertcp": ("powertcp", "dccsim_powertcp"),
    "theta-powertcp": ("theta_powertcp", "dccsim_theta"),
    "dctcp": ("dctcp", "dccsim_dctcp"),
    "tbtcp": ("tbtcp", "dccsim_tbtcp"),
    "swift": ("swift", "dccsim_swift"),
}
ALIASES = {"theta": "theta-powertcp", "thetapowertcp": "theta-powertcp", "θ-powertcp": "theta-powertcp"}
ECN_KIND = {"none": 0, "step": 1, "red": 2, "tbtcp": 3}


def bpf_dir() -> Path:
    env = os.environ.get("DCCSIM_BPF_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "bpf"


def canonical(alg: str) -> str:
    """The testbed algorithm `alg` names: an eBPF controller (ALGORITHMS) or one of the kernel's
    own (kernel_cc.KERNEL). One rule with the simulator: names are exact (lowercase), never
    case-folded."""
    a = ALIASES.get(alg, alg)
    if a not in ALGORITHMS and a not in kernel_cc.KERNEL:
        raise ValueError(
            f"--cc: unknown algorithm '{alg}'; allowed (exact, lowercase): "
            f"{', '.join([*ALGORITHMS, *kernel_cc.KERNEL])}"
        )
    return a


def law_source(alg: str) -> Path:
    """The plugin source of an eBPF controller's law (bpf/laws/, docs/plugins.md)."""
    return bpf_dir() / "laws" / f"{ALGORITHMS[alg][0]}.bpf.c"


def build() -> Path:
    d = bpf_dir()
    run(["make", "-s", "-C", str(d)])
    return d / "build"


def ensure_bpffs() -> None:
    with open("/proc/mounts") as f:
        if any(line.split()[1] == BPFFS and line.split()[2] == "bpf" for line in f):
            return
    os.makedirs(BPFFS, exist_ok=True)
    run(["mount", "-t", "bpf", "bpf", BPFFS])


def struct_ops_maps() -> list[str]:
    """Names of the struct_ops maps the kernel holds, including unregistered ones still draining
    (referenced by sockets that have not been freed yet)."""
    out = run(["bpftool", "-j", "struct_ops", "list"], check=False) or "[]"
    try:
        return [e.get("name", "") for e in json.loads(out)]
    except json.JSONDecodeError:
        return []


def registered() -> list[str]:
    """Congestion controls that sockets can select now."""
    with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
        return f.read().split()


PLUGIN_CC = "dccsim_plugin"  # the congestion control a plugin registers as (bpf/plugin_kernel.bpf.c)


def build_plugin(source: Path, build_dir: Path) -> Path:
    """The struct_ops object of a plugin source (bpf/plugin_kernel.bpf.c including it, unchanged)."""
    import hashlib
    import platform

    src = source.resolve()
    parts = [src] + [
        bpf_dir() / h
        for h in ("plugin_kernel.bpf.c", "plugin_api.h", "cc_bpf.h", "cc_math.h", "common.h", "bpf_maps.h")
    ]
    from ..plugins import local_includes

    texts = [p.read_bytes() for p in parts]
    texts += local_includes(texts[0], [src.parent, bpf_dir()])  # e.g. bpf/laws/power_common.h
    digest = hashlib.sha256(b"\0".join(texts)).hexdigest()[:16]
    obj = build_dir / f"plugin_{digest}.bpf.o"
    if not obj.exists():
        arch = {"x86_64": "x86", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
        run(
            [
                "clang", "-O2", "-g", "-target", "bpf", "-mcpu=v3", f"-D__TARGET_ARCH_{arch}",
                "-I", str(build_dir), "-I", str(bpf_dir()), "-I", str(src.parent),
                f'-DPLUGIN_SOURCE="{src}"', "-c", str(bpf_dir() / "plugin_kernel.bpf.c"), "-o", str(obj),
            ]
        )  # fmt: skip
    return obj


def set_plugin_params(raw: list[int], line_rate_bps: int, base_rtt_ns: int) -> None:
    """The plugin's parameters (raw, declaration order) and flow facts (dccsim_plugin_params)."""
    values = list(raw) + [0] * (16 - len(raw))
    map_update(
        "dccsim_plugin_params",
        struct.pack("=I", 0),
        struct.pack("=16qQQ", *values, line_rate_bps, base_rtt_ns),
    )


def register(alg: str, build_dir: Path, plugin: Path | None = None) -> str:
    """The kernel name of `alg`'s congestion control, registering an eBPF one first (a kernel
    control is there already: kernel_cc.ensure); with `plugin`, that plugin's struct_ops."""
    if plugin is not None:
        run(["bpftool", "struct_ops", "register", str(build_plugin(plugin, build_dir))])
        return PLUGIN_CC
    if alg in kernel_cc.KERNEL:
        return kernel_cc.KERNEL[alg]
    stem, name = ALGORITHMS[alg]
    if name not in registered():
        run(["bpftool", "struct_ops", "register", str(build_dir / f"law_{stem}.bpf.o")])
    return name


def load_tc(build_dir: Path) -> dict[str, str]:
    if not os.path.exists(TC_PIN_DIR):
        run(["bpftool", "prog", "loadall", str(build_dir / "tc.bpf.o"), TC_PIN_DIR, "type", "classifier"])
    return {"switch_egress": f"{TC_PIN_DIR}/switch_egress", "host_ingress": f"{TC_PIN_DIR}/host_ingress"}


def _hex(b: bytes) -> list[str]:
    return [f"0x{x:02x}" for x in b]


def map_update(name: str, key: bytes, value: bytes) -> None:
    run(["bpftool", "map", "update", "pinned", f"{BPFFS}/{name}", "key", *_hex(key), "value", *_hex(value)])


def set_cc_cfg(
    *,
    tau_ns: int,
    host_bdp: int,
    beta: int,
    gamma: float,
    power_floor: float,
    tb_alpha: float,
    tb_scale: int,
    dctcp_g_shift: int,
    min_cwnd_pkts: int,
    pace: bool,
) -> None:
    v = struct.pack(
        "=QQQIIIIIIII",
        tau_ns,
        host_bdp,
        beta,
        round(gamma * FP_ONE),
        round(power_floor * FP_ONE),
        round(tb_alpha * FP_ONE),
        tb_scale,
        dctcp_g_shift,
        min_cwnd_pkts,
        int(pace),
        0,
    )
    map_update("dccsim_cfg", struct.pack("=I", 0), v)


def set_port_cfg(
    ifindex: int,
    *,
    rate_bps: int,
    int_on: bool,
    ecn_kind: str,
    k_bytes=0,
    kmin_bytes=0,
    kmax_bytes=0,
    pmax=0.0,
    bdp_bytes=0,
    tmin_bytes=0,
) -> None:
    p32 = min(0xFFFFFFFF, int(pmax * 2**32))
    v = struct.pack(
        "=QIIIIIIII",
        rate_bps,
        int(int_on),
        ECN_KIND[ecn_kind],
        k_bytes,
        kmin_bytes,
        kmax_bytes,
        p32,
        bdp_bytes,
        tmin_bytes,
    )
    map_update("dccsim_port", struct.pack("=I", ifindex), v)


def port_stats() -> dict[int, dict]:
    """ifindex -> {pkts, stamped, marked, ect, max_qlen} counted by switch_egress."""
    out = run(["bpftool", "-j", "map", "dump", "pinned", f"{BPFFS}/dccsim_pstat"], check=False)
    res: dict[int, dict] = {}
    try:
        entries = json.loads(out or "[]")
    except json.JSONDecodeError:
        return res
    for e in entries:
        if "formatted" in e:
            e = e["formatted"]
        k, v = e.get("key"), e.get("value")
        if isinstance(k, list):
            k = struct.unpack("=I", bytes(int(x, 16) for x in k))[0]
            raw = bytes(int(x, 16) for x in v)
            v = dict(zip(("pkts", "stamped", "marked", "ect", "max_qlen"), struct.unpack("=QQQQQ", raw)))
        res[int(k)] = v
    return res


def cleanup() -> list[str]:
    """Unregister every dccsim struct_ops and remove the pins; returns what was removed."""
    removed = []
    live = set(registered())
    for name in struct_ops_maps():
        if name.startswith(PIN_PREFIX) and name in live:
            try:
                run(["bpftool", "struct_ops", "unregister", "name", name])
                removed.append(f"struct_ops {name}")
            except CommandError:
                pass
    if os.path.isdir(BPFFS):
        for entry in os.listdir(BPFFS):
            if entry.startswith(PIN_PREFIX):
                p = os.path.join(BPFFS, entry)
                if os.path.isdir(p):
                    for sub in os.listdir(p):
                        os.unlink(os.path.join(p, sub))
                    os.rmdir(p)
                else:
                    os.unlink(p)
                removed.append(f"pin {entry}")
    return removed
