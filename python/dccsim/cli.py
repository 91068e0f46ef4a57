"""The `dccsim` command line.

Bad input (scenario errors, engine ValueErrors) prints one line
`dccsim: error: <field>: <message>` on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from . import termination
from .errors import EngineUnavailable, InvariantViolation, ScenarioError
from .usage import OneLineParser

EXIT_USAGE = 2
EXIT_FAILED = 1  # the run itself failed (an end-of-run invariant of the engine does not hold)


def _fail(message: str) -> int:
    print(f"dccsim: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_list(args) -> int:
    from . import listing
    from .results import json_text

    if args.json:
        sys.stdout.write(
            json_text({"experiments": listing.experiments_table(), "algorithms": listing.algorithms_table()})
        )
        return 0
    if args.algorithms:
        print(listing.format_algorithms(listing.algorithms_table()))
        return 0
    table = listing.experiments_table()
    w = max((len(e["name"]) for e in table), default=0)
    for e in table:
        if "error" in e:
            print(f"{e['name']:{w}s}  (cannot be loaded: {e['error']})")
        else:
            print(f"{e['name']:{w}s}  {listing.first_sentence(e['title'])}")
    return 0


def cmd_show(args) -> int:
    from .experiments import resolve
    from .scenario import dump_toml

    if args.algorithm:
        from . import listing

        print(listing.format_algorithm(listing.algorithm(args.algorithm)))
        return 0
    if not args.experiment:
        raise ScenarioError("show", "name an experiment, a scenario file, or --algorithm NAME")
    sys.stdout.write(dump_toml(resolve(args.experiment, args.set or ())))
    return 0


def with_pcap(scn, ports):
    """The scenario with `ports` added to `metrics.pcap` (checked like the file's own)."""
    from .scenario import from_dict, to_dict

    d = to_dict(scn)
    m = d.setdefault("metrics", {})
    m["pcap"] = list(m.get("pcap", [])) + list(ports)
    return from_dict(d, default_name=scn.name)


def with_log(scn, specs):
    """The scenario with `specs` (`cc:flow=3,node=h2`) added to `metrics.log` (checked by the engine)."""
    from .scenario import from_dict, to_dict

    d = to_dict(scn)
    m = d.setdefault("metrics", {})
    m["log"] = list(m.get("log", [])) + list(specs)
    return from_dict(d, default_name=scn.name)


def with_check(scn):
    """The scenario with the engine's end-of-run invariants checked (`[engine] check = true`)."""
    import dataclasses

    return dataclasses.replace(scn, engine=dataclasses.replace(scn.engine, check=True))


def with_threads(scn, threads: int):
    """The scenario run on `threads` OS threads (`[engine] threads`; results do not depend on it)."""
    import dataclasses

    if threads < 1:
        raise ScenarioError("--threads", f"must be at least 1, got {threads}")
    return dataclasses.replace(scn, engine=dataclasses.replace(scn.engine, threads=threads))


def with_plugin(scn, path: str):
    """The scenario with its controller replaced by the plugin at `path` (compiled if a .c) and its
    experiment's variants dropped: one run of the plugin on the scenario's network and flows."""
    from .scenario import from_dict, to_dict

    d = to_dict(scn)
    d["cc"] = {"plugin": str(Path(path).resolve())}
    d.pop("experiment", None)
    try:
        return from_dict(d, default_name=scn.name)
    except ScenarioError as e:
        if e.field.startswith("cc.plugin"):
            raise ScenarioError(
                "--plugin", str(e).partition(": ")[2].replace(str(Path(path).resolve()), path, 1)
            ) from None
        raise


def cmd_run(args) -> int:
    from . import runner
    from .experiments import default_out, resolve
    from .results import json_text

    edits = tuple(args.set or ()) + tuple(f"+{v}" for v in args.add_variant or ())
    scn = resolve(args.target, args.set or (), args.add_variant or ())
    if args.plugin:
        scn = with_plugin(scn, args.plugin)
    if args.seed is not None:
        scn = scn.with_seed(args.seed)
    if args.pcap:
        scn = with_pcap(scn, args.pcap)
    if args.fixed_scale:
        from .figure_layout import with_fixed_scale

        scn = with_fixed_scale(scn)
    if args.log:
        scn = with_log(scn, args.log)
    if args.check:
        scn = with_check(scn)
    if args.threads is not None:
        scn = with_threads(scn, args.threads)
    out = Path(_out_arg(args.out)) if args.out is not None else default_out(args.target, scn, edits)
    quiet = args.quiet or args.json
    if args.jobs is not None and args.jobs < 1:
        raise ScenarioError("--jobs", f"must be at least 1, got {args.jobs}")
    summary = runner.run(
        scn,
        out,
        variants=args.variant,
        progress=not quiet,
        argv=["dccsim"] + list(args.argv),
        figures=not args.no_figures,
        force=args.force,
        memory_limit=args.memory_limit,
        jobs=args.jobs,
    )
    _register(out)
    if not args.quiet:
        _say_pcaps(out, summary)
        _say_logs(out, summary)
    if args.json:
        sys.stdout.write(json_text(summary))
    elif args.quiet:
        print(out)
    else:
        print(runner.report(scn, summary))
        print(f"\nresults: {out}")
    return 0


def _say_pcaps(out: Path, summary: dict) -> None:
    """One stderr line naming the packet captures the run wrote (stdout stays the summary)."""
    from .pcap import LUA

    pcaps = [out / slug / "packets.pcap" for slug in summary.get("runs", {})]
    pcaps = [str(p) for p in pcaps if p.is_file()]
    if pcaps:
        where = ", ".join(pcaps) if len(pcaps) <= 3 else f"{out}/<variant>/packets.pcap ({len(pcaps)} files)"
        print(f"dccsim: packets captured: {where} (Wireshark: -X lua_script:{LUA})", file=sys.stderr)


def _say_logs(out: Path, summary: dict) -> None:
    """One stderr line naming the debug logs the run wrote (--log)."""
    logs = [out / slug / "log.txt" for slug in summary.get("runs", {})]
    logs = [p for p in logs if p.is_file()]
    for p in logs:
        n = sum(1 for _ in p.open())
        print(f"dccsim: debug log: {p} ({n} lines)", file=sys.stderr)


def _out_arg(value: str) -> str:
    """--out as given; an empty one is refused (not taken as "the default")."""
    if not value.strip():
        raise ScenarioError(
            "out", f"--out must name a directory, got {value!r} (leave --out out for the default)"
        )
    return value


def cmd_cc_new(args) -> int:
    from . import plugins

    path = plugins.scaffold(args.name, Path.cwd())
    print(f"wrote {path.name}: run it with `dccsim run powertcp-incast --plugin {path.name}`")
    return 0


def _register(run_dir, **kw) -> None:
    """List a finished run in the run index; a run-index problem never fails the run."""
    from . import runs_index

    try:
        runs_index.register_run(run_dir, **kw)
    except OSError as e:
        print(f"dccsim: warning: catalog: cannot register {run_dir}: {e}", file=sys.stderr)


def cmd_query(args) -> int:
    from . import runs_index
    from .results import json_text, sql_json

    names, rows = runs_index.query(args.sql, path=args.catalog)
    if args.json:  # a BLOB, INTERVAL, DECIMAL, ... as text (results.sql_json)
        sys.stdout.write(json_text([dict(zip(names, r)) for r in rows], default=sql_json))
        return 0
    if args.csv:
        import csv

        w = csv.writer(sys.stdout)
        w.writerow(names)
        w.writerows(rows)
        return 0
    table = [names] + [["NULL" if x is None else str(x) for x in r] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(names))]
    for n, r in enumerate(table):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    return 0


def cmd_figures(args) -> int:
    from .redraw import draw

    print(draw(args.dir, fixed_scale=args.fixed_scale))
    return 0


IMPORTS = ("hpcc-topology", "hpcc-flows", "hpcc-fct")
EXPORTS = ("hpcc-fct",)


def cmd_import(args) -> int:
    from .hpcc import fct, flows, topology

    topo = topology.load(args.topology) if args.topology else None
    if args.format == "hpcc-fct":
        if not args.out:
            raise ScenarioError("--out", "hpcc-fct writes a flow table; name it, e.g. --out fct.parquet")
        cols = fct.read(args.file, topo)
        fct.write_table(_out_arg(args.out), cols)
        print(f"{len(cols['flow_id'])} flow records -> {args.out}", file=sys.stderr)
        return 0
    if args.format == "hpcc-topology":
        if args.topology:
            raise ScenarioError(
                "--topology", "hpcc-topology reads FILE as the topology; use --flows for a flow file"
            )
        topo, flow_path = topology.load(args.file), args.flows
    else:
        if topo is None:
            raise ScenarioError(
                "--topology", "hpcc-flows needs the simulator's topology file (the flows name its nodes)"
            )
        if args.flows:
            raise ScenarioError("--flows", "hpcc-flows reads FILE as the flow file")
        flow_path = args.file
    if topo.ignored_from:
        print(
            f"dccsim: warning: {topo.ignored_from}: not read: it follows the {len(topo.links)} links the "
            "first line announces (the simulator reads no further)",
            file=sys.stderr,
        )
    flow_list, unread = flows.load(flow_path) if flow_path else ([], "")
    if unread:
        print(
            f"dccsim: warning: {unread}: not read: it follows the {len(flow_list)} flows the first line "
            "announces (the simulator reads no further)",
            file=sys.stderr,
        )
    if not flow_list:
        print(
            "dccsim: note: no flows given: the scenario runs a permutation of long flows ([workload])",
            file=sys.stderr,
        )
    name = Path(args.out).stem if args.out else Path(args.file).stem
    table = flows.scenario(topo, flow_list, name, str(flow_path))
    text = _scenario_text(table, *dict.fromkeys((args.topology or args.file, flow_path)))
    if args.out:
        from .results import write_text

        write_text(Path(_out_arg(args.out)), text)
        print(f"scenario with {len(topo.hosts)} hosts, {len(flow_list)} flows -> {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _scenario_text(table: dict, *sources) -> str:
    """The imported scenario as TOML, checked as `dccsim run` would read it."""
    import tomli_w

    from .scenario import from_dict

    from_dict(table, default_name=table["name"])  # every field checked before anything is written
    head = "".join(f"# imported from {s} (dccsim import)\n" for s in sources if s)
    return head + tomli_w.dumps(table)


def cmd_export(args) -> int:
    from .hpcc import fct, topology

    topo = topology.load(args.topology) if args.topology else None
    text = fct.export_run(args.dir, args.variant, topo)
    if args.out:
        from .results import write_text

        write_text(Path(_out_arg(args.out)), text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_report(args) -> int:
    from .report import write_report

    print(write_report(args.dir, out=args.out))
    return 0


def cmd_claims(args) -> int:
    from .claims_merge import main

    return main(args.dirs, as_json=args.json, allow_different=args.allow_different_scenarios)


def cmd_sweep(args) -> int:
    from . import sweep, sweep_spec

    spec = sweep_spec.load(
        args.spec, out=None if args.out is None else _out_arg(args.out), sets=args.set or ()
    )
    if args.jobs is not None and args.jobs < 1:
        raise ScenarioError("--jobs", "must be at least 1")
    doc = sweep.run(
        spec,
        jobs=args.jobs,
        use_ray=args.ray is not None,
        ray_address=args.ray or None,
        progress=not args.quiet,
        force=args.force,
        on_point=lambda job, r: _register(
            spec.out / "points" / job["id"],
            sweep=str(spec.out.resolve()),
            point={"id": job["id"], "params": job["params"], "seed": job["seed"]},
        ),
    )
    from . import runs_index

    try:
        runs_index.register_sweep(spec.out)
    except OSError as e:
        print(f"dccsim: warning: catalog: cannot register {spec.out}: {e}", file=sys.stderr)
    failed = [p for p in doc["points"] if p["status"] == "failed"]
    for p in failed:
        print(f"dccsim: point {p['id']} {p['params']} seed {p['seed']} failed: {p['error']}", file=sys.stderr)
    from .sweep_results import summary_text

    print(summary_text(spec.out) + "\n")  # the swept parameters × the key metrics, seeds aggregated
    c = doc["last_run"]
    print(f"{spec.out}: {c['run']} run, {c['skipped']} already done, {c['failed']} failed")
    return 1 if failed else 0


def cmd_bench(args) -> int:
    from . import bench

    return bench.main(json_out=args.json, only=args.only, scale=args.scale)


def _delegate(module: str, what: str, argv: list) -> int:
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        return _fail(f"{what}: not available in this build ({module} cannot be imported: {e})")
    try:
        rc = mod.main(argv)
    except ScenarioError as e:  # a usage error of its OneLineParser
        return _fail(str(e))
    return int(rc or 0)


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="dccsim", description="Datacenter congestion-control simulator")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("list", help="list the named experiments (or the algorithms)")
    s.add_argument("--algorithms", action="store_true", help="list the congestion-control algorithms")
    s.add_argument("--json", action="store_true", help="experiments and algorithms as JSON")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="print an experiment (or scenario file) as resolved TOML")
    s.add_argument("experiment", nargs="?")
    s.add_argument("--algorithm", metavar="NAME", help="show an algorithm's parameters and defaults")
    s.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override a scenario key before validation (e.g. switch.buffer=2MiB); repeatable",
    )
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("run", help="run an experiment or a scenario file")
    s.add_argument("target", metavar="EXPERIMENT|FILE.toml")
    s.add_argument("--out", help="output directory (default runs/<file or experiment name>-seed<N>)")
    s.add_argument("--force", action="store_true", help="replace an output directory that holds another run")
    s.add_argument(
        "--check",
        action="store_true",
        help="check the engine's end-of-run invariants (conservation, lossless, flow records; [engine] check)",
    )
    s.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="run each simulation on N OS threads, the network cut into N partitions ([engine] threads; "
        "results byte-identical to one thread; scenarios that cannot be cut are refused, docs/parallel.md)",
    )
    s.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="refuse runs estimated above SIZE (e.g. 8GiB; default $DCCSIM_MEMORY_LIMIT or 80%% of RAM)",
    )
    s.add_argument("--seed", type=int, help="override the scenario's seed")
    s.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override a scenario key before validation (e.g. cc.gamma=0.8, switch.buffer=2MiB); repeatable",
    )
    s.add_argument(
        "--add-variant",
        action="append",
        metavar="NAME=ALGORITHM|PLUGIN",
        help="run NAME with controller ALGORITHM (or a plugin file) beside the experiment's variants (its parameters: "
        "--set experiment.variants[N].cc.KEY=VALUE); in the table and figure, not in the paper's claims",
    )
    s.add_argument(
        "--plugin",
        metavar="FILE",
        help="run this congestion-control plugin (.bpf.c or .o, docs/plugins.md) instead of the scenario's controllers",
    )
    s.add_argument(
        "--log",
        action="append",
        metavar="COMPONENT[:flow=N,node=NAME]",
        help="write a per-event debug log of COMPONENT (cc, nic, fabric, transport) for the matching "
        "flows/nodes to <variant>/log.txt (e.g. cc:flow=3, fabric:node=sw0, transport:flow=3); repeatable",
    )
    s.add_argument(
        "--pcap",
        action="append",
        metavar="PORT",
        help="capture the packets leaving PORT (e.g. tor0->h16) as packets.pcap; repeatable",
    )
    s.add_argument("--json", action="store_true", help="print only the JSON summary on stdout")
    s.add_argument(
        "--variant", action="append", metavar="NAME", help="run only this variant (name or slug); repeatable"
    )
    s.add_argument("--quiet", action="store_true", help="no progress; print only the output directory")
    s.add_argument("--no-figures", action="store_true", help="do not draw the analysis's figures")
    s.add_argument(
        "--fixed-scale",
        action="store_true",
        help="figures' axes from the scenario (buffer, line rate), not the data, to compare runs "
        "([experiment] fixed_scale = true)",
    )
    s.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="run up to N variants at once, one process each (default: every core this process may use, e.g. one under `taskset -c 0`, when a variant takes over 1 s); results do not depend on N",
    )
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("cc", help="congestion-control plugins: cc new NAME writes NAME.bpf.c here")
    ccsub = s.add_subparsers(dest="cc_command", required=True, metavar="ACTION")
    n = ccsub.add_parser("new", help="write NAME.bpf.c, a commented plugin with a working example law")
    n.add_argument("name", metavar="NAME")
    n.set_defaults(func=cmd_cc_new)

    s = sub.add_parser("sweep", help="run a grid of scenarios (spec.toml) in parallel; resumable")
    s.add_argument("spec", metavar="SPEC.toml")
    s.add_argument("--out", help="output directory (default: the spec's [sweep] out, or sweeps/<spec name>)")
    s.add_argument("--jobs", type=int, help="local worker processes (default: all cores)")
    s.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override a key of the base scenario before the grid is applied; repeatable",
    )
    s.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="run the points as Ray tasks: a local Ray instance, or the cluster at ADDRESS",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument(
        "--force", action="store_true", help="run although OUT holds a sweep of another base (its points go)"
    )
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser(
        "figures",
        help="draw a run's figure from its files (a run made with --no-figures, or interrupted)",
    )
    s.add_argument("dir", metavar="RUN-DIR")
    s.add_argument(
        "--fixed-scale",
        action="store_true",
        help="axes from the scenario (buffer, line rate), not the data, to compare runs",
    )
    s.set_defaults(func=cmd_figures)

    s = sub.add_parser(
        "import",
        help="a scenario or flow records from the HPCC/PowerTCP ns-3 simulators' files (docs/python-front.md)",
    )
    s.add_argument("format", choices=IMPORTS, metavar="FORMAT", help=f"one of: {', '.join(IMPORTS)}")
    s.add_argument("file", metavar="FILE")
    s.add_argument(
        "--topology", metavar="TOPOLOGY.txt", help="the simulator's topology file (node ids -> hosts)"
    )
    s.add_argument("--flows", metavar="FLOW.txt", help="hpcc-topology: also this flow file")
    s.add_argument(
        "--out",
        "-o",
        metavar="PATH",
        help="where to write (scenario: default stdout; hpcc-fct: a .parquet, required)",
    )
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("export", help="a run's results in another simulator's format (--format hpcc-fct)")
    s.add_argument("dir", metavar="RUN-DIR")
    s.add_argument(
        "--format", required=True, choices=EXPORTS, metavar="FORMAT", help=f"one of: {', '.join(EXPORTS)}"
    )
    s.add_argument(
        "--variant", metavar="NAME", help="the variant to export (needed when the run has several)"
    )
    s.add_argument(
        "--topology", metavar="TOPOLOGY.txt", help="map hosts back to this topology file's node ids"
    )
    s.add_argument("--out", "-o", metavar="FILE", help="where to write (default stdout)")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("report", help="self-contained HTML page of a run or sweep directory")
    s.add_argument("dir", metavar="RUN-OR-SWEEP-DIR")
    s.add_argument("--out", metavar="PAGE.html", help="where to write it (default DIR/report.html)")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser(
        "claims",
        help="an experiment's claims over variants run in several directories (run --variant pieces)",
    )
    s.add_argument("dirs", nargs="+", metavar="DIR[:VARIANT,...]")
    s.add_argument("--json", action="store_true", help="the merged claims and their sources as JSON")
    s.add_argument(
        "--allow-different-scenarios",
        action="store_true",
        help="merge pieces whose experiment name, scenario or flow list differ (each difference is printed)",
    )
    s.set_defaults(func=cmd_claims)

    s = sub.add_parser("query", help="SQL over the run index (runs, variants, claims, flows, ...)")
    s.add_argument("sql", metavar="SQL")
    s.add_argument(
        "--catalog", metavar="PATH", help="catalog file (default $DCCSIM_CATALOG or runs/catalog.duckdb)"
    )
    s.add_argument("--json", action="store_true", help="rows as a JSON list of objects")
    s.add_argument("--csv", action="store_true", help="rows as CSV")
    s.set_defaults(func=cmd_query)

    s = sub.add_parser("bench", help="measure engine speed on the reference experiments")
    s.add_argument("--json", action="store_true")
    s.add_argument("--only", metavar="NAME", help="run one benchmark (see `dccsim bench --help`)")
    s.add_argument(
        "--scale",
        action="store_true",
        help="also the 1024-, 8192- and 65 536-host FatTrees and websearch at load 0.6 (minutes each)",
    )
    s.set_defaults(func=cmd_bench)

    # These two belong to other modules, which parse their own arguments (listed here for --help).
    for name, help_text in DELEGATED_HELP.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return p


DELEGATED = {"compare": "dccsim.compare", "testbed": "dccsim.testbed.cli"}
DELEGATED_HELP = {
    "compare": "compare two result directories: compare A B [--port P] [--json] [--html PAGE]",
    "testbed": "run on the Linux testbed: testbed run SCENARIO (--cc ALG | --plugin FILE) [--out DIR] [--json]",
}


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # numpy's OpenBLAS starts a thread per core at import, which spins for a while: ≈ 0.08 s of
    # CPU on a short run that does no linear algebra (docs/benchmarks.md). One thread unless the
    # user chose otherwise; parallel work runs in processes (--jobs, sweeps).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if argv and argv[0] in DELEGATED:
        # The other modules get the raw arguments after their sub-command name.
        return _delegate(DELEGATED[argv[0]], argv[0], argv[1:])
    restore_sigterm = termination.install()  # SIGTERM is handled as Ctrl-C (termination.py)
    if argv[:1] == ["run"] and not {"--no-figures", "-h", "--help"} & set(argv):
        from . import figure_worker

        figure_worker.prestart()  # before the heavy imports, so that they overlap (figure_worker.py)
    try:
        args = build_parser().parse_args(argv)
        args.argv = argv
        return args.func(args)
    except ScenarioError as e:
        return _fail(str(e))
    except EngineUnavailable as e:
        return _fail(f"engine: {e}")
    except InvariantViolation as e:
        print(f"dccsim: error: {e}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt as e:
        what = "terminated (SIGTERM)" if termination.received() else "interrupted"
        print(f"dccsim: {what}{': ' + str(e) if str(e) else ''}", file=sys.stderr)
        return termination.exit_status()
    except BrokenPipeError:
        return 0
    except OSError as e:  # anything the output checks did not foresee: still one line
        where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
        return _fail(f"out: {e.strerror or e}{where}")
    finally:
        if "dccsim.figure_worker" in sys.modules:  # a worker this command prestarted and did not use
            sys.modules["dccsim.figure_worker"].discard_prestarted()
        restore_sigterm()


if __name__ == "__main__":
    sys.exit(main())
