"""Racks of a topology, as the generated workloads need them: which hosts share a ToR and the
capacity of that ToR's uplinks (the load of the Poisson generator is a fraction of it)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ScenarioError


@dataclass(frozen=True)
class Racks:
    first: np.ndarray  # first host of each rack
    size: np.ndarray  # hosts in each rack
    uplink_bps: np.ndarray  # capacity from each rack's ToR towards the rest of the network

    @property
    def count(self) -> int:
        return len(self.first)

    def of_hosts(self, hosts: np.ndarray) -> np.ndarray:
        """Rack index of each host."""
        return np.searchsorted(self.first, hosts, side="right") - 1


def racks(kind: str, v: dict, field: str = "workload.kind") -> Racks:
    """Fat-tree: one rack per ToR (servers_per_tor hosts; uplinks = aggs_per_pod × tor_agg_rate).
    Dumbbell: the left and the right hosts (uplink = the bottleneck). Other kinds have no racks."""
    if kind == "fattree":
        n = v["pods"] * v["tors_per_pod"]
        s = v["servers_per_tor"]
        up = v["aggs_per_pod"] * v["tor_agg_rate"]
        return Racks(np.arange(n) * s, np.full(n, s), np.full(n, up, dtype=np.float64))
    if kind == "dumbbell":
        b = float(v["bottleneck_rate"])
        return Racks(np.array([0, v["left"]]), np.array([v["left"], v["right"]]), np.array([b, b]))
    raise ScenarioError(
        field, f"generated traffic needs racks; allowed topologies: fattree, dumbbell (not {kind})"
    )
