"""The `dccsim` command line.

Bad input (scenario errors, engine ValueErrors) prints one line
`dccsim: error: <field>: <message>` on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path
from typing import Optional, Sequence

from .errors import EngineUnavailable, ScenarioError

EXIT_USAGE = 2


def _fail(message: str) -> int:
    print(f"dccsim: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def is_scenario_file(target: str) -> bool:
    return target.endswith(".toml") or Path(target).is_file()


def resolve(target: str):
    """An experiment name from the catalog, or a path to a TOML scenario file."""
    from . import experiments, scenario

    if is_scenario_file(target):
        return scenario.load(target)
    return experiments.get(target)


def default_out(target: str, scn) -> Path:
    """runs/<file stem or catalog name>-seed<N> (never the `name` written inside the file)."""
    from . import outdir

    stem = Path(target).stem if is_scenario_file(target) else target
    return outdir.default_dir(stem, scn.seed)


def cmd_list(args) -> int:
    from . import experiments

    for name in experiments.list_experiments():
        try:
            scn = experiments.get(name)
        except ScenarioError as e:  # one broken file must not hide the others
            print(f"{name:24s} (cannot be loaded: {e})")
            continue
        title = scn.experiment.title if scn.experiment and scn.experiment.title else scn.description
        first = re.split(r"\.\s+(?=[A-Z])", title.strip())[0] if title else ""
        print(f"{name:24s} {first}")
    return 0


def cmd_show(args) -> int:
    from .scenario import dump_toml

    sys.stdout.write(dump_toml(resolve(args.experiment)))
    return 0


def cmd_run(args) -> int:
    from . import runner
    from .results import json_text

    scn = resolve(args.target)
    if args.seed is not None:
        scn = scn.with_seed(args.seed)
    out = Path(args.out) if args.out else default_out(args.target, scn)
    quiet = args.quiet or args.json
    summary = runner.run(
        scn,
        out,
        variants=args.variant,
        progress=not quiet,
        argv=["dccsim"] + list(args.argv),
        force=args.force,
        memory_limit=args.memory_limit,
    )
    if args.json:
        sys.stdout.write(json_text(summary))
    elif args.quiet:
        print(out)
    else:
        print(runner.report(scn, summary))
        print(f"\nresults: {out}")
    return 0


def cmd_bench(args) -> int:
    from . import bench

    return bench.main(json_out=args.json, only=args.only, scale=args.scale)


def _delegate(module: str, what: str, argv: list) -> int:
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        return _fail(f"{what}: not available in this build ({module} cannot be imported: {e})")
    rc = mod.main(argv)
    return int(rc or 0)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dccsim", description="Datacenter congestion-control simulator")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("list", help="list the named experiments")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="print an experiment (or scenario file) as resolved TOML")
    s.add_argument("experiment")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("run", help="run an experiment or a scenario file")
    s.add_argument("target", metavar="EXPERIMENT|FILE.toml")
    s.add_argument("--out", help="output directory (default runs/<file or experiment name>-seed<N>)")
    s.add_argument("--force", action="store_true", help="replace an output directory that holds another run")
    s.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="refuse runs estimated above SIZE (e.g. 8GiB; default $DCCSIM_MEMORY_LIMIT or 80%% of RAM)",
    )
    s.add_argument("--seed", type=int, help="override the scenario's seed")
    s.add_argument("--json", action="store_true", help="print only the JSON summary on stdout")
    s.add_argument(
        "--variant", action="append", metavar="NAME", help="run only this variant (name or slug); repeatable"
    )
    s.add_argument("--quiet", action="store_true", help="no progress; print only the output directory")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("bench", help="measure engine speed on the reference experiments")
    s.add_argument("--json", action="store_true")
    s.add_argument("--only", metavar="NAME", help="run one benchmark (see `dccsim bench --help`)")
    s.add_argument(
        "--scale", action="store_true", help="also the 1024- and 8192-host FatTrees (a minute or more each)"
    )
    s.set_defaults(func=cmd_bench)

    # These two belong to other modules, which parse their own arguments (listed here for --help).
    for name, help_text in DELEGATED_HELP.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return p


DELEGATED = {"compare": "dccsim.compare", "testbed": "dccsim.testbed.cli"}
DELEGATED_HELP = {
    "compare": "compare two result directories: compare A B [--port P] [--json]",
    "testbed": "run on the Linux testbed: testbed run SCENARIO --cc ALG [--out DIR] [--json]",
}


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DELEGATED:
        # The other modules get the raw arguments after their sub-command name.
        return _delegate(DELEGATED[argv[0]], argv[0], argv[1:])
    args = build_parser().parse_args(argv)
    args.argv = argv
    try:
        return args.func(args)
    except ScenarioError as e:
        return _fail(str(e))
    except EngineUnavailable as e:
        return _fail(f"engine: {e}")
    except KeyboardInterrupt as e:
        print(f"dccsim: interrupted{': ' + str(e) if str(e) else ''}", file=sys.stderr)
        return 130
    except OSError as e:  # anything the output checks did not foresee: still one line
        where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
        return _fail(f"out: {e.strerror or e}{where}")
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
