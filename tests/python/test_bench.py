"""`dccsim bench`: a case reports where the engine's memory went (issue 28)."""

from dccsim import bench

KEYS = (
    "pool_peak_packets",
    "pool_bytes",
    "sched_bytes",
    "port_bytes",
    "port_ring_bytes",
    "network_bytes",
    "flow_bytes",
)


def test_a_case_reports_the_engines_memory_within_its_peak_rss():
    # the 256-host permutation's scenario at its catalog length is ≈ 3 s of engine time; the
    # incast's first variant is 11 flows on the same FatTree and runs in milliseconds
    r = bench.run_case(bench.INCAST, None)
    m = r["engine_memory"]
    assert set(KEYS) <= set(m), m
    # every incast flow sends at least one packet, and a pool slot is 224 bytes
    assert m["pool_peak_packets"] >= 11
    assert m["pool_bytes"] >= 224 * m["pool_peak_packets"]
    # the counted buffers exist in the child process, so they fit in its peak RSS
    assert sum(m[k] for k in KEYS[1:]) <= r["peak_rss_mib"] * 2**20
    assert "pool pkts" in bench._table({"x": r})
