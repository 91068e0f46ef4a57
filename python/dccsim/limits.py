"""Resource limits: estimate a run's memory before it starts and refuse it above a limit.

Memory grows with the topology (ports and their queues), the flows (transport and controller
state) and the sampled series (rows of ``port_series``/``flow_series``; the only thing that grows
with simulated time). The per-item costs below are deliberately rounded up; the estimate is for
refusing runs that cannot fit (10**8 servers, a 1 ns sampling interval over 300 ms), not for
predicting peak RSS to the megabyte.

The limit is, in order of precedence: ``--memory-limit`` (``dccsim run``), the environment variable
``DCCSIM_MEMORY_LIMIT`` (a size such as ``"8GiB"``), or 80 % of the machine's physical memory.
"""

from __future__ import annotations

import os
from typing import Optional

from . import topology as topo
from . import units
from .errors import ScenarioError

PORT_BYTES = 4096  # a port: queues, counters, link state, its name in the results
FLOW_BYTES = 2048  # a flow: transport endpoint, controller state, its row in flows
# One sampled row through engine columns, Python conversion and the pandas/Parquet copies:
# about 300 B measured on the incast (300 ms at 1 µs reached 1.1 GB with ~3.5 M rows).
SERIES_ROW_BYTES = 300
MIN_INTERVAL_PS = 1_000  # sampling more often than every 1 ns says nothing a packet does not
ENV = "DCCSIM_MEMORY_LIMIT"


def port_count(kind: str, v: dict) -> int:
    """Egress ports of the topology (two per link), as the engine builds it."""
    return topo.port_count(kind, v)


def default_limit() -> int:
    try:
        return int(0.8 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # not POSIX: 8 GiB
        return 8 * 2**30


def resolve_limit(cli_value: Optional[str] = None) -> int:
    """The memory limit in bytes (see the module docstring for the order)."""
    if cli_value is not None:
        return _parse_limit(cli_value, "--memory-limit")
    env = os.environ.get(ENV)
    if env:
        return _parse_limit(env, ENV)
    return default_limit()


def _parse_limit(text: str, field: str) -> int:
    try:
        b = units.parse_size(text, field) if not text.isdigit() else int(text)
    except units.UnitError as e:
        raise ScenarioError(field, str(e).removeprefix(f"{field}: ")) from None
    if b <= 0:
        raise ScenarioError(field, f"must be a size > 0 such as '8GiB', got {text!r}")
    return b


def flow_count(scn) -> int:
    """Flows of the largest variant (variants may override the workload)."""
    from .workloads.generate import expected_count

    generated = max(expected_count(scn.for_variant(v)) for v in scn.variants())
    return sum(len(f.src) if isinstance(f.src, tuple) else 1 for f in scn.flows) + generated


def estimate(scn, n_variants: int = 1, concurrent: int = 1) -> dict:
    """Bytes of memory the run needs at most, by part. Computed from the scenario alone (before
    any flow list is generated), so a topology of 10**8 servers is refused without building it.
    `concurrent` variants run at once (`--jobs`), each with its own topology and flows."""
    t = scn.topology
    ports = port_count(t.kind, t.values)
    n_flows = flow_count(scn)
    m = scn.metrics
    rows = 0
    if m.interval_ps > 0 and m.start_ps < scn.duration_ps:
        samples = (scn.duration_ps - m.start_ps) // m.interval_ps + 1
        sampled_ports = ports if "*" in m.ports else len(m.ports)
        rows = samples * (sampled_ports + (n_flows if m.flows else 0))
    kept = n_variants if scn.experiment is not None and scn.experiment.analysis else 1
    e = {
        "topology": ports * PORT_BYTES,
        "flows": n_flows * FLOW_BYTES,
        "series_rows": rows,
        # the analysis keeps every variant's series for its figure
        "series": rows * SERIES_ROW_BYTES * kept,
    }
    e["total"] = (e["topology"] + e["flows"]) * max(1, concurrent) + e["series"]
    return e


def check(scn, n_variants: int = 1, limit: Optional[int] = None, concurrent: int = 1) -> dict:
    """Refuse (ScenarioError naming the dominant field) a run whose estimate exceeds the limit."""
    m = scn.metrics
    if 0 < m.interval_ps < MIN_INTERVAL_PS:
        raise ScenarioError(
            "metrics.interval", f"must be 0 (off) or >= 1ns, got {units.format_time_exact(m.interval_ps)}"
        )
    limit = resolve_limit() if limit is None else limit
    e = estimate(scn, n_variants, concurrent)
    if e["total"] > limit:
        parts = {"topology": e["topology"], "flows": e["flows"], "metrics.interval": e["series"]}
        field = max(parts, key=parts.get)
        field = {"flows": "workload" if scn.workload is not None else "flows"}.get(field, field)
        raise ScenarioError(
            field,
            f"the run would need about {units.format_size(e['total'])} of memory (topology "
            f"{units.format_size(e['topology'])}, flows {units.format_size(e['flows'])}, sampled series "
            f"{e['series_rows']} rows = {units.format_size(e['series'])}), above the limit of "
            f"{units.format_size(limit)}; shrink it (e.g. a longer metrics.interval, a later "
            f"metrics.start, fewer sampled ports) or raise the limit with --memory-limit or {ENV}",
        )
    return e
