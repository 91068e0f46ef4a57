"""Controller parameters: the front reads them from the engine's declaration
(`describe_algorithms()`, crates/engine/src/cc/<name>.rs) and has the engine check them, so a bad
value is refused at load time with the dotted field and the allowed range or rule."""

import re
from pathlib import Path

import pytest

from dccsim import _engine, experiments, scenario
from dccsim.scenario import cc_params

pytestmark = pytest.mark.engine

FRONT = Path(cc_params.__file__).resolve().parent


def test_the_front_names_no_algorithm():
    """Adding an algorithm touches no Python file: cc_params.py and parse.py's INT check name none."""
    parse = (FRONT / "parse.py").read_text()
    check_int = parse[parse.index("def _check_int") : parse.index("def _check_consistency")]
    for text in ((FRONT / "cc_params.py").read_text(), check_int):
        quoted = set(re.findall(r"[\"']([a-z-]+)[\"']", text))
        assert not quoted & set(_engine.algorithms())


@pytest.mark.parametrize("algorithm", _engine.algorithms())
def test_declared_defaults_load_and_unknown_keys_list_the_declared_names(base, algorithm):
    described = cc_params.algorithms()[algorithm]
    names = [k["key"] for k in described["keys"]]
    assert sorted(names) == sorted(described["params"])
    base["switch"] = {"int": True}
    base["cc"] = {"algorithm": algorithm, **{k: v for k, v in described["params"].items() if v is not None}}
    scenario.from_dict(base)
    base["cc"] = {"algorithm": algorithm, "no_such_parameter": 1}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert e.value.field == "cc.no_such_parameter"
    assert e.value.message == f"unknown parameter of {algorithm}; allowed: {', '.join(names)}"


def test_every_catalog_experiment_passes_the_checks():
    for name in experiments.list_experiments():
        experiments.get(name)  # raises ScenarioError if a shipped value were out of range


@pytest.mark.parametrize(
    "key,value,message",
    [
        ("gamma", -5, "must be a number in (0, 1], got -5"),
        ("gamma", 0, "must be a number in (0, 1], got 0"),
        ("gamma", 1.5, "must be a number in (0, 1], got 1.5"),
        ("gamma", float("nan"), "must be finite, got nan"),
        ("gamma", float("inf"), "must be finite, got inf"),
        ("gamma", "0.9", "expected a number in (0, 1], got str '0.9'"),
        ("law", "Paper", "unknown value 'Paper'; allowed: paper, tcp-advanced, rdma-hw, linux"),
        ("additive_increase_bps", -1, "must be a number in (0, 1e+13], got -1"),
        ("per_rtt", 1, "expected true or false, got 1"),
    ],
)
def test_out_of_range_value_names_field_and_range(base, key, value, message):
    base["cc"] = {"algorithm": "powertcp", key: value}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert (e.value.field, e.value.message) == (f"cc.{key}", message)


@pytest.mark.parametrize(
    "algorithm,params,field",
    [
        ("timely", {"t_low_us": 600.0}, "cc.t_low_us"),
        ("swift", {"fs_min_cwnd": 100.0, "fs_max_cwnd": 10.0}, "cc.fs_min_cwnd"),
        ("poseidon", {"min_rate_bps": 2e9, "max_rate_bps": 1e9}, "cc.min_rate_bps"),
        ("reno", {"init_cwnd_mss": 20.0, "max_cwnd_mss": 10.0}, "cc.init_cwnd_mss"),
        ("cubic", {"init_cwnd_mss": 20.0, "max_cwnd_mss": 10.0}, "cc.init_cwnd_mss"),
        ("dcqcn", {"cnp_interval_us": 50.0}, "cc.cnp_interval_us"),
    ],
)
def test_contradicting_parameters_are_refused_by_the_rule_naming_the_first(base, algorithm, params, field):
    base["switch"] = {"int": True}
    base["cc"] = {"algorithm": algorithm, **params}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert e.value.field == field
    rules = {r["key"]: r["message"] for r in cc_params.algorithms()[algorithm]["rules"]}
    assert e.value.message == rules[field.removeprefix("cc.")]


def test_variant_typo_is_reported_at_the_variants_path(base):
    base["experiment"] = {"variants": [{"name": "a", "cc": {"algorithm": "powertcp", "gama": 0.5}}]}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert e.value.field == "experiment.variants[0].cc.gama"
    assert "allowed: gamma," in e.value.message


def test_the_old_key_variant_is_read_as_law_with_one_warning(base, capsys):
    base["experiment"] = {"variants": [{"name": "a", "cc": {"algorithm": "dctcp", "variant": "linux"}}]}
    scn = scenario.from_dict(base)
    assert scn.experiment.variants[0].cc.params == {"law": "linux"}
    err = capsys.readouterr().err
    assert (
        err == "dccsim: warning: experiment.variants[0].cc.variant is renamed experiment.variants[0].cc.law\n"
    )
    base["cc"] = {"algorithm": "dctcp", "variant": "linux", "law": "rfc"}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert e.value.field == "cc.variant"


def test_rai_alpha_absurd_value_refused(base):
    base["cc"] = {"algorithm": "tbtcp", "rai_alpha": 1e9}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert e.value.field == "cc.rai_alpha" and "(0, 100]" in e.value.message


def test_docs_tables_are_the_engines(tmp_path):
    """docs/scenario.md's parameter tables are what `python -m dccsim.scenario.docs` writes;
    the check fails on a changed table."""
    from dccsim.scenario import docs

    assert docs.main(["--check"]) == 0, "run python -m dccsim.scenario.docs"
    text = docs.DOC.read_text(encoding="utf-8")
    stale = text.replace("| `gamma` | γ |", "| `gamma` | g |", 1)
    assert stale != text and docs.render(stale) == text


def _engine_description():
    from dccsim import engine

    return engine.describe_algorithms()
