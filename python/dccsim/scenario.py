"""Scenario files: TOML with units  ->  validated `Scenario`  ->  engine JSON (docs/engine-api.md).

Every validation error is a :class:`ScenarioError` whose field is the user-facing dotted name
(``topology.host_rate``, ``flows[2].src``, ``experiment.variants[1].cc.algorithm``) and whose
message states what is allowed.

Congestion-control parameters (the keys beside ``algorithm`` in ``[cc]``) are passed to the engine
unchanged as ``params``: write them as plain numbers (or booleans) in SI units (seconds, bits/s,
bytes), never as unit strings.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import tomli_w

from . import topology as topo
from . import units
from .errors import ScenarioError
from .workload import permutation_pairs

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

# Used when the compiled engine is not importable (e.g. validating a file on a machine without it).
FALLBACK_ALGORITHMS = ("powertcp", "theta-powertcp", "hpcc")

TOP_KEYS = ("name", "description", "seed", "duration", "base_rtt", "topology", "switch", "host",
            "cc", "flows", "workload", "metrics", "experiment")
SWITCH_KEYS = ("buffer", "dt_alpha", "int", "int_bytes", "ecn")
INT_BYTES_MODES = ("tx", "rx")
ECN_KINDS = {"none": (), "step": ("k",), "red": ("kmin", "kmax", "pmax")}
HOST_KEYS = ("payload", "header", "int_header", "ack", "rto", "nack_interval")
FLOW_KEYS = ("src", "dst", "size", "start", "cc")
WORKLOAD_KINDS = ("permutation",)
WORKLOAD_KEYS = ("kind", "start", "size")
METRICS_KEYS = ("interval", "ports", "flows", "start")
EXPERIMENT_KEYS = ("title", "analysis", "variants")
VARIANT_KEYS = ("name", "cc")


# ----------------------------------------------------------------------------------------------
# The validated scenario (all quantities resolved to the engine's integer SI units)

@dataclass(frozen=True)
class CcSpec:
    algorithm: str
    params: dict = field(default_factory=dict)

    def to_engine(self) -> dict:
        return {"algorithm": self.algorithm, "params": dict(self.params)}


@dataclass(frozen=True)
class Topology:
    kind: str
    values: dict  # field -> int (counts, bits/s, ps); custom: "links" -> tuple[Link]


@dataclass(frozen=True)
class Link:
    a: str
    b: str
    rate_bps: int
    delay_ps: int


@dataclass(frozen=True)
class Ecn:
    kind: str = "none"
    k_bytes: Optional[int] = None
    kmin_bytes: Optional[int] = None
    kmax_bytes: Optional[int] = None
    pmax: Optional[float] = None


@dataclass(frozen=True)
class Switch:
    buffer_bytes: int = 4 * 2**20
    dt_alpha: float = 0.125
    int_enabled: bool = True
    int_bytes_mode: str = "tx"
    ecn: Ecn = Ecn()


@dataclass(frozen=True)
class Host:
    payload_bytes: int = 1000
    header_bytes: int = 48
    int_header_bytes: int = 42
    ack_bytes: int = 60
    rto_ps: int = 1_000_000_000
    nack_interval_ps: int = 500_000_000


@dataclass(frozen=True)
class Flow:
    src: Union[int, tuple]  # one host, or a tuple of hosts (one flow per source)
    dst: int
    size_bytes: Optional[int] = None  # None = long-lived
    start_ps: int = 0
    cc: Optional[CcSpec] = None


@dataclass(frozen=True)
class Workload:
    kind: str
    start_ps: int = 0
    size_bytes: Optional[int] = None


@dataclass(frozen=True)
class Metrics:
    interval_ps: int = 0
    ports: tuple = ()
    flows: bool = False
    start_ps: int = 0


@dataclass(frozen=True)
class Variant:
    name: str
    cc: CcSpec

    @property
    def slug(self) -> str:
        return slugify(self.name)


@dataclass(frozen=True)
class Experiment:
    title: str = ""
    analysis: Optional[str] = None
    variants: tuple = ()
    params: dict = field(default_factory=dict)  # analysis-specific keys, resolved


@dataclass(frozen=True)
class Scenario:
    name: str
    duration_ps: int
    topology: Topology
    cc: CcSpec
    description: str = ""
    seed: int = 1
    base_rtt_ps: Optional[int] = None  # None = "auto"
    switch: Switch = Switch()
    host: Host = Host()
    flows: tuple = ()
    workload: Optional[Workload] = None
    metrics: Metrics = Metrics()
    experiment: Optional[Experiment] = None

    @property
    def host_count(self) -> int:
        return topo.host_count(self.topology.kind, self.topology.values)

    def with_seed(self, seed: int) -> "Scenario":
        return dataclasses.replace(self, seed=_seed(seed, "seed"))

    def variants(self) -> list[Variant]:
        """The runs of this scenario; without [experiment], one variant named after its algorithm."""
        if self.experiment and self.experiment.variants:
            return list(self.experiment.variants)
        return [Variant(self.cc.algorithm, self.cc)]

    def variant(self, name: str) -> Variant:
        """Look a variant up by name or slug (case-insensitive)."""
        for v in self.variants():
            if name.lower() in (v.name.lower(), v.slug):
                return v
        allowed = ", ".join(v.name for v in self.variants())
        raise ScenarioError("variant", f"unknown variant {name!r}; allowed: {allowed}")

    def engine_flows(self) -> list[dict]:
        out = []
        for f in self.flows:
            for s in (f.src if isinstance(f.src, tuple) else (f.src,)):
                out.append({"src": s, "dst": f.dst, "size_bytes": f.size_bytes,
                            "start_ps": f.start_ps,
                            "cc": f.cc.to_engine() if f.cc else None})
        if self.workload is not None and self.workload.kind == "permutation":
            for s, d in permutation_pairs(self.host_count, self.seed):
                out.append({"src": s, "dst": d, "size_bytes": self.workload.size_bytes,
                            "start_ps": self.workload.start_ps, "cc": None})
        return out

    def to_engine_config(self, variant: Union[Variant, str, None] = None) -> dict:
        """The engine's JSON input (as a dict) for one variant (default: the scenario's own cc)."""
        if isinstance(variant, str):
            variant = self.variant(variant)
        cc = variant.cc if variant is not None else self.cc
        return {
            "seed": self.seed,
            "duration_ps": self.duration_ps,
            "base_rtt_ps": self.base_rtt_ps,
            "topology": _topology_to_engine(self.topology),
            "switch": {
                "buffer_bytes": self.switch.buffer_bytes,
                "dt_alpha": self.switch.dt_alpha,
                "int_enabled": self.switch.int_enabled,
                "int_bytes_mode": self.switch.int_bytes_mode,
                "ecn": _ecn_to_engine(self.switch.ecn),
            },
            "host": dataclasses.asdict(self.host),
            "cc": cc.to_engine(),
            "flows": self.engine_flows(),
            "metrics": {
                "sample_interval_ps": self.metrics.interval_ps,
                "ports": list(self.metrics.ports),
                "flows": self.metrics.flows,
                "start_ps": self.metrics.start_ps,
            },
        }


def slugify(name: str) -> str:
    """Directory-safe variant name: 'θ-PowerTCP' -> 'theta-powertcp'."""
    greek = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "θ": "theta", "λ": "lambda",
             "μ": "mu", "τ": "tau"}
    s = "".join(greek.get(c, c) for c in name.lower())
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s or "variant"


def _topology_to_engine(t: Topology) -> dict:
    out: dict[str, Any] = {"kind": t.kind}
    for key, typ in topo.FIELDS[t.kind].items():
        if typ == "rate":
            out[f"{key}_bps"] = t.values[key]
        elif typ == "time":
            out[f"{key}_ps"] = t.values[key]
        elif typ == "links":
            out["links"] = [{"a": l.a, "b": l.b, "rate_bps": l.rate_bps, "delay_ps": l.delay_ps}
                            for l in t.values["links"]]
        else:
            out[key] = t.values[key]
    return out


def _ecn_to_engine(e: Ecn) -> dict:
    if e.kind == "step":
        return {"kind": "step", "k_bytes": e.k_bytes}
    if e.kind == "red":
        return {"kind": "red", "kmin_bytes": e.kmin_bytes, "kmax_bytes": e.kmax_bytes,
                "pmax": e.pmax}
    return {"kind": "none"}


# ----------------------------------------------------------------------------------------------
# Loading and validation

def known_algorithms() -> list[str]:
    """Controller names: the engine's own list when it is installed, else the documented ones."""
    from . import engine
    if engine.available():
        return engine.algorithms()
    return list(FALLBACK_ALGORITHMS)


def load(source: Union[str, Path, dict], name: Optional[str] = None) -> Scenario:
    """Load a scenario from a TOML file path or an already-parsed dict."""
    if isinstance(source, dict):
        return from_dict(source, default_name=name or "scenario")
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError("scenario", f"cannot read {str(path)!r}: {e.strerror}") from None
    return loads(text, default_name=name or path.stem)


def loads(text: str, default_name: str = "scenario") -> Scenario:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("scenario", f"invalid TOML: {e}") from None
    return from_dict(data, default_name=default_name)


class _Table:
    """A TOML table being read: rejects unknown keys, converts values, names fields in errors."""

    def __init__(self, data: Any, prefix: str, allowed):
        if not isinstance(data, dict):
            raise ScenarioError(prefix, f"expected a table, got {_show(data)}")
        self.data, self.prefix = data, prefix
        for k in data:
            if k not in allowed:
                raise ScenarioError(self.f(k), f"unknown key; allowed: {', '.join(allowed)}")

    def f(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def has(self, key: str) -> bool:
        return key in self.data

    def req(self, key: str, conv):
        if key not in self.data:
            raise ScenarioError(self.f(key), "missing (required)")
        return conv(self.data[key], self.f(key))

    def opt(self, key: str, conv, default):
        return conv(self.data[key], self.f(key)) if key in self.data else default


def _show(v) -> str:
    return f"{type(v).__name__} {v!r}" if not isinstance(v, dict) else "a table"


def _unit(parse):
    def conv(v, f):
        try:
            return parse(v, f)
        except units.UnitError as e:
            msg = str(e)
            raise ScenarioError(f, msg[len(f) + 2:] if msg.startswith(f + ": ") else msg) from None
    return conv


_rate, _time, _size = _unit(units.parse_rate), _unit(units.parse_time), _unit(units.parse_size)


def _pos_time(v, f):
    t = _time(v, f)
    if t <= 0:
        raise ScenarioError(f, f"must be > 0, got {v!r}")
    return t


def _pos_size(v, f):
    b = _size(v, f)
    if b <= 0:
        raise ScenarioError(f, f"must be > 0 bytes, got {v!r}")
    return b


def _int(v, f, lo=None):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ScenarioError(f, f"expected an integer, got {_show(v)}")
    if lo is not None and v < lo:
        raise ScenarioError(f, f"must be >= {lo}, got {v}")
    return v


def _seed(v, f):
    return _int(v, f, lo=0)


def _str(v, f):
    if not isinstance(v, str):
        raise ScenarioError(f, f"expected a string, got {_show(v)}")
    return v


def _bool(v, f):
    if not isinstance(v, bool):
        raise ScenarioError(f, f"expected true or false, got {_show(v)}")
    return v


def _number(v, f):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ScenarioError(f, f"expected a number, got {_show(v)}")
    return v


def _choice(allowed):
    def conv(v, f):
        if not isinstance(v, str) or v not in allowed:
            raise ScenarioError(f, f"unknown value {v!r}; allowed: {', '.join(allowed)}")
        return v
    return conv


def _cc(data, prefix: str, algorithms: list[str]) -> CcSpec:
    if not isinstance(data, dict):
        raise ScenarioError(prefix, f"expected a table with 'algorithm', got {_show(data)}")
    if "algorithm" not in data:
        raise ScenarioError(f"{prefix}.algorithm", f"missing (required); allowed: {', '.join(algorithms)}")
    algorithm = _choice(algorithms)(data["algorithm"], f"{prefix}.algorithm")
    params = {}
    for k in sorted(data):
        if k == "algorithm":
            continue
        v = data[k]
        if isinstance(v, bool) or isinstance(v, (int, float)):
            params[k] = v
        else:
            raise ScenarioError(f"{prefix}.{k}", f"CC parameters are plain numbers in SI units "
                                                 f"(seconds, bits/s, bytes) or booleans, got {_show(v)}")
    return CcSpec(algorithm, params)


def _topology(data) -> Topology:
    if not isinstance(data, dict):
        raise ScenarioError("topology", "missing (required) or not a table")
    if "kind" not in data:
        raise ScenarioError("topology.kind", f"missing (required); allowed: {', '.join(topo.KINDS)}")
    kind = _choice(topo.KINDS)(data["kind"], "topology.kind")
    schema = topo.FIELDS[kind]
    t = _Table(data, "topology", ("kind",) + tuple(schema))
    values: dict[str, Any] = {}
    for key, typ in schema.items():
        if typ == "count":
            lo = 0 if (kind, key) in topo.ZERO_OK else 1
            values[key] = t.req(key, lambda v, f, lo=lo: _int(v, f, lo=lo))
        elif typ == "rate":
            values[key] = t.req(key, _rate)
        elif typ == "time":
            values[key] = t.req(key, _time)
    if kind == "fattree" and values["pods"] > 1 and values["cores"] % values["aggs_per_pod"]:
        raise ScenarioError("topology.cores", f"must be a multiple of aggs_per_pod "
                                              f"({values['aggs_per_pod']}), got {values['cores']}")
    if kind == "custom":
        raw = t.req("links", lambda v, f: v)
        if not isinstance(raw, list) or not raw:
            raise ScenarioError("topology.links", "expected a non-empty list of "
                                                  "{a, b, rate, delay} tables")
        links = []
        for i, ld in enumerate(raw):
            lt = _Table(ld, f"topology.links[{i}]", tuple(topo.LINK_FIELDS))
            ends = []
            for end in ("a", "b"):
                node = lt.req(end, _str)
                if not topo.node_exists(kind, values, node):
                    raise ScenarioError(lt.f(end), f"unknown node {node!r}; nodes: "
                                                   f"{topo.node_names_hint(kind, values)}")
                ends.append(node)
            links.append(Link(ends[0], ends[1], lt.req("rate", _rate), lt.req("delay", _time)))
        values["links"] = tuple(links)
    return Topology(kind, values)


def _switch(data) -> Switch:
    t = _Table(data, "switch", SWITCH_KEYS)
    d = Switch()
    alpha = t.opt("dt_alpha", _number, d.dt_alpha)
    if not alpha > 0 or alpha != alpha or alpha == float("inf"):
        raise ScenarioError("switch.dt_alpha", f"must be a finite number > 0, got {alpha!r}")
    return Switch(
        buffer_bytes=t.opt("buffer", _pos_size, d.buffer_bytes),
        dt_alpha=float(alpha),
        int_enabled=t.opt("int", _bool, d.int_enabled),
        int_bytes_mode=t.opt("int_bytes", _choice(INT_BYTES_MODES), d.int_bytes_mode),
        ecn=_ecn(data["ecn"]) if "ecn" in data else d.ecn,
    )


def _ecn(data) -> Ecn:
    if not isinstance(data, dict) or "kind" not in data:
        raise ScenarioError("switch.ecn.kind", f"missing (required); allowed: {', '.join(ECN_KINDS)}")
    kind = _choice(tuple(ECN_KINDS))(data["kind"], "switch.ecn.kind")
    t = _Table(data, "switch.ecn", ("kind",) + ECN_KINDS[kind])
    if kind == "step":
        return Ecn("step", k_bytes=t.req("k", _size))
    if kind == "red":
        kmin, kmax = t.req("kmin", _size), t.req("kmax", _size)
        if kmax <= kmin:
            raise ScenarioError("switch.ecn.kmax", f"must be greater than kmin ({kmin} B), got {kmax} B")
        pmax = float(t.req("pmax", _number))
        if not 0.0 <= pmax <= 1.0:
            raise ScenarioError("switch.ecn.pmax", f"must lie in [0, 1], got {pmax}")
        return Ecn("red", kmin_bytes=kmin, kmax_bytes=kmax, pmax=pmax)
    return Ecn("none")


def _host(data) -> Host:
    t = _Table(data, "host", HOST_KEYS)
    d = Host()
    return Host(
        payload_bytes=t.opt("payload", _pos_size, d.payload_bytes),
        header_bytes=t.opt("header", _size, d.header_bytes),
        int_header_bytes=t.opt("int_header", _size, d.int_header_bytes),
        ack_bytes=t.opt("ack", _pos_size, d.ack_bytes),
        rto_ps=t.opt("rto", _pos_time, d.rto_ps),
        nack_interval_ps=t.opt("nack_interval", _time, d.nack_interval_ps),
    )


def _host_index(n_hosts: int):
    def conv(v, f):
        h = _int(v, f, lo=0)
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
        t = _Table(fd, f"flows[{i}]", FLOW_KEYS)
        dst = t.req("dst", host)
        raw_src = t.req("src", lambda v, f: v)
        if isinstance(raw_src, list):
            if not raw_src:
                raise ScenarioError(t.f("src"), "empty list; give at least one host")
            src: Union[int, tuple] = tuple(host(s, f"{t.f('src')}[{j}]") for j, s in enumerate(raw_src))
            srcs = src
        else:
            src = host(raw_src, t.f("src"))
            srcs = (src,)
        if dst in srcs:
            raise ScenarioError(t.f("dst"), f"must differ from src (both are host {dst})")
        out.append(Flow(
            src=src, dst=dst,
            size_bytes=t.opt("size", _pos_size, None),
            start_ps=t.opt("start", _time, 0),
            cc=_cc(fd["cc"], t.f("cc"), algorithms) if "cc" in fd else None,
        ))
    return tuple(out)


def _workload(data, n_hosts: int) -> Workload:
    t = _Table(data, "workload", WORKLOAD_KEYS)
    kind = t.req("kind", _choice(WORKLOAD_KINDS))
    if kind == "permutation" and n_hosts < 2:
        raise ScenarioError("workload.kind", "permutation needs at least 2 hosts")
    return Workload(kind, start_ps=t.opt("start", _time, 0), size_bytes=t.opt("size", _pos_size, None))


def _metrics(data, topology: Topology) -> Metrics:
    t = _Table(data, "metrics", METRICS_KEYS)

    def ports(v, f):
        if not isinstance(v, list):
            raise ScenarioError(f, 'expected a list of port names such as ["tor0->h16"] or ["*"]')
        out = []
        for j, p in enumerate(v):
            fj = f"{f}[{j}]"
            p = _str(p, fj)
            if p != "*":
                m = re.fullmatch(r"([a-z]+[0-9]+)->([a-z]+[0-9]+)", p)
                if not m:
                    raise ScenarioError(fj, f"cannot read {p!r}; write '<node>-><peer>', e.g. 'tor0->h16', or '*'")
                for node in m.groups():
                    if not topo.node_exists(topology.kind, topology.values, node):
                        raise ScenarioError(fj, f"unknown node {node!r}; nodes: "
                                                f"{topo.node_names_hint(topology.kind, topology.values)}")
            out.append(p)
        return tuple(out)

    return Metrics(interval_ps=t.opt("interval", _time, 0), ports=t.opt("ports", ports, ()),
                   flows=t.opt("flows", _bool, False), start_ps=t.opt("start", _time, 0))


def _experiment(data, algorithms, default_cc: CcSpec) -> Experiment:
    from .analysis import ANALYSES
    analysis = data.get("analysis") if isinstance(data, dict) else None
    if analysis is not None:
        analysis = _choice(tuple(ANALYSES))(analysis, "experiment.analysis")
    extra = ANALYSES[analysis].KEYS if analysis else {}
    t = _Table(data, "experiment", EXPERIMENT_KEYS + tuple(extra))
    variants = []
    raw = t.opt("variants", lambda v, f: v, [])
    if not isinstance(raw, list):
        raise ScenarioError("experiment.variants", "expected a list of {name, cc} tables")
    slugs: dict[str, int] = {}
    for i, vd in enumerate(raw):
        vt = _Table(vd, f"experiment.variants[{i}]", VARIANT_KEYS)
        name = vt.req("name", _str)
        if not name.strip():
            raise ScenarioError(vt.f("name"), "must not be empty")
        cc = _cc(vt.req("cc", lambda v, f: v), vt.f("cc"), algorithms)
        if cc.algorithm == default_cc.algorithm:  # same controller: inherit [cc]'s parameters
            cc = CcSpec(cc.algorithm, {**default_cc.params, **cc.params})
        v = Variant(name, cc)
        if v.slug in slugs:
            raise ScenarioError(vt.f("name"), f"{name!r} clashes with variants[{slugs[v.slug]}] "
                                              f"(same directory name {v.slug!r})")
        slugs[v.slug] = i
        variants.append(v)
    params = {}
    for key, typ in extra.items():
        if key not in data and key in ANALYSES[analysis].REQUIRED:
            raise ScenarioError(t.f(key), f"missing (required by analysis {analysis!r})")
        if key in data:
            params[key] = {"time": _time, "str": _str, "number": _number}[typ](data[key], t.f(key))
    return Experiment(title=t.opt("title", _str, ""), analysis=analysis, variants=tuple(variants),
                      params=params)


def from_dict(data: dict, default_name: str = "scenario") -> Scenario:
    t = _Table(data, "", TOP_KEYS)
    algorithms = known_algorithms()
    if "topology" not in data:
        raise ScenarioError("topology", "missing (required) [topology] table")
    topology = _topology(data["topology"])
    n_hosts = topo.host_count(topology.kind, topology.values)
    if "cc" not in data:
        raise ScenarioError("cc", "missing (required) [cc] table with 'algorithm'")
    base_rtt = data.get("base_rtt", "auto")
    base_rtt_ps = None if base_rtt == "auto" else _pos_time(base_rtt, "base_rtt")
    flows = _flows(data["flows"], n_hosts, algorithms) if "flows" in data else ()
    workload = _workload(data["workload"], n_hosts) if "workload" in data else None
    if not flows and workload is None:
        raise ScenarioError("flows", "no flows: add [[flows]] tables or a [workload]")
    cc = _cc(data["cc"], "cc", algorithms)
    scn = Scenario(
        name=t.opt("name", _str, default_name),
        description=t.opt("description", _str, ""),
        seed=t.opt("seed", _seed, 1),
        duration_ps=t.req("duration", _pos_time),
        base_rtt_ps=base_rtt_ps,
        topology=topology,
        switch=_switch(data["switch"]) if "switch" in data else Switch(),
        host=_host(data["host"]) if "host" in data else Host(),
        cc=cc,
        flows=flows,
        workload=workload,
        metrics=_metrics(data["metrics"], topology) if "metrics" in data else Metrics(),
        experiment=_experiment(data["experiment"], algorithms, cc) if "experiment" in data else None,
    )
    if scn.experiment is not None and scn.experiment.analysis:
        from .analysis import ANALYSES
        ANALYSES[scn.experiment.analysis].check(scn)
    return scn


# ----------------------------------------------------------------------------------------------
# Writing back (dccsim show): to_dict(load(x)) loads to an equal Scenario

def _cc_dict(cc: CcSpec) -> dict:
    return {"algorithm": cc.algorithm, **cc.params}


def to_dict(s: Scenario) -> dict:
    tv = s.topology.values
    topology: dict[str, Any] = {"kind": s.topology.kind}
    for key, typ in topo.FIELDS[s.topology.kind].items():
        if typ == "rate":
            topology[key] = units.format_rate_exact(tv[key])
        elif typ == "time":
            topology[key] = units.format_time_exact(tv[key])
        elif typ == "links":
            topology[key] = [{"a": l.a, "b": l.b, "rate": units.format_rate_exact(l.rate_bps),
                              "delay": units.format_time_exact(l.delay_ps)} for l in tv[key]]
        else:
            topology[key] = tv[key]
    e = s.switch.ecn
    ecn: dict[str, Any] = {"kind": e.kind}
    if e.kind == "step":
        ecn["k"] = units.format_size_exact(e.k_bytes)
    elif e.kind == "red":
        ecn.update(kmin=units.format_size_exact(e.kmin_bytes),
                   kmax=units.format_size_exact(e.kmax_bytes), pmax=e.pmax)
    h = s.host
    out: dict[str, Any] = {
        "name": s.name,
        "description": s.description,
        "seed": s.seed,
        "duration": units.format_time_exact(s.duration_ps),
        "base_rtt": "auto" if s.base_rtt_ps is None else units.format_time_exact(s.base_rtt_ps),
        "topology": topology,
        "switch": {"buffer": units.format_size_exact(s.switch.buffer_bytes),
                   "dt_alpha": s.switch.dt_alpha, "int": s.switch.int_enabled,
                   "int_bytes": s.switch.int_bytes_mode, "ecn": ecn},
        "host": {"payload": units.format_size_exact(h.payload_bytes),
                 "header": units.format_size_exact(h.header_bytes),
                 "int_header": units.format_size_exact(h.int_header_bytes),
                 "ack": units.format_size_exact(h.ack_bytes),
                 "rto": units.format_time_exact(h.rto_ps),
                 "nack_interval": units.format_time_exact(h.nack_interval_ps)},
        "cc": _cc_dict(s.cc),
    }
    if s.flows:
        flows = []
        for f in s.flows:
            fd: dict[str, Any] = {"src": list(f.src) if isinstance(f.src, tuple) else f.src, "dst": f.dst}
            if f.size_bytes is not None:
                fd["size"] = units.format_size_exact(f.size_bytes)
            fd["start"] = units.format_time_exact(f.start_ps)
            if f.cc is not None:
                fd["cc"] = _cc_dict(f.cc)
            flows.append(fd)
        out["flows"] = flows
    if s.workload is not None:
        w: dict[str, Any] = {"kind": s.workload.kind, "start": units.format_time_exact(s.workload.start_ps)}
        if s.workload.size_bytes is not None:
            w["size"] = units.format_size_exact(s.workload.size_bytes)
        out["workload"] = w
    m = s.metrics
    out["metrics"] = {"interval": units.format_time_exact(m.interval_ps), "ports": list(m.ports),
                      "flows": m.flows, "start": units.format_time_exact(m.start_ps)}
    if s.experiment is not None:
        x = s.experiment
        xd: dict[str, Any] = {"title": x.title}
        if x.analysis:
            xd["analysis"] = x.analysis
            from .analysis import ANALYSES
            for key, typ in ANALYSES[x.analysis].KEYS.items():
                if key in x.params:
                    xd[key] = units.format_time_exact(x.params[key]) if typ == "time" else x.params[key]
        xd["variants"] = [{"name": v.name, "cc": _cc_dict(v.cc)} for v in x.variants]
        out["experiment"] = xd
    return out


def dump_toml(s: Scenario) -> str:
    """The resolved scenario as TOML; `loads(dump_toml(s)) == s`."""
    return tomli_w.dumps(to_dict(s))
