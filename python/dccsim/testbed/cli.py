"""`dccsim testbed run <scenario.toml|experiment> (--cc <algorithm> | --plugin <file.bpf.c>) [--out DIR] [--json] [--duration T] [--compare]`

Runs a scenario on the real-Linux namespace testbed and writes the simulator's result schema.
Exit codes: 0 ok, 1 the run failed, 2 bad input or missing kernel feature/tool."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

from ..usage import OneLineParser
from . import bpfctl, cpuload, kernel_cc, topology
from .nsutil import CommandError
from .scenario import ScenarioError, load


class _Interrupted(Exception):
    pass


def _on_signal(signum, _frame):
    raise _Interrupted(signal.Signals(signum).name)


def _parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="dccsim testbed", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run a scenario with one algorithm")
    r.add_argument("scenario", help="scenario TOML file or experiment name")
    r.add_argument(
        "--plugin",
        type=Path,
        default=None,
        help="run this congestion-control plugin (NAME.bpf.c, docs/plugins.md) as struct_ops instead of --cc",
    )
    r.add_argument(
        "--cc",
        help=f"algorithm: {', '.join(bpfctl.ALGORITHMS)} (eBPF), or the kernel's "
        f"{', '.join(kernel_cc.KERNEL)} (linux-dctcp where the kernel has it)",
    )
    r.add_argument("--out", type=Path, default=None, help="result directory (default runs/<name>-testbed)")
    r.add_argument("--force", action="store_true", help="replace an output directory holding another run")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.add_argument("--duration", default=None, help="override the scenario duration, e.g. 2s")
    r.add_argument("--tau", default=None, help="base RTT of the control laws (default: measured)")
    r.add_argument(
        "--host-rate",
        default=None,
        help="override topology.host_rate (default: the scenario's, capped at what this machine "
        "runs link-bound: 150 Mbps per CPU, docs/testbed.md)",
    )
    r.add_argument(
        "--compare",
        action="store_true",
        help="also run the simulator on the same scenario and law, then print `dccsim compare`",
    )
    r.add_argument(
        "--sim-out",
        type=Path,
        default=None,
        help="result directory of the simulator's side of --compare (default OUT-sim)",
    )
    r.add_argument(
        "--no-calibrate",
        action="store_true",
        help="--compare: keep the scenario's link delays on the simulator's side (default: its host "
        "delay is set so that its base RTT is the testbed's measured tau)",
    )
    r.add_argument("-q", "--quiet", action="store_true")
    sub.add_parser("cleanup", help="remove leftover testbed namespaces and BPF objects")
    return ap


def _err(msg: str, code: int) -> int:
    print(f"dccsim: error: {msg}" if code == 2 else f"dccsim testbed: {msg}", file=sys.stderr)
    return code


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    if args.cmd == "cleanup":
        problem = topology.check_tools()
        if problem:
            return _err(problem, 2)
        for what in topology.cleanup_all():
            print(f"removed {what}")
        return 0

    try:
        if (args.cc is None) == (args.plugin is None):
            raise ValueError("--cc: give one algorithm with --cc, or a plugin with --plugin")
        if args.plugin is not None:
            from .. import plugins

            alg = plugins.display_name("plugin:" + args.plugin.name.removesuffix(".c"))
        else:
            alg = bpfctl.canonical(args.cc)
        sc = load(args.scenario, args.duration, args.host_rate)
        capped = None
        if args.host_rate is None and sc.host_rate_bps > cpuload.default_rate_cap_bps():
            # a rate the machine cannot forward would measure its CPUs, not the control law
            capped = sc.host_rate_bps
            sc = load(args.scenario, args.duration, f"{cpuload.default_rate_cap_bps()}bps")
        if args.plugin is not None:
            plugins.check_params(args.plugin, {k: v for k, v in sc.cc_params.items() if k != "plugin"})
        tau_ns = None
        if args.tau:
            from ..units import parse_time

            tau_ns = parse_time(args.tau, "--tau") // 1000
    except (ValueError, ScenarioError) as e:
        return _err(str(e), 2)
    problem = topology.check_tools()
    if problem:
        return _err(problem, 2)
    if alg in kernel_cc.KERNEL:
        problem = kernel_cc.ensure(alg)
        if problem:
            return _err(problem, 2)
    if any(f.subflows > 1 for f in sc.flows) and not topology.kernel_has_mptcp():
        return _err(
            "flows.subflows: this kernel has no MPTCP (net.mptcp.enabled); multipath flows need it", 2
        )
    if topology.leftover_namespaces() or any(n.startswith("dccsim_") for n in bpfctl.registered()):
        return _err("another testbed run is active or left state behind; run `dccsim testbed cleanup`", 2)

    log = (
        (lambda s: None)
        if (args.quiet or args.json)
        else (lambda s: print(f"[testbed] {s}", file=sys.stderr))
    )
    out = args.out or Path("runs") / f"{sc.name}-testbed"
    # the results are written to a staging directory beside `out` and moved into place only when
    # complete (python/dccsim/outdir.py): a failed or interrupted run leaves `out` as it was
    from .. import outdir

    try:
        staging = outdir.prepare(out, force=args.force, scenario_text=sc.text)
    except outdir.OutputError as e:
        return _err(str(e), 2)
    if capped:
        print(
            f"dccsim testbed: host rate {sc.host_rate_bps / 1e6:g} Mbps instead of the scenario's "
            f"{capped / 1e6:g} Mbps: this machine's {cpuload.os.cpu_count()} CPUs forward about "
            f"{cpuload.LINK_BOUND_BPS_PER_CPU / 1e6:g} Mbps each link-bound (set --host-rate to override)",
            file=sys.stderr,
        )
    committed = False
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    t_wall = time.time()
    code = 0
    interrupted = None
    compare_with = None
    try:
        try:
            build_dir = bpfctl.build()
        except CommandError as e:
            return _err(f"cannot build the BPF programs: {str(e).splitlines()[-1]}", 2)
        bpfctl.ensure_bpffs()
        from . import runner
        from .results import now_utc, write

        started = now_utc()
        try:
            res = runner.run(sc, alg, build_dir, tau_ns, log, plugin=args.plugin)
        except CommandError as e:
            msg = str(e).splitlines()[0] if str(e) else "command failed"
            return _err(f"kernel feature or tool failed: {msg}", 2)
        summary = write(
            staging,
            sc,
            alg,
            res,
            started,
            time.time() - t_wall,
            ["dccsim", "testbed"] + list(argv),
            {
                "scenario": sc.source,
                "algorithm": alg,
                "host_rate_bps": sc.host_rate_bps,
                "testbed_params": res.params,
                "bpf_port_counters": res.bpf_stats,
            },
        )
        outdir.commit(staging, out)
        committed = True
        if args.json:
            print(json.dumps(summary, sort_keys=True))
        else:
            s = res.summary
            print(
                f"{sc.name} / {alg}: {s['bytes_delivered'] * 8 / (s['sim_time_ps'] / 1e12) / 1e9:.3f} Gbps delivered, "
                f"{s['flows_completed']}/{len(sc.flows)} flows completed, {s['ecn_marked']} CE marks, "
                f"{s['packets_dropped']} drops, tau {res.tau_ns / 1000:.1f} us -> {out}"
            )
            if s["cpu"]["cpu_bound"]:
                print(f"warning: {s['cpu']['reason']}")
        if "errors" in res.summary:
            code = 1
        compare_with = res.params
    except (KeyboardInterrupt, _Interrupted) as e:
        interrupted = str(e) or "SIGINT"
    except Exception as e:  # noqa: BLE001  any other failure: clean up, one line, exit 1
        code = _err(f"run failed: {type(e).__name__}: {e}", 1)
    finally:
        # a second Ctrl-C or TERM must not cut the teardown short
        held = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            if not committed:
                outdir.discard(staging, out)
            topology.cleanup_all()
        finally:
            for s, h in held.items():
                signal.signal(s, h)
            for s, h in old.items():
                signal.signal(s, h)
    if interrupted:
        code = _err(f"interrupted ({interrupted}); cleaned up", 130)
    elif args.compare and compare_with is not None:
        if alg in kernel_cc.SIM_COUNTERPART and kernel_cc.SIM_COUNTERPART[alg] is None:
            print(
                f"dccsim testbed: {alg} has no simulator counterpart; ran the testbed only", file=sys.stderr
            )
        else:
            code = max(code, _compare(sc, alg, compare_with, out, args))
    return code


def _compare(sc, alg: str, testbed_params: dict, out: Path, args) -> int:
    """--compare: the simulator on the same scenario, law and marking, then `dccsim compare`
    (simulator = A, testbed = B). Runs after the teardown, so the testbed is already clean."""
    from .. import compare
    from . import simside

    sim_out = args.sim_out or out.with_name(out.name + "-sim")
    quiet = args.quiet or args.json
    try:
        _, matched = simside.run(
            sc,
            alg,
            testbed_params,
            sim_out,
            quiet=True,
            calibrated=not args.no_calibrate,
            plugin=args.plugin,
        )
    except Exception as e:  # noqa: BLE001  the testbed run is written; say why the sim side is not
        return _err(f"simulator side of --compare failed: {type(e).__name__}: {e}", 1)
    cargs = simside.compare_args(sc, alg, sim_out, out) + (["--json"] if args.json else [])
    if not quiet:
        ecn = matched["ecn"]
        print(
            f"simulator: tau {matched['tau_ps'] / 1e6:.1f} us, rto {matched['rto_ps'] / 1e9:g} ms, "
            f"cc {matched['cc']['algorithm']} {json.dumps(matched['cc']['params'], sort_keys=True)}, "
            f"ecn {json.dumps({k: v for k, v in ecn.items() if v is not None}, sort_keys=True)} -> {sim_out}"
        )
        print(
            f"testbed:   tau {testbed_params['tau_ns'] / 1e3:.1f} us, "
            f"ecn {json.dumps(testbed_params.get('ecn'), sort_keys=True)}"
        )
        cal = matched.get("calibration")
        if cal:
            print(
                f"calibration: simulator host delay {cal['scenario_host_delay_ps'] / 1e6:g} -> "
                f"{cal['host_delay_ps'] / 1e6:g} us, base RTT {cal['scenario_tau_ps'] / 1e6:.1f} -> "
                f"{cal['tau_ps'] / 1e6:.1f} us (testbed {cal['testbed_tau_ps'] / 1e6:.1f} us)"
                + (f"; not matched: {cal['note']}" if not cal["matched"] else "")
            )
            for line in simside.hop_lines(cal.get("links") or []):
                print(line)
        print("$ dccsim compare " + " ".join(cargs))
    return compare.main(cargs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
