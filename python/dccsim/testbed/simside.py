"""The simulator's side of `dccsim testbed run … --compare`: the same scenario, the same control law
and the same switch marking rule, run in the engine, then `dccsim compare` of the two.

What is matched (docs/testbed.md, "Sim vs testbed in one command"):
  - the scenario file with the testbed run's overrides (duration, host rate);
  - the control law: the engine's native controller of the testbed run's law (`[cc] law`, by
    default the simulator's default law), which the eBPF controller's plugin source also runs
    (crates/engine/tests/vectors.rs checks the two against each other), with the testbed's
    [cc] parameters translated to the engine's names; β = HostBw·τ/expected_flows with the
    simulator's own τ, as the testbed derives it from its τ;
  - the kernel's own controllers (testbed/kernel_cc.py): CUBIC, NewReno and DCTCP of the engine
    for the kernel's cubic, reno and dctcp; BBR has no counterpart;
  - the retransmission timer: Linux's minimum RTO (`host.rto = 200ms`) for every algorithm, since
    the kernel's timer, not the scenario's `host.rto`, is what the testbed ran — a struct_ops
    congestion control (the eBPF laws) sets the window and pacing rate, never the RTO;
  - loss recovery: Linux's SACK (`host.recovery = "sack"`, kernel_cc.SIM_RECOVERY) for every
    algorithm, since the kernel's TCP recovers under all of them;
  - when the window is the limit: as Linux decides it (`host.linux_window`,
    kernel_cc.SIM_LINUX_WINDOW): the host queue counts in flight for every window law, and slow
    start grows below twice the largest flight (docs/testbed.md, "DCTCP's incast");
  - the marking when the scenario has `ecn = none`: DCTCP gets the testbed's step K (bytes, as
    recorded by the run), TBTCP the queue-cancelling curve p = q/(BDP + q) capped at 0.5 with
    BDP = C·τ of the simulator, the testbed's rule applied to the simulator's τ. A scenario that sets
    its own marking keeps it on both sides.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ..scenario.to_engine import ecn_to_engine
from . import kernel_cc


class SimSideError(RuntimeError):
    pass


def sim_algorithm(alg: str) -> str:
    """The simulator's algorithm for the testbed's `alg` (SimSideError when it has none)."""
    if alg not in kernel_cc.SIM_COUNTERPART:
        return alg  # an eBPF law: the engine's algorithm of the same name
    sim = kernel_cc.SIM_COUNTERPART[alg]
    if sim is None:
        raise SimSideError(f"{alg} has no simulator counterpart")
    return sim


def _scenario(sc, alg: str, cc: dict | None = None):
    """The simulator's Scenario of the testbed scenario `sc` with the run's overrides. The [cc] table
    is reduced to the algorithm: its other keys are the testbed's (translated by `sim_cc`). Every
    algorithm gets Linux's minimum RTO (kernel_cc.SIM_RTO), SACK recovery (kernel_cc.SIM_RECOVERY)
    and Linux's window test (kernel_cc.SIM_LINUX_WINDOW): the kernel's timer, recovery and window
    test ran under all of them."""
    import copy

    from ..scenario import from_dict

    raw = copy.deepcopy(sc.raw)
    raw["cc"] = cc if cc is not None else {"algorithm": sim_algorithm(alg)}
    raw["host"] = {
        **raw.get("host", {}),
        "rto": kernel_cc.SIM_RTO,
        "recovery": kernel_cc.SIM_RECOVERY,
        "linux_window": kernel_cc.SIM_LINUX_WINDOW,
    }
    if isinstance(raw.get("experiment"), dict):
        raw["experiment"].pop("variants", None)  # replaced by the one run matched to the testbed's
    scn = from_dict(raw, default_name=sc.name)
    values = dict(scn.topology.values)
    if "host_rate" in values:
        values["host_rate"] = sc.host_rate_bps
    return dataclasses.replace(
        scn, topology=dataclasses.replace(scn.topology, values=values), duration_ps=sc.duration_ps
    )


def sim_tau_ps(scn) -> int:
    """τ the engine resolves for the scenario (its `base_rtt`, or the topology's maximum base RTT)."""
    return int(_probe(scn)["summary"]["base_rtt_ps"])


def sim_path_rtt_ps(scn) -> int:
    """The base RTT of the flows' own paths, the median over the scenario's flows, as the testbed's
    τ is the median over the flows' host pairs (runner.measure_tau). It differs from sim_tau_ps
    where idle hosts have longer paths (two-path's cross hosts)."""
    rtts = sorted(int(x) for x in _probe(scn, all_flows=True)["flows"]["base_rtt_ps"])
    return rtts[len(rtts) // 2]


def _probe(scn, all_flows: bool = False) -> dict:
    """The engine's result of the scenario run for 1 ps (its resolved τ and each flow's path RTT)."""
    from .. import engine

    cfg = scn.to_engine_config()
    cfg["duration_ps"] = 1
    if not all_flows:
        cfg["flows"] = cfg["flows"][:1]
    return engine.run(cfg)


CALIBRATION_STEP_PS = 1_000_000  # 1 us: the second host delay of calibrate()'s linear solve


def _with_host_delay(scn, delay_ps: int):
    values = {**scn.topology.values, "host_delay": delay_ps}
    return dataclasses.replace(scn, topology=dataclasses.replace(scn.topology, values=values))


def delay_key(link: str) -> str:
    """The topology key of a link's delay in the simulator: `host_delay` for a host's link, a
    dumbbell's `bottleneck_delay`, two-path's `path<k>_delay` for a tor–path link."""
    a, b = link.split("->")
    if a[0] == "h" or b[0] == "h":  # hosts are h<i>; switches sw<i>, tor<i>, path<i>
        return "host_delay"
    if {a, b} == {"sw0", "sw1"}:
        return "bottleneck_delay"
    return f"{a if a.startswith('path') else b}_delay"


def hop_rows(scn, hops: list[dict]) -> list[dict]:
    """Per link of each measured path (runner.measure_tau's `hops`): the testbed's one-way latency
    beyond serialization beside the simulator's delay of that link (its topology key's value)."""
    return [
        {
            "path": k,
            "link": link,
            "family": path["family"],
            "testbed_latency_ps": None if lat is None else int(lat) * 1000,
            "delay_key": delay_key(link),
            "sim_delay_ps": int(scn.topology.values.get(delay_key(link), 0)),
        }
        for k, path in enumerate(hops)
        for link, lat in zip(path["links"], path["latency_ns"])
    ]


def hop_lines(rows: list[dict]) -> list[str]:
    """hop_rows as lines, one per measured path: each link's testbed latency / simulator delay."""

    def us(ps):
        return "-" if ps is None else f"{ps / 1e6:.1f}"

    paths: dict[int, list[str]] = {}
    for r in rows:
        paths.setdefault(r["path"], []).append(
            f"{r['link']} {us(r['testbed_latency_ps'])}/{us(r['sim_delay_ps'])}"
        )
    return [
        "per-hop one-way latency, testbed/simulator (us): " + ", ".join(cells) for cells in paths.values()
    ]


def calibrate(scn, target_tau_ps: int, hops: list[dict] = ()) -> tuple[object, dict]:
    """The scenario with the testbed's conditions (issue 29 item 4), and what was done:

    1. the host links' delay is set so that the base RTT of the flows' paths (sim_path_rtt_ps) is
       the testbed's τ. That RTT is linear in the host delay (each round trip crosses a fixed
       number of host links), so two engine probes solve it; the delay cannot go below 0, so a τ
       under the simulator's zero-delay RTT (serialization alone) is matched as closely as it can
       be and said so. Switch-to-switch links keep the scenario's delay: the testbed's per-hop
       measurement (`hops`, hops.py) puts a whole path's ICMP round trip at 5–11 % of the TCP
       probe's τ and does not resolve one link's share (docs/testbed.md, "Per-hop delays"),
       so τ is the end hosts' and goes on their links. `links` sets the two side by side;
    2. `base_rtt` is the testbed's τ, so both sides' laws, β, BDP caps and TBTCP curve use the
       same τ even where the simulator's longest path (an idle host's) is longer than the flows'.
    """
    d0 = int(scn.topology.values.get("host_delay", 0))
    rtt0 = sim_path_rtt_ps(scn)
    rtt1 = sim_path_rtt_ps(_with_host_delay(scn, d0 + CALIBRATION_STEP_PS))
    slope = (rtt1 - rtt0) / CALIBRATION_STEP_PS
    want = d0 + (target_tau_ps - rtt0) / slope if slope > 0 else d0
    delay = max(0, round(want))
    out = _with_host_delay(scn, delay)
    rtt = sim_path_rtt_ps(out)
    out = dataclasses.replace(out, base_rtt_ps=int(target_tau_ps))
    return out, {
        "testbed_tau_ps": int(target_tau_ps),
        "scenario_tau_ps": int(rtt0),
        "scenario_host_delay_ps": d0,
        "host_delay_ps": delay,
        "tau_ps": int(rtt),
        "matched": abs(rtt - target_tau_ps) <= max(1, slope),  # to the picosecond of delay
        "note": "" if want >= 0 else "the testbed's tau is below the simulator's zero-delay RTT",
        "links": hop_rows(out, list(hops)),
    }


def sim_cc(alg: str, tb: dict, host_rate_bps: int, tau_ps: int) -> dict:
    """The engine's parameters of the testbed's law (testbed/laws.py) for its [cc] table `tb`; β =
    HostBw·τ/expected_flows with the simulator's own τ, as the testbed derives it from its τ."""
    from . import laws

    if alg in laws.LAWS:
        return laws.native_params(alg, tb, host_rate_bps * tau_ps / 8e12, tau_ps / 1000)
    if alg == "linux-dctcp":
        return {"law": "linux", "g": float(tb.get("g", 1 / 16))}
    if alg in ("cubic", "reno"):
        return {}  # the engine's CUBIC (RFC 9438, with Linux's HyStart) and NewReno (RFC 5681/6582), defaults
    raise SimSideError(f"no simulator mapping for '{alg}'")


def _one_rule(tb_ecn: dict) -> dict:
    """The testbed's marking as one rule: it records one dict when every switch port marks alike,
    else one per port (a dumbbell's or a two-path's ports of different rates). Per port, the
    rules must be of one kind and, for a step, of one K; TBTCP's curves differ only by the port's
    BDP, which the simulator's one curve takes from the slowest link (see sim_ecn)."""
    if "ecn_kind" in tb_ecn or not tb_ecn:
        return tb_ecn
    rules = list(tb_ecn.values())
    kinds = {r.get("ecn_kind") for r in rules}
    if len(kinds) != 1:
        return {}
    if kinds == {"step"} and len({r.get("k_bytes") for r in rules}) != 1:
        return {}
    return rules[0]


def sim_ecn(scn, alg: str, tb_ecn: dict, tau_ps: int):
    """The Ecn the simulator uses for this run (None = the scenario's own)."""
    from ..scenario import Ecn

    if scn.switch.ecn.kind != "none":
        return None
    tb_ecn = _one_rule(tb_ecn)
    if alg in ("dctcp", "linux-dctcp") and tb_ecn.get("ecn_kind") == "step":
        return Ecn("step", k_bytes=int(tb_ecn["k_bytes"]))
    if alg == "tbtcp" and tb_ecn.get("ecn_kind") == "tbtcp":
        # the marked port is the bottleneck: a host downlink, a dumbbell's slower trunk or the
        # slower of two paths (the engine's curve has one BDP for every port; the testbed's
        # follows each port's rate, so the simulator marks a faster path's queue more)
        links = ("host_rate", "bottleneck_rate", "path0_rate", "path1_rate")
        rate = min(v for k, v in scn.topology.values.items() if k in links)
        bdp = max(int(rate * tau_ps // 8_000_000_000_000), 1)
        return Ecn("curve", bdp_bytes=bdp, tmin_bytes=0, pmax=float(tb_ecn.get("pmax", 0.5)))
    return None


def run(
    sc,
    alg: str,
    testbed_params: dict,
    out: Path,
    quiet: bool = False,
    calibrated: bool = True,
    plugin=None,
) -> tuple[Path, dict]:
    """Run the simulator's side into OUT; returns (OUT, what was matched). `calibrated`: the
    simulator's host delay is set so that its flows' base RTT is the testbed's τ, and its `base_rtt`
    is that τ (calibrate), so both sides' control laws, β, BDP caps and TBTCP curve use the same τ;
    else the scenario's delays and τ.
    `plugin`: the source the testbed ran (--plugin); the simulator runs the same file with the same
    [cc] parameters."""
    from .. import runner
    from ..errors import ScenarioError
    from ..scenario import CcSpec, Experiment, Variant

    plugin_cc = None
    if plugin is not None:
        plugin_cc = {k: v for k, v in sc.cc_params.items() if k != "plugin"}
        plugin_cc["plugin"] = str(Path(plugin).resolve())
    try:
        scn = _scenario(sc, alg, plugin_cc)
    except (ScenarioError, ValueError) as e:
        raise SimSideError(f"the simulator cannot load the scenario: {e}") from None
    calibration = None
    if calibrated and testbed_params.get("tau_ns") and scn.base_rtt_ps is None:
        hops = testbed_params.get("hops") or []
        scn, calibration = calibrate(scn, int(testbed_params["tau_ns"]) * 1000, hops)
    tau_ps = sim_tau_ps(scn)
    if plugin is not None:
        cc = scn.cc  # the same plugin file, compiled for the simulator, with the same parameters
    else:
        cc = CcSpec(sim_algorithm(alg), sim_cc(alg, sc.cc_params, sc.host_rate_bps, tau_ps))
    ecn = sim_ecn(scn, alg, testbed_params.get("ecn") or {}, tau_ps)
    variant = Variant(alg, cc, ecn)
    exp = scn.experiment or Experiment()
    scn = dataclasses.replace(scn, experiment=dataclasses.replace(exp, variants=(variant,)))
    argv = ["dccsim", "testbed", "--compare", "(simulator side)"]
    try:
        runner.run(scn, out, progress=not quiet, argv=argv)
    except ScenarioError:
        # the experiment's analysis cannot run on this duration (e.g. a short run ends before the
        # last flow starts); compare does not need it
        scn = dataclasses.replace(scn, experiment=dataclasses.replace(scn.experiment, analysis=None))
        runner.run(scn, out, progress=not quiet, argv=argv)
    matched = {
        "tau_ps": tau_ps,
        "rto_ps": scn.host.rto_ps,
        "recovery": scn.host.recovery,
        "linux_window": scn.host.linux_window,
        "cc": cc.to_engine(),
        "ecn": ecn_to_engine(ecn if ecn is not None else scn.switch.ecn),  # {"kind", fields}
        "calibration": calibration,
    }
    (Path(out) / "matched.json").write_text(json.dumps(matched, indent=1, sort_keys=True) + "\n")
    return Path(out), matched


def compare_args(sc, alg: str, sim_out: Path, tb_out: Path) -> list[str]:
    """`dccsim compare` arguments: simulator first, testbed second; the experiment's bottleneck and
    incast start when it names them."""
    from ..scenario import loads
    from ..scenario.model import slugify

    # the simulator's variant directory is the slug of the name (a plugin's `delay_aimd` is
    # `delay-aimd` there); the testbed's run keeps the name
    args = [f"{sim_out}:{slugify(alg)}", f"{tb_out}:{alg}"]
    try:
        exp = loads(sc.text, default_name=sc.name).experiment
    except ValueError:
        exp = None
    params = exp.params if exp else {}
    if params.get("bottleneck"):
        args += ["--port", str(params["bottleneck"])]
    elif sc.topology_kind == "two-path":  # path 0's first hop (the multipath part reads both paths)
        args += ["--port", "tor0->path0"]
    if params.get("t0"):
        args += ["--t0", f"{int(params['t0'])}ps"]
    return args
