from pathlib import Path

import pytest

from dccsim import experiments, scenario
from dccsim.errors import ScenarioError


def err(data) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        scenario.from_dict(data)
    return e.value


def test_valid_scenario_resolves_to_engine_json(base):
    cfg = scenario.from_dict(base).to_engine_config()
    assert cfg["duration_ps"] == 10**9
    assert cfg["topology"] == {"kind": "star", "hosts": 4, "host_rate_bps": 10**10, "host_delay_ps": 10**6}
    assert cfg["cc"] == {"algorithm": "powertcp", "params": {"gamma": 0.9}}
    # one flow per source of a list
    assert cfg["flows"] == [
        {"src": 1, "dst": 0, "size_bytes": 100_000, "start_ps": 10**7, "cc": None},
        {"src": 2, "dst": 0, "size_bytes": 100_000, "start_ps": 10**7, "cc": None},
    ]
    assert cfg["metrics"] == {
        "interval_ps": 10**6,
        "ports": ["sw0->h0"],
        "flows": True,
        "start_ps": 0,
        "pcap": [],
        "pcap_max": 1_000_000,
        "trace": [],
        "log": [],
    }
    assert cfg["base_rtt_ps"] is None
    assert cfg["switch"] == {
        "buffer_bytes": 4 * 2**20,
        "dt_alpha": 0.125,
        "int_enabled": True,
        "int_bytes_mode": "tx",
        "ecn": {"kind": "none"},
    }
    assert cfg["host"]["payload_bytes"] == 1000 and cfg["host"]["rto_ps"] == 10**9


def test_omitted_size_is_a_long_flow(base):
    del base["flows"][0]["size"]
    assert all(f["size_bytes"] is None for f in scenario.from_dict(base).to_engine_config()["flows"])


def test_unknown_algorithm_names_field_and_allowed(base):
    base["cc"]["algorithm"] = "cubic9000"
    e = err(base)
    assert e.field == "cc.algorithm"
    assert "cubic9000" in str(e) and "powertcp" in str(e) and "allowed" in str(e)


@pytest.mark.parametrize("rate", ["0Gbps", "-5Gbps", 0, -1])
def test_zero_or_negative_rate(base, rate):
    base["topology"]["host_rate"] = rate
    e = err(base)
    assert e.field == "topology.host_rate"


def test_zero_buffer(base):
    base["switch"] = {"buffer": "0B"}
    e = err(base)
    assert e.field == "switch.buffer" and "in (0 B, 1024 TiB]" in e.message


def test_unknown_topology_kind_lists_allowed(base):
    base["topology"]["kind"] = "ring"
    e = err(base)
    assert (
        str(e)
        == "topology.kind: unknown value 'ring'; allowed: star, dumbbell, fattree, custom, rdcn, two-path"
    )


def test_unknown_key(base):
    base["topology"]["hostz"] = 3
    e = err(base)
    assert (
        str(e)
        == "topology.hostz: unknown key (did you mean 'hosts'?); allowed: kind, hosts, host_rate, host_delay"
    )


@pytest.mark.parametrize(
    "path,value,field",
    [
        (("flows", 0, "sizee"), 1, "flows[0].sizee"),
        (("bogus",), 1, "bogus"),
        (("metrics", "intervall"), "1us", "metrics.intervall"),
    ],
)
def test_unknown_keys_everywhere(base, path, value, field):
    d = base
    for p in path[:-1]:
        d = d[p]
    d[path[-1]] = value
    e = err(base)
    assert e.field == field and "unknown key" in e.message


@pytest.mark.parametrize(
    "mutate,field",
    [
        (lambda d: d["flows"][0].update(src=[1, 9]), "flows[0].src[1]"),
        (lambda d: d["flows"][0].update(dst=1, src=1), "flows[0].dst"),
        (lambda d: d["flows"][0].update(size="0B"), "flows[0].size"),
        (lambda d: d.update(duration="0s"), "duration"),
        (lambda d: d.pop("duration"), "duration"),
        (lambda d: d.update(base_rtt="fast"), "base_rtt"),
        (lambda d: d.update(seed=-1), "seed"),
        (lambda d: d.update(switch={"dt_alpha": 0}), "switch.dt_alpha"),
        (lambda d: d.update(switch={"int_bytes": "both"}), "switch.int_bytes"),
        (
            lambda d: d.update(switch={"ecn": {"kind": "red", "kmin": "100KB", "kmax": "50KB", "pmax": 0.2}}),
            "switch.ecn.kmax",
        ),
        (lambda d: d.update(switch={"ecn": {"kind": "wred"}}), "switch.ecn.kind"),
        (lambda d: d["metrics"].update(ports=["sw0->h9"]), "metrics.ports[0]"),
        (lambda d: d["metrics"].update(ports=["sw0-h1"]), "metrics.ports[0]"),
        (lambda d: d["cc"].update(gamma="0.9"), "cc.gamma"),
        (lambda d: d.update(workload={"kind": "alltoall"}), "workload.kind"),
        (lambda d: d.pop("flows"), "flows"),
        (lambda d: d["topology"].update(hosts=0), "topology.hosts"),
        (lambda d: d["topology"].update(host_delay="1 parsec"), "topology.host_delay"),
        (lambda d: d.update(experiment={"analysis": "incast", "t0": "1us"}), "experiment.bottleneck"),
        (
            lambda d: d.update(experiment={"analysis": "incast", "t0": "1us", "bottleneck": "sw0->h1"}),
            "experiment.bottleneck",
        ),
        (
            lambda d: (
                d["metrics"].update(interval="0s"),
                d.update(experiment={"analysis": "incast", "t0": "1us", "bottleneck": "sw0->h0"}),
            ),
            "metrics.interval",
        ),
        (
            lambda d: d.update(experiment={"variants": [{"name": "A", "cc": {"algorithm": "nope"}}]}),
            "experiment.variants[0].cc.algorithm",
        ),
        (
            lambda d: d.update(
                experiment={
                    "variants": [
                        {"name": "A b", "cc": {"algorithm": "hpcc"}},
                        {"name": "a-B", "cc": {"algorithm": "hpcc"}},
                    ]
                }
            ),
            "experiment.variants[1].name",
        ),
    ],
)
def test_errors_name_the_field(base, mutate, field):
    mutate(base)
    assert err(base).field == field


def test_fattree_cores_must_divide(base):
    base["topology"] = {
        "kind": "fattree",
        "pods": 2,
        "tors_per_pod": 1,
        "aggs_per_pod": 2,
        "cores": 3,
        "servers_per_tor": 4,
        "host_rate": "25Gbps",
        "host_delay": "1us",
        "tor_agg_rate": "100Gbps",
        "tor_agg_delay": "1us",
        "agg_core_rate": "100Gbps",
        "agg_core_delay": "5us",
    }
    base["metrics"]["ports"] = ["tor0->h1"]
    assert err(base).field == "topology.cores"


def test_invalid_toml_is_a_scenario_error():
    with pytest.raises(ScenarioError) as e:
        scenario.loads("name = ")
    assert e.value.field == "scenario"


def test_missing_file_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError) as e:
        scenario.load(tmp_path / "none.toml")
    assert e.value.field == "scenario"


@pytest.mark.parametrize("name", experiments.list_experiments())
def test_show_round_trip(name):
    scn = experiments.get(name)
    text = scenario.dump_toml(scn)
    again = scenario.loads(text)
    assert again == scn
    assert again.to_engine_config() == scn.to_engine_config()
    assert scenario.dump_toml(again) == text


def test_round_trip_of_every_optional_section(base):
    base.update(
        base_rtt="29us",
        description="d",
        switch={
            "buffer": "2MB",
            "dt_alpha": 0.5,
            "int": False,
            "int_bytes": "rx",
            "ecn": {"kind": "red", "kmin": "100KB", "kmax": "400KB", "pmax": 0.2},
        },
        host={"payload": "4096B", "rto": "2ms"},
        workload={"kind": "permutation", "start": "5us", "size": "1MB"},
        experiment={
            "title": "x",
            "analysis": "incast",
            "t0": "100us",
            "bottleneck": "sw0->h0",
            "variants": [{"name": "θ-PowerTCP", "cc": {"algorithm": "theta-powertcp", "beta_bytes": 2}}],
        },
    )
    base["flows"].append({"src": 3, "dst": 2, "cc": {"algorithm": "timely", "beta": 0.8}})
    base["topology"] = {
        "kind": "custom",
        "hosts": 4,
        "switches": 1,
        "links": [{"a": f"h{i}", "b": "s0", "rate": "10Gbps", "delay": "1us"} for i in range(4)],
    }
    base["metrics"]["ports"] = ["s0->h0"]
    base["experiment"]["bottleneck"] = "s0->h0"
    scn = scenario.from_dict(base)
    assert scenario.loads(scenario.dump_toml(scn)) == scn
    cfg = scn.to_engine_config("theta-powertcp")
    assert cfg["cc"] == {"algorithm": "theta-powertcp", "params": {"beta_bytes": 2}}
    assert cfg["flows"][2]["cc"] == {"algorithm": "timely", "params": {"beta": 0.8}}
    assert cfg["switch"]["ecn"] == {
        "kind": "red",
        "kmin_bytes": 100_000,
        "kmax_bytes": 400_000,
        "pmax": 0.2,
        "steps": 0,
    }
    assert cfg["topology"]["links"][0] == {"a": "h0", "b": "s0", "rate_bps": 10**10, "delay_ps": 10**6}
    assert cfg["base_rtt_ps"] == 29 * 10**6
    assert len(cfg["flows"]) == 3 + 4 and cfg["flows"][3]["size_bytes"] == 10**6


def test_variants():
    scn = experiments.get("powertcp-incast")
    assert [(v.name, v.slug, v.cc.algorithm) for v in scn.variants()] == [
        ("PowerTCP", "powertcp", "powertcp"),
        ("PowerTCP (tcp-advanced)", "powertcp-tcp-advanced", "powertcp"),
        ("θ-PowerTCP", "theta-powertcp", "theta-powertcp"),
        ("θ-PowerTCP (τ = max RTT)", "theta-powertcp-tau-max-rtt", "theta-powertcp"),
        ("θ-PowerTCP (artifact)", "theta-powertcp-artifact", "theta-powertcp"),
        ("θ-PowerTCP (artifact, min-rtt)", "theta-powertcp-artifact-min-rtt", "theta-powertcp"),
        ("HPCC", "hpcc", "hpcc"),
        ("TIMELY", "timely", "timely"),
        ("Homa", "homa", "homa"),
    ]
    assert scn.to_engine_config("HPCC")["cc"]["algorithm"] == "hpcc"
    assert scn.to_engine_config("PowerTCP (tcp-advanced)")["cc"]["params"] == {"law": "tcp-advanced"}
    with pytest.raises(ScenarioError) as e:
        scn.variant("swift")
    assert e.value.field == "variant" and "PowerTCP" in e.value.message


def test_variant_inherits_cc_params_only_for_the_same_algorithm(base):
    base["experiment"] = {
        "variants": [
            {"name": "P", "cc": {"algorithm": "powertcp", "beta_bytes": 3}},
            {"name": "H", "cc": {"algorithm": "hpcc"}},
        ]
    }
    scn = scenario.from_dict(base)
    assert scn.to_engine_config("P")["cc"] == {
        "algorithm": "powertcp",
        "params": {"gamma": 0.9, "beta_bytes": 3},
    }
    assert scn.to_engine_config("H")["cc"] == {"algorithm": "hpcc", "params": {}}
    assert scenario.loads(scenario.dump_toml(scn)) == scn


def test_scenario_without_experiment_is_one_variant_named_after_algorithm(base):
    scn = scenario.from_dict(base)
    assert [v.name for v in scn.variants()] == ["powertcp"]


def test_powertcp_incast_matches_the_paper_setup():
    cfg = experiments.get("powertcp-incast").to_engine_config("PowerTCP")
    t = cfg["topology"]
    assert (t["pods"], t["tors_per_pod"], t["aggs_per_pod"], t["cores"], t["servers_per_tor"]) == (
        4,
        2,
        2,
        4,
        32,
    )
    assert (t["host_rate_bps"], t["tor_agg_rate_bps"], t["agg_core_rate_bps"]) == (25e9, 100e9, 100e9)
    assert (t["host_delay_ps"], t["tor_agg_delay_ps"], t["agg_core_delay_ps"]) == (10**6, 10**6, 5 * 10**6)
    # 4 MiB as the artifact; alpha = 1 because we model lossy egress admission (see the TOML)
    assert cfg["switch"]["buffer_bytes"] == 4 * 2**20 and cfg["switch"]["dt_alpha"] == 1.0
    assert cfg["switch"]["ecn"] == {"kind": "none"} and cfg["switch"]["int_enabled"]
    flows = [(f["src"], f["dst"], f["start_ps"], f["size_bytes"]) for f in cfg["flows"]]
    # the authors' flow-burstExp.txt: 0->16 first, 1..10->16 at t0
    assert flows == [(0, 16, 0, None)] + [(s, 16, 5 * 10**8, None) for s in range(1, 11)]
    assert cfg["duration_ps"] == 3 * 10**9
    assert cfg["metrics"] == {
        "interval_ps": 10**6,
        "ports": ["tor0->h16"],
        "flows": True,
        "start_ps": 0,
        "pcap": [],
        "pcap_max": 1_000_000,
        "trace": [],
        "log": [],
    }


def test_algorithm_names_come_from_the_engine():
    # one list: the engine's registry (crates/engine/src/cc/mod.rs); the front keeps no copy
    from dccsim import _engine

    assert scenario.known_algorithms() == list(_engine.algorithms())


def test_brownfield_int_switches_reach_the_engine_and_round_trip(base):
    base["switch"] = {"int_switches": ["sw0"]}
    scn = scenario.from_dict(base)
    assert scn.to_engine_config()["switch"]["int_switches"] == ["sw0"]
    from dccsim.scenario import dump_toml
    import tomllib

    assert tomllib.loads(dump_toml(scn))["switch"]["int_switches"] == ["sw0"]
    base["switch"] = {"int_switches": "sw0"}
    e = err(base)
    assert e.field == "switch.int_switches"


def test_utf8_bom_is_accepted_and_non_utf8_is_one_error(tmp_path):
    text = (Path(__file__).parent / "data" / "incast-small.toml").read_text()
    f = tmp_path / "bom.toml"
    f.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert scenario.load(f) == scenario.loads(text, default_name="bom")
    f.write_bytes(b'name = "\xff"\n' + text.encode())
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.load(f)
    assert e.value.field == "scenario" and "not UTF-8" in e.value.message


def test_loads_raises_only_scenario_error_for_nan_inf_and_huge_numbers(base):
    for key, value in (("duration", float("nan")), ("duration", float("inf")), ("seed", 2**70)):
        d = dict(base, **{key: value})
        with pytest.raises(scenario.ScenarioError) as e:
            scenario.from_dict(d)
        assert e.value.field == key


def test_int_based_algorithms_need_int(base):
    """PowerTCP, HPCC and Poseidon read INT: with switch.int = false the scenario is refused,
    naming the field and which controller needs it; delay-only controllers run without INT."""
    base["switch"] = {"int": False}
    for alg in ("powertcp", "hpcc", "poseidon"):
        base["cc"] = {"algorithm": alg}
        with pytest.raises(ScenarioError) as e:
            scenario.from_dict(base)
        assert e.value.field == "switch.int"
        assert f"cc = {alg} reads INT" in e.value.message
    base["cc"] = {"algorithm": "theta-powertcp"}
    scenario.from_dict(base)
    base["flows"][0]["cc"] = {"algorithm": "hpcc"}
    with pytest.raises(ScenarioError) as e:
        scenario.from_dict(base)
    assert "flows[0].cc = hpcc" in e.value.message
    base["flows"][0].pop("cc")
    base["experiment"] = {
        "variants": [
            {"name": "S", "cc": {"algorithm": "swift"}},
            {"name": "P", "cc": {"algorithm": "poseidon"}},
        ]
    }
    with pytest.raises(ScenarioError) as e:
        scenario.from_dict(base)
    assert "experiment.variants[1].cc = poseidon" in e.value.message
