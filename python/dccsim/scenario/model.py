"""The validated scenario: frozen dataclasses holding every quantity in the engine's integer SI units.

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
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from .. import topology as topo
from ..errors import ScenarioError
from ..workloads.generate import flow_list
from . import schema
from .to_engine import topology_to_engine

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
    # scenario key (config/topology.rs) -> value in the engine's units (counts, bits/s, ps, bytes);
    # custom: "links" -> tuple of Link records; rdcn: "matchings" -> tuple of tuples
    values: dict


@dataclass(frozen=True)
class NoEcn:
    """`kind = "none"`: no marking."""

    kind = "none"

    def to_engine(self) -> dict:
        return {"kind": "none"}


def Ecn(kind: str = "none", **values):
    """An ECN marking: the record of its kind's section (engine config/ecn.rs, `switch.ecn.<kind>`),
    e.g. `Ecn("step", k_bytes=30_000)`; `Ecn()` marks nothing."""
    return NoEcn() if kind == "none" else schema.record(schema.ECN + kind, **values)


def __getattr__(name: str):
    """`Switch`, `Pfc`, `Host`, `Metrics`, `Link`: the records of the engine-declared sections
    (scenario/schema.py), made on first use (they need the compiled engine's schema)."""
    if name in _SECTIONS:
        return schema.record_class(_SECTIONS[name])
    raise AttributeError(name)


_SECTIONS = {
    "Switch": "switch",
    "Pfc": "switch.pfc",
    "Host": "host",
    "Metrics": "metrics",
    "Link": "topology.link",
    "Engine": "engine",
}


def _section(name: str):
    return field(default_factory=lambda: schema.record(name, **({"ecn": Ecn()} if name == "switch" else {})))


@dataclass(frozen=True)
class Flow:
    src: Union[int, tuple]  # one host, or a tuple of hosts (one flow per source)
    dst: int
    size_bytes: Optional[int] = None  # None = long-lived
    start_ps: int = 0
    cc: Optional[CcSpec] = None
    subflows: int = 1  # multipath: subflows of the connection (1 = single path)
    after: tuple = ()  # earlier [[flows]] indices that must all complete before this one starts
    closed_loop: Optional[ClosedLoop] = None  # Pareto sizes, restarted on completion


@dataclass(frozen=True)
class ClosedLoop:
    """A closed-loop long-flow source (engine traffic/closed_loop.rs): Pareto(shape, mean) sizes;
    when a flow completes the sender starts the next, to the same or a random destination."""

    shape: float
    mean_bytes: int
    destination: str  # "same" | "random" | "other-rack" (the authors' ns-3 code)
    max_bytes: Optional[int] = None  # larger draws are redrawn (the authors' code: 8 × 96 MiB)


@dataclass(frozen=True)
class Jobs:
    """Partition-aggregate jobs (AMP §5.3, docs/scenario.md): `clients` parallel job slots; a job
    is a `request_bytes` request from a random client to `fan_in` random servers, each of which
    answers `response_bytes` when its request completed. Closed loop: a slot's next job starts when
    every response of its previous one completed; open loop: every `interval_ps`."""

    clients: int
    fan_in: int
    request_bytes: int  # 0 = no request (the responses start with the job)
    response_bytes: int
    loop: str  # "closed" | "open"
    interval_ps: Optional[int] = None  # open loop only


@dataclass(frozen=True)
class Incast:
    """Incast requests (docs/scenario.md): per requesting host `rate` per second, or `global_rate`
    per second spread over the requesting hosts (exactly one is set)."""

    size_bytes: int
    start_ps: int
    stop_ps: int
    rate: Optional[float] = None
    global_rate: Optional[float] = None
    fan_in: int = 10


@dataclass(frozen=True)
class RotatingIncast:
    """A rotating incast (Poseidon §5.4, docs/scenario.md): `senders` hosts outside the sending
    racks each send one `size_bytes` message to the same host of rack `target_rack` at every round;
    rounds are `senders·size·8/rate_bps` apart (aggregate load `rate_bps`), and the target moves to
    the rack's next host after each round."""

    senders: int
    size_bytes: int
    rate_bps: int
    target_rack: int
    start_ps: int
    stop_ps: int


@dataclass(frozen=True)
class Workload:
    kind: str  # "permutation" | "poisson" | "incast" | "jobs" | "replay"
    start_ps: int = 0
    size_bytes: Optional[int] = None  # permutation / poisson: bytes per flow (None = long-lived / CDF)
    stop_ps: Optional[int] = None  # poisson / incast: arrivals in [start, stop)
    warmup_ps: int = 0  # flows starting before start + warmup are left out of the statistics
    cdf: Optional[str] = None  # a CDF shipped with dccsim (workloads/*.cdf) ...
    cdf_file: Optional[str] = None  # ... or a user's file
    cdf_points: tuple = ()  # the CDF read from either: ((size, cumulative probability), ...)
    # poisson: flows per second per sending host, instead of `load` (AMP Fig. 14 gives its
    # arrivals as "an average inter-flow arrival time in each server of about 780 µs")
    arrival_rate: Optional[float] = None
    load: Union[float, tuple, None] = None  # fraction of each sending rack's uplink capacity
    # (one number for every sending rack, or a tuple with one per sending rack)
    destinations: str = "uniform"  # "uniform" (other racks) | "artifact" | "sending-racks"
    sending_racks: Optional[int] = None  # the first N racks send (None = all)
    incast: Optional[Incast] = None
    rotating_incast: Optional[RotatingIncast] = None
    file: Optional[str] = None  # replay: an earlier run's flows_input.parquet (or its directory)
    stop_when_done: bool = False  # end the run when every finite flow has finished
    # a host pair's generated messages share one connection: each waits for the previous one and
    # continues its congestion controller (engine FlowSpec.follows)
    connections: bool = False
    subflows: int = 1  # multipath: subflows of every generated connection
    cc: Optional[CcSpec] = None  # the generated flows' own controller (None: the scenario's/variant's)
    jobs: Optional[Jobs] = None  # kind = "jobs"
    # poisson: flows of at least this size run multipath (`subflows`, the scenario's controller),
    # smaller ones single-path with `cc` (AMP Fig. 14: "long" ≥ 100 KB); None = all alike
    multipath_from_bytes: Optional[int] = None

    @property
    def measured_from_ps(self) -> int:
        """Flows starting at or after this instant enter the FCT statistics."""
        return self.start_ps + self.warmup_ps


@dataclass(frozen=True)
class Metrics:
    interval_ps: int = 0
    ports: tuple = ()
    flows: bool = False
    start_ps: int = 0
    pcap: tuple = ()  # ports whose packets are captured (packets.parquet, packets.pcap)
    pcap_max: int = 1_000_000  # packet budget of the capture


@dataclass(frozen=True)
class Variant:
    name: str
    cc: CcSpec
    ecn: Optional[Ecn] = None  # switch ECN marking of this variant (None = the scenario's)
    # rate/time fields of the scenario's topology that this variant overrides, as sorted
    # (key, value) pairs (bits/s, ps); () = the scenario's topology unchanged
    topology: tuple = ()
    # the whole [workload] this variant runs (the scenario's with the variant's overrides applied);
    # None = the scenario's workload
    workload: Optional[Workload] = None
    # brownfield INT of this variant: the switches that support INT (None = the scenario's)
    int_switches: Optional[tuple] = None
    # multipath: subflows of every multipath flow (subflows > 1) in this variant (None = as given;
    # 1 makes them single-path)
    subflows: Optional[int] = None
    # PFC of this variant's fabric: None = the scenario's [switch] pfc, False = off (lossy Dynamic
    # Thresholds with the scenario's [switch] values), a Pfc = lossless with those values
    pfc: Any = None  # a switch.pfc record, False or None
    # a variant added beside the paper's (`dccsim run --add-variant`): shown in the table and the
    # figure, left out of the paper's claims
    added: bool = False

    @property
    def slug(self) -> str:
        return slugify(self.name)


@dataclass(frozen=True)
class Experiment:
    title: str = ""
    analysis: Optional[str] = None
    variants: tuple = ()
    params: dict = field(default_factory=dict)  # analysis-specific keys, resolved
    # figures: axes from the scenario (buffer, line rate) instead of the data (figure_layout.py)
    fixed_scale: bool = False


@dataclass(frozen=True)
class Scenario:
    name: str
    duration_ps: int
    topology: Topology
    cc: CcSpec
    description: str = ""
    seed: int = 1
    base_rtt_ps: Optional[int] = None  # None = "auto"
    switch: Any = _section("switch")
    host: Any = _section("host")
    flows: tuple = ()
    workload: Optional[Workload] = None
    metrics: Any = _section("metrics")
    experiment: Optional[Experiment] = None
    engine: Any = _section("engine")  # how the engine runs it ([engine] check, threads)

    @property
    def host_count(self) -> int:
        return topo.host_count(self.topology.kind, self.topology.values)

    def with_seed(self, seed: int) -> Scenario:
        from .fields import seed as seed_field  # [0, 2^64 - 1]: the engine's seed is a u64

        return dataclasses.replace(self, seed=seed_field(seed, "seed"))

    def variants(self) -> list[Variant]:
        """The runs of this scenario; without [experiment], one variant named after its algorithm."""
        if self.experiment and self.experiment.variants:
            return list(self.experiment.variants)
        return [Variant(algorithm_name(self.cc.algorithm), self.cc)]

    def for_claims(self, metrics: dict) -> tuple:
        """(scenario, metrics by slug) of the paper's own variants: what an analysis's claims
        are computed over (variants added with `--add-variant` are compared, not claimed)."""
        if self.experiment is None or not any(v.added for v in self.experiment.variants):
            return self, metrics
        paper = tuple(v for v in self.experiment.variants if not v.added)
        scn = dataclasses.replace(self, experiment=dataclasses.replace(self.experiment, variants=paper))
        return scn, {slug: m for slug, m in metrics.items() if slug in {v.slug for v in paper}}

    def variant(self, name: str) -> Variant:
        """Look a variant up by name or slug (case-insensitive)."""
        for v in self.variants():
            if name.lower() in (v.name.lower(), v.slug):
                return v
        allowed = ", ".join(v.name for v in self.variants())
        raise ScenarioError("variant", f"unknown variant {name!r}; allowed: {allowed}")

    def variant_topology(self, variant: Optional[Variant]) -> Topology:
        """The topology a variant runs on: the scenario's, with the variant's rate/time overrides."""
        if variant is None or not variant.topology:
            return self.topology
        return Topology(self.topology.kind, {**self.topology.values, **dict(variant.topology)})

    def variant_workload(self, variant: Optional[Variant]) -> Optional[Workload]:
        """The workload a variant runs: its own (`workload` overrides) or the scenario's."""
        if variant is not None and variant.workload is not None:
            return variant.workload
        return self.workload

    def for_variant(self, variant: Optional[Variant]) -> Scenario:
        """The scenario as one variant sees it: the variant's workload in place of [workload]
        (the same object when the variant does not override it, so the flow list is shared)."""
        if variant is None or variant.workload is None:
            return self
        cache = self.__dict__.setdefault("_variant_scenarios", {})
        if variant.slug not in cache:
            cache[variant.slug] = dataclasses.replace(self, workload=variant.workload)
        return cache[variant.slug]

    def flow_list(self, variant: Optional[Variant] = None):
        """Every flow of the run (workloads.generate.FlowList) of `variant` (default: the scenario's
        own workload), generated once per workload."""
        scn = self.for_variant(variant)
        cached = scn.__dict__.get("_flow_list")
        if cached is None:
            cached = flow_list(scn)
            object.__setattr__(scn, "_flow_list", cached)  # a cache, not a field: frozen stays frozen
        return cached

    def engine_flows(self, variant: Optional[Variant] = None) -> list[dict]:
        return self.flow_list(variant).to_engine()

    def variant_pfc(self, variant: Optional[Variant]) -> Any:
        """The PFC a variant's fabric runs (None = lossy)."""
        if variant is not None and variant.pfc is not None:
            return variant.pfc or None
        return self.switch.pfc

    def variant_int_switches(self, variant: Optional[Variant]) -> Optional[list]:
        """The switches with INT in a variant's run (None = every switch)."""
        if variant is not None and variant.int_switches is not None:
            return list(variant.int_switches)
        return None if self.switch.int_switches is None else list(self.switch.int_switches)

    def _variant_flows(self, variant) -> list[dict]:
        flows = self.engine_flows(variant)
        n = None if variant is None else variant.subflows
        if n is None:
            return flows
        # the variant's subflow count replaces that of every multipath flow
        return [
            ({k: x for k, x in f.items() if k != "subflows"} | ({"subflows": n} if n > 1 else {}))
            if f.get("subflows", 1) > 1
            else f
            for f in flows
        ]

    def to_engine_config(self, variant: Union[Variant, str, None] = None) -> dict:
        """The engine's JSON input (as a dict) for one variant (default: the scenario's own cc)."""
        if isinstance(variant, str):
            variant = self.variant(variant)
        cc = variant.cc if variant is not None else self.cc
        wl = self.variant_workload(variant)
        return {
            "seed": self.seed,
            "duration_ps": self.duration_ps,
            "base_rtt_ps": self.base_rtt_ps,
            "topology": topology_to_engine(self.variant_topology(variant)),
            "switch": schema.to_engine(
                dataclasses.replace(
                    self.switch,
                    int_switches=self.variant_int_switches(variant),
                    ecn=variant.ecn if variant is not None and variant.ecn is not None else self.switch.ecn,
                    pfc=self.variant_pfc(variant),
                )
            ),
            "host": schema.to_engine(self.host),
            "cc": cc.to_engine(),
            "flows": self._variant_flows(variant),
            **({"stop_when_done": True} if wl is not None and wl.stop_when_done else {}),
            "metrics": schema.to_engine(self.metrics),
            # only when set: the engine's default is the same, and stored configs stay as they were
            **(
                {"engine": _changed_engine_keys(self.engine)}
                if self.engine != schema.record("engine")
                else {}
            ),
        }


def algorithm_name(algorithm: str) -> str:
    """An algorithm's name for tables and variants: a plugin (``plugin:<object path>``, the
    engine's name for it, plugins.py) by its file stem (``delay_aimd``); others as given."""
    if not algorithm.startswith("plugin:"):
        return algorithm
    stem = Path(algorithm[len("plugin:") :]).name.removesuffix(".o")
    return re.sub(r"-[0-9a-f]{16}$", "", stem).removesuffix(".bpf")


def slugify(name: str) -> str:
    """Directory-safe variant name: 'θ-PowerTCP' -> 'theta-powertcp'."""
    greek = {
        "α": "alpha",
        "β": "beta",
        "γ": "gamma",
        "δ": "delta",
        "θ": "theta",
        "λ": "lambda",
        "μ": "mu",
        "τ": "tau",
    }
    s = "".join(greek.get(c, c) for c in name.lower())
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s or "variant"


def _changed_engine_keys(engine) -> dict:
    """The `[engine]` keys that differ from their defaults, as the engine reads them."""
    default = schema.to_engine(schema.record("engine"))
    return {k: v for k, v in schema.to_engine(engine).items() if v != default.get(k)}
