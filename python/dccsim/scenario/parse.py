"""Reading scenario TOML: every field checked, errors name the field and the allowed values."""

from __future__ import annotations

import dataclasses
import math

import re
from pathlib import Path
from typing import Any, Optional, Union

from .. import topology as topo
from ..errors import ScenarioError
from . import cc_params, front_sections, profiles, schema, workload
from .fields import (
    Table,
    boolean,
    choice,
    integer,
    number,
    pos_size,
    pos_time,
    ranged_number,
    show,
    size,
    string,
    time,
)
from .model import (
    CcSpec,
    Ecn,
    Experiment,
    Flow,
    Scenario,
    Topology,
    Variant,
)

FLOW_KEYS = ("src", "dst", "size", "start", "cc", "subflows", "after", "closed_loop")
CLOSED_LOOP_KEYS = ("shape", "mean", "destination", "max")
MAX_SUBFLOWS = 64  # the engine's limit (config::MAX_SUBFLOWS)
EXPERIMENT_KEYS = ("title", "analysis", "variants", "fixed_scale")
VARIANT_KEYS = ("name", "cc", "ecn", "topology", "workload", "int_switches", "subflows", "pfc", "added")


# ----------------------------------------------------------------------------------------------
# Loading and validation


def known_algorithms() -> list[str]:
    """Controller names, from the compiled engine (the one list; raises EngineUnavailable without it)."""
    from .. import engine

    return engine.algorithms()


def load(source: Union[str, Path, dict], name: Optional[str] = None) -> Scenario:
    """Load a scenario from a TOML file path or an already-parsed dict."""
    if isinstance(source, dict):
        return from_dict(source, default_name=name or "scenario")
    from ..bounded_read import read_text

    path = Path(source)
    text = read_text(path, "scenario")  # regular files only, at most 64 MiB (bounded_read.py)
    return loads(text, default_name=name or path.stem, base_dir=path.parent)


def loads(text: str, default_name: str = "scenario", base_dir: Optional[Path] = None) -> Scenario:
    """Load a scenario from TOML text. Every problem is a ScenarioError (never a bare ValueError)."""
    from ..bounded_read import toml_loads

    if not isinstance(text, str):
        raise ScenarioError("scenario", f"expected TOML text (str), got {type(text).__name__}")
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark, as some editors write
    data = toml_loads(text, "scenario")  # depth-limited; a repeated key is named
    return from_dict(data, default_name=default_name, base_dir=base_dir)


def _cc(data, prefix: str, algorithms: list[str], base_dir: Optional[Path] = None) -> CcSpec:
    if not isinstance(data, dict):
        raise ScenarioError(prefix, f"expected a table with 'algorithm', got {show(data)}")
    if "plugin" in data:  # a controller compiled from a plugin file (plugins.py, docs/plugins.md)
        from .. import plugins

        return plugins.cc_spec(data, prefix, base_dir)
    if "algorithm" not in data:
        raise ScenarioError(f"{prefix}.algorithm", f"missing (required); allowed: {', '.join(algorithms)}")
    algorithm = choice(algorithms)(data["algorithm"], f"{prefix}.algorithm")
    params = {k: data[k] for k in sorted(data) if k != "algorithm"}
    return CcSpec(algorithm, cc_params.check(algorithm, params, prefix))


def _topology(data) -> Topology:
    """[topology]: `kind` and that kind's keys, as the engine declares them (config/topology.rs);
    each value converted by its type, then the engine checks the kind whole (ranges and rules,
    errors named `topology.<key>`); the node names of a custom topology's links and an rdcn's
    circuit schedule are checked here against the topology the engine builds."""
    if not isinstance(data, dict):
        raise ScenarioError("topology", "missing (required) or not a table")
    kinds = topo.kinds()
    if "kind" not in data:
        raise ScenarioError("topology.kind", f"missing (required); allowed: {', '.join(kinds)}")
    kind = choice(kinds)(data["kind"], "topology.kind")
    fields = topo.fields(kind)
    t = Table(data, "topology", ("kind",) + tuple(fields))
    values: dict[str, Any] = {}
    for key, (k, _path) in fields.items():
        if not t.has(key):
            if k.required:
                raise ScenarioError(t.f(key), "missing (required)")
            values[key] = topo.default(kind, key)
        elif k.type == "tables":
            values[key] = _links(data[key], t.f(key))
        else:
            values[key] = schema.convert(k, data[key], t.f(key))
    if kind == "rdcn" and values["matchings"] and values["tors"] >= 2:  # (tors < 2: the engine's error)
        values["matchings"] = _matchings(data["matchings"], "topology.matchings", values["tors"])
    _check_topology(kind, values, "topology")
    for i, link in enumerate(values.get("links", ()) if kind == "custom" else ()):
        for end in ("a", "b"):
            node = getattr(link, end)
            if not topo.node_exists(kind, values, node):
                raise ScenarioError(
                    f"topology.links[{i}].{end}",
                    f"unknown node {node!r}; nodes: {topo.node_names_hint(kind, values)}",
                )
    return Topology(kind, values)


def _links(v, f: str) -> tuple:
    """A custom topology's links: a list of [topology.link] tables (engine-declared)."""
    if not isinstance(v, list) or not v:
        raise ScenarioError(f, "expected a non-empty list of {a, b, rate, delay} tables")
    return tuple(schema.read("topology.link", x, f"{f}[{i}]") for i, x in enumerate(v))


def _check_topology(kind: str, values: dict, prefix: str) -> None:
    """The engine's check of a topology kind, errors named `prefix.key`."""
    from .. import engine

    engine.check_section(
        f"topology.{kind}", {k: v for k, v in topo.to_engine(kind, values).items() if k != "kind"}, prefix
    )


def _matchings(v, f: str, tors: int) -> tuple:
    """A circuit schedule: a list of matchings, each a list of one target ToR per ToR."""
    if not isinstance(v, list):
        raise ScenarioError(f, f"expected a list of matchings (lists of {tors} ToR indices), got {show(v)}")
    out = []
    for k, row in enumerate(v):
        fk = f"{f}[{k}]"
        if not isinstance(row, list) or len(row) != tors:
            raise ScenarioError(
                fk, f"expected a list of {tors} ToR indices (one target per ToR), got {show(row)}"
            )
        targets = [integer(x, f"{fk}[{i}]", lo=0, hi=tors - 1) for i, x in enumerate(row)]
        matched = [j for i, j in enumerate(targets) if j != i]
        if len(set(matched)) != len(matched):
            raise ScenarioError(
                fk, "a ToR is the target of two circuits; each ToR must be the target of at most one"
            )
        out.append(tuple(targets))
    return tuple(out)


def _switch(data):
    """[switch]: the engine's `switch` section (scenario/schema.py); ECN, PFC and the INT switch
    list read by their own readers."""
    special = {"ecn": _ecn, "pfc": _pfc, "int_switches": _int_switches}
    return schema.read("switch", data, "switch", special, base=schema.record("switch", ecn=Ecn()))


def _headroom(v, field: str) -> dict:
    """`"auto"` (3 × rate × delay per port, at least the lossless floor), `"artifact"` (exactly
    3 × rate × delay) or a size."""
    if v in ("auto", "artifact"):
        return {"headroom_bytes": None, "headroom_artifact": v == "artifact"}
    try:
        return {"headroom_bytes": size(v, field), "headroom_artifact": False}
    except ScenarioError:
        raise ScenarioError(field, f'expected "auto", "artifact" or a size, got {show(v)}') from None


def _pfc(v, field: str = "switch.pfc"):
    """`pfc = true | false`, or a [switch.pfc] table over the engine's defaults."""
    if isinstance(v, bool):
        return schema.record("switch.pfc") if v else None
    if not isinstance(v, dict):
        raise ScenarioError(field, f"expected true, false or a table of PFC values, got {show(v)}")
    return schema.read("switch.pfc", v, field, {"headroom": _headroom})


def _int_switches(v, field: str = "switch.int_switches") -> tuple:
    """Brownfield INT: the switches (by name, e.g. "tor0", "sw1") that support INT."""
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ScenarioError(field, f'expected a list of switch names such as ["tor0", "agg1"], got {show(v)}')
    return tuple(v)


def _variant_int_switches(v, field: str, topology: Topology) -> tuple:
    names = _int_switches(v, field)
    for i, n in enumerate(names):
        if n.startswith("h") or not topo.node_exists(topology.kind, topology.values, n):
            raise ScenarioError(
                f"{field}[{i}]",
                f"unknown switch {n!r}; nodes are {topo.node_names_hint(topology.kind, topology.values)}",
            )
    return names


def _ecn(data, prefix: str = "switch.ecn"):
    """An ECN table: `kind` and the keys of that kind's section (the engine's switch.ecn.<kind>)."""
    kinds = schema.ecn_kinds()
    if not isinstance(data, dict) or "kind" not in data:
        raise ScenarioError(f"{prefix}.kind", f"missing (required); allowed: {', '.join(kinds)}")
    kind = choice(kinds)(data["kind"], f"{prefix}.kind")
    rest = {k: v for k, v in data.items() if k != "kind"}
    if kind == "none":
        Table(rest, prefix, ("kind",))
        return Ecn()
    return schema.read(schema.ECN + kind, rest, prefix)


def _host(data):
    return schema.read("host", data, "host")


def _host_index(n_hosts: int):
    def conv(v, f):
        h = integer(v, f, lo=0)
        if h >= n_hosts:
            raise ScenarioError(f, f"host {h} does not exist; hosts are 0..{n_hosts - 1}")
        return h

    return conv


def _flows(data, n_hosts: int, algorithms) -> tuple:
    if not isinstance(data, list):
        raise ScenarioError("flows", "expected an array of tables ([[flows]])")
    host = _host_index(n_hosts)
    out = []
    for i, fd in enumerate(data):
        t = Table(fd, f"flows[{i}]", FLOW_KEYS)
        dst = t.req("dst", host)
        raw_src = t.req("src", lambda v, f: v)
        if isinstance(raw_src, list):
            if not raw_src:
                raise ScenarioError(t.f("src"), "must list at least one host (an empty list sends nothing)")
            src: Union[int, tuple] = tuple(host(s, f"{t.f('src')}[{j}]") for j, s in enumerate(raw_src))
            srcs = src
        else:
            src = host(raw_src, t.f("src"))
            srcs = (src,)
        if dst in srcs:
            raise ScenarioError(t.f("dst"), f"must differ from src (both are host {dst})")
        out.append(
            Flow(
                src=src,
                dst=dst,
                size_bytes=t.opt("size", pos_size, None),
                start_ps=t.opt("start", time, 0),
                cc=_cc(fd["cc"], t.f("cc"), algorithms) if "cc" in fd else None,
                subflows=t.opt("subflows", lambda v, f: integer(v, f, lo=1, hi=MAX_SUBFLOWS), 1),
                after=t.opt("after", lambda v, f, i=i: _after(v, f, i, out), ()),
                closed_loop=t.opt("closed_loop", _closed_loop, None),
            )
        )
        if out[-1].closed_loop is not None and out[-1].size_bytes is not None:
            raise ScenarioError(t.f("size"), "a closed_loop flow draws its sizes; remove size")
        if out[-1].closed_loop is not None and not isinstance(src, int):
            raise ScenarioError(t.f("src"), "a closed_loop flow has one sender (one host, not a list)")
    return tuple(out)


def _after(v, f: str, i: int, earlier: list) -> tuple:
    """Earlier [[flows]] indices, each once, none long-lived (a long flow never completes)."""
    if not isinstance(v, list):
        raise ScenarioError(f, f"expected a list of earlier flow indices (0..{i - 1}), got {v!r}")
    if i == 0 and v:
        raise ScenarioError(f"{f}[0]", "flows[0] has no earlier flow to wait for")
    out = []
    for k, x in enumerate(v):
        p = integer(x, f"{f}[{k}]", lo=0, hi=max(i - 1, 0))
        if p >= i:
            raise ScenarioError(f"{f}[{k}]", f"must name an earlier flow (0..{i - 1}), got {p}")
        if p in out:
            raise ScenarioError(f"{f}[{k}]", f"flow {p} is listed twice")
        prev = earlier[p]
        if prev.size_bytes is None and prev.closed_loop is None:
            raise ScenarioError(f"{f}[{k}]", f"flow {p} is long-lived and never completes")
        out.append(p)
    return tuple(out)


def _closed_loop(v, f: str):
    from .model import ClosedLoop

    t = Table(v, f, CLOSED_LOOP_KEYS)
    shape = t.req("shape", lambda x, g: float(ranged_number(1.0, 100.0, lo_open=True)(x, g)))
    mean = t.req("mean", pos_size)
    top = t.opt("max", pos_size, None)
    x_m = math.ceil(mean * (shape - 1) / shape)
    if top is not None and top < x_m:
        raise ScenarioError(
            t.f("max"), f"must be at least the Pareto scale x_m = mean·(shape − 1)/shape = {x_m} B"
        )
    return ClosedLoop(
        shape=shape,
        mean_bytes=mean,
        destination=t.opt("destination", choice(("same", "random", "other-rack")), "random"),
        max_bytes=top,
    )


def _metrics(data, topology: Topology):

    def ports(v, f):
        if not isinstance(v, list):
            raise ScenarioError(f, 'expected a list of port names such as ["tor0->h16"] or ["*"]')
        out = []
        for j, p in enumerate(v):
            fj = f"{f}[{j}]"
            p = string(p, fj)
            if p != "*":
                m = re.fullmatch(r"([a-z]+[0-9]+)->([a-z]+[0-9]+)", p)
                if not m:
                    raise ScenarioError(
                        fj, f"cannot read {p!r}; write '<node>-><peer>', e.g. 'tor0->h16', or '*'"
                    )
                for node in m.groups():
                    if not topo.node_exists(topology.kind, topology.values, node):
                        raise ScenarioError(
                            fj,
                            f"unknown node {node!r}; nodes: "
                            f"{topo.node_names_hint(topology.kind, topology.values)}",
                        )
            out.append(p)
        return tuple(out)

    return schema.read("metrics", data, "metrics", {"ports": ports, "pcap": ports})


def _variant_topology(data, field: str, base: Topology) -> tuple:
    """A variant's topology overrides: only the rate, time and size fields of the scenario's kind
    (the counts and links fix the hosts that [[flows]] name, so a variant may not change them)."""
    fields = {key: k for key, (k, _) in topo.fields(base.kind).items() if k.type in ("rate", "time", "size")}
    if not isinstance(data, dict):
        raise ScenarioError(field, f"expected a table of {', '.join(fields) or 'no'} overrides")
    t = Table(data, field, tuple(fields))
    out = {key: t.req(key, lambda v, f, k=fields[key]: schema.convert(k, v, f)) for key in data}
    _check_topology(base.kind, {**base.values, **out}, field)
    return tuple(sorted(out.items()))


def _variant_workload(data, field: str, base: Optional[dict], topology: Topology, n_hosts: int, base_dir):
    """A variant's workload: the scenario's [workload] table with the variant's keys replacing its
    own (an `incast` table merges key by key), checked like [workload]; errors name the variant's
    field (experiment.variants[i].workload.load)."""
    if base is None:
        raise ScenarioError(field, "the scenario has no [workload] for a variant to override")
    if not isinstance(data, dict):
        raise ScenarioError(field, "expected a table of [workload] keys to override")
    merged = {**base, **data}
    if isinstance(base.get("incast"), dict) and isinstance(data.get("incast"), dict):
        merged["incast"] = {**base["incast"], **data["incast"]}
    try:
        return workload.parse(merged, topology, n_hosts, base_dir)
    except ScenarioError as e:
        raise ScenarioError(field + e.field[len("workload") :], e.message) from None


def _experiment(
    data,
    algorithms,
    default_cc: CcSpec,
    topology: Topology,
    wl_data: Optional[dict] = None,
    base_dir: Optional[Path] = None,
) -> Experiment:
    from ..analysis import ANALYSES

    analysis = data.get("analysis") if isinstance(data, dict) else None
    if analysis is not None:
        analysis = choice(tuple(ANALYSES))(analysis, "experiment.analysis")
    extra = ANALYSES[analysis].KEYS if analysis else {}
    t = Table(data, "experiment", EXPERIMENT_KEYS + tuple(extra))
    variants = []
    raw = t.opt("variants", lambda v, f: v, [])
    if not isinstance(raw, list):
        raise ScenarioError("experiment.variants", "expected a list of {name, cc} tables")
    slugs: dict[str, int] = {}
    for i, vd in enumerate(raw):
        vt = Table(vd, f"experiment.variants[{i}]", VARIANT_KEYS)
        name = vt.req("name", string)
        if not name.strip():
            raise ScenarioError(vt.f("name"), "must not be empty")
        cc = _cc(vt.req("cc", lambda v, f: v), vt.f("cc"), algorithms, base_dir)
        if cc.algorithm == default_cc.algorithm:  # same controller: inherit [cc]'s parameters
            cc = CcSpec(cc.algorithm, {**default_cc.params, **cc.params})
        v = Variant(
            name,
            cc,
            _ecn(vd["ecn"], vt.f("ecn")) if "ecn" in vd else None,
            _variant_topology(vd["topology"], vt.f("topology"), topology) if "topology" in vd else (),
            _variant_workload(
                vd["workload"],
                vt.f("workload"),
                wl_data,
                topology,
                topo.host_count(topology.kind, topology.values),
                base_dir,
            )
            if "workload" in vd
            else None,
            _variant_int_switches(vd["int_switches"], vt.f("int_switches"), topology)
            if "int_switches" in vd
            else None,
            vt.opt("subflows", lambda v, f: integer(v, f, lo=1, hi=MAX_SUBFLOWS), None),
            # False: this variant runs lossy (PFC off); a Pfc: lossless with those values
            (_pfc(vd["pfc"], vt.f("pfc")) or False) if "pfc" in vd else None,
            vt.opt("added", boolean, False),
        )
        if v.slug in slugs:
            raise ScenarioError(
                vt.f("name"),
                f"{name!r} clashes with variants[{slugs[v.slug]}] (same directory name {v.slug!r})",
            )
        slugs[v.slug] = i
        variants.append(v)
    params = {}
    for key, typ in extra.items():
        if key not in data and key in ANALYSES[analysis].REQUIRED:
            raise ScenarioError(t.f(key), f"missing (required by analysis {analysis!r})")
        if key in data:
            params[key] = {"time": time, "str": string, "number": number}[typ](data[key], t.f(key))
    return Experiment(
        title=t.opt("title", string, ""),
        analysis=analysis,
        variants=tuple(variants),
        params=params,
        fixed_scale=t.opt("fixed_scale", boolean, False),
    )


def _check_int(scn: Scenario) -> None:
    """An INT-based controller that would run (the variants' controllers, or the scenario's own
    without variants, and per-flow overrides) needs `switch.int = true`."""
    if scn.switch.int_enabled:
        return
    if scn.experiment is not None and scn.experiment.variants:
        runs = [(f"experiment.variants[{i}].cc", v.cc) for i, v in enumerate(scn.experiment.variants)]
    else:
        runs = [("cc", scn.cc)]
    runs += [(f"flows[{i}].cc", f.cc) for i, f in enumerate(scn.flows) if f.cc is not None]
    from ..plugins import display_name, needs_int

    for where, cc in runs:
        if cc_params.needs_int(cc.algorithm) or needs_int(cc.algorithm):  # engine Caps / a plugin's flag
            raise ScenarioError(
                "switch.int",
                f"is false, but {where} = {display_name(cc.algorithm)} reads INT from the switches; set switch.int = true",
            )


def _check_consistency(scn: Scenario) -> None:
    """Rules across sections: everything starts before the run ends, a packet fits the buffer,
    INT is on for the controllers that read it."""
    _check_int(scn)
    end = scn.duration_ps
    for i, f in enumerate(scn.flows):
        if f.start_ps >= end:
            raise ScenarioError(f"flows[{i}].start", f"must be before the end of the run (duration {end} ps)")
    if scn.workload is not None:
        workload.check_against_run(scn)
    for i, v in enumerate(scn.experiment.variants if scn.experiment is not None else ()):
        if v.workload is not None:
            try:
                workload.check_against_run(scn.for_variant(v))
            except ScenarioError as e:
                raise ScenarioError(f"experiment.variants[{i}].{e.field}", e.message) from None
    if scn.metrics.interval_ps and scn.metrics.start_ps >= end:
        raise ScenarioError("metrics.start", f"must be before the end of the run (duration {end} ps)")
    h = scn.host
    # the engine's largest data packet (transport::Wire::largest_data_packet)
    extra = max(h.int_header_bytes if scn.switch.int_enabled else 0, h.ts_header_bytes)
    packet = h.payload_bytes + h.header_bytes + extra
    if scn.switch.buffer_bytes < packet:
        raise ScenarioError(
            "switch.buffer",
            f"must hold at least one full packet ({packet} B = payload + header + the larger of "
            f"int_header and ts_header), got {scn.switch.buffer_bytes} B",
        )


def _name(v, f):
    """The scenario's name: shown in reports and summaries; never a path (the output directory
    comes from the file name, outdir.py), so separators and control characters are refused."""
    name = string(v, f)
    if not name.strip() or any(c in name for c in "/\\") or any(ord(c) < 32 for c in name):
        raise ScenarioError(
            f, f"must be a non-empty name without '/', '\\' or control characters, got {name!r}"
        )
    if name in (".", ".."):
        raise ScenarioError(f, f"must be a name, not {name!r}")
    return name


def _base_rtt(v, f):
    """`"auto"` (None: the engine takes the maximum base RTT) or a time > 0."""
    return None if v == "auto" else pos_time(v, f)


def from_dict(data: dict, default_name: str = "scenario", base_dir: Optional[Path] = None) -> Scenario:
    """Validate a parsed scenario. Any check this module missed still surfaces as a ScenarioError
    (field ``scenario``), never as a ValueError/OverflowError/TypeError from deeper code."""
    try:
        return _from_dict(data, default_name, base_dir)
    except ScenarioError:
        raise
    except (ValueError, OverflowError, TypeError, ArithmeticError) as e:
        raise ScenarioError("scenario", f"cannot be read: {e}") from None


def _from_dict(data: dict, default_name: str, base_dir: Optional[Path]) -> Scenario:
    """`base_dir`: relative file paths in the scenario (workload.cdf_file, workload.file) are
    relative to it (the scenario file's directory), else to the working directory."""
    tables = {
        key: (lambda v, f: v)
        for key, k in front_sections.keys("scenario").items()
        if k.type in ("table", "tables")
    }
    top = front_sections.read("scenario", data, "", special={**tables, "name": _name, "base_rtt": _base_rtt})
    data = profiles.apply(data)
    algorithms = known_algorithms()
    topology = _topology(data["topology"])
    n_hosts = topo.host_count(topology.kind, topology.values)
    flows = _flows(data["flows"], n_hosts, algorithms) if "flows" in data else ()
    wl = workload.parse(data["workload"], topology, n_hosts, base_dir) if "workload" in data else None
    if wl is not None and isinstance(data["workload"], dict) and "cc" in data["workload"]:
        # generated flows' own controller (e.g. short DCTCP flows beside the variants' long flows)
        wl = dataclasses.replace(wl, cc=_cc(data["workload"]["cc"], "workload.cc", algorithms))
    cc = _cc(data["cc"], "cc", algorithms, base_dir)
    scn = Scenario(
        name=top["name"] or default_name,
        description=top["description"],
        seed=top["seed"],
        duration_ps=top["duration"],
        base_rtt_ps=top["base_rtt"],
        topology=topology,
        switch=_switch(data["switch"]) if "switch" in data else schema.record("switch", ecn=Ecn()),
        host=_host(data["host"]) if "host" in data else schema.record("host"),
        cc=cc,
        flows=flows,
        workload=wl,
        metrics=_metrics(data["metrics"], topology) if "metrics" in data else schema.record("metrics"),
        engine=schema.read("engine", data["engine"], "engine")
        if "engine" in data
        else schema.record("engine"),
        experiment=_experiment(data["experiment"], algorithms, cc, topology, data.get("workload"), base_dir)
        if "experiment" in data
        else None,
    )
    _check_consistency(scn)
    if scn.experiment is not None and scn.experiment.analysis:
        from ..analysis import ANALYSES

        ANALYSES[scn.experiment.analysis].check(scn)
    return scn
