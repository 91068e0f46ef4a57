from dccsim import experiments
from dccsim.workloads.permutation import derangement, permutation_pairs


def test_derangement_has_no_fixed_point_and_is_a_permutation():
    for seed in range(20):
        for n in (2, 3, 7, 256):
            p = derangement(n, seed)
            assert sorted(p) == list(range(n))
            assert all(p[i] != i for i in range(n))


def test_derangement_is_seed_deterministic_and_seed_sensitive():
    assert derangement(256, 5) == derangement(256, 5)
    assert derangement(256, 5) != derangement(256, 6)


def test_permutation_workload_in_engine_config():
    scn = experiments.get("bench-fattree-perm")
    flows = scn.to_engine_config()["flows"]
    assert len(flows) == 256
    assert sorted(f["dst"] for f in flows) == list(range(256))  # every host receives exactly one
    assert all(f["src"] != f["dst"] and f["size_bytes"] is None for f in flows)
    assert [(f["src"], f["dst"]) for f in flows] == permutation_pairs(256, scn.seed)
    other = scn.with_seed(scn.seed + 1).to_engine_config()["flows"]
    assert other != flows
