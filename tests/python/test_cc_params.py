"""scenario/cc_params.py: the front's table of controller parameters agrees with the engine, and
out-of-range values are refused at load time with the dotted field and the allowed range."""

import json
import re

import pytest

from dccsim import _engine, experiments, scenario
from dccsim.scenario import cc_params

pytestmark = pytest.mark.engine


def _engine_param_names(algorithm: str) -> list[str]:
    """The engine's own list: its error for an unknown field names every accepted one."""
    cfg = experiments.get("powertcp-incast").to_engine_config()
    cfg["cc"] = {"algorithm": algorithm, "params": {"no_such_parameter": 1}}
    with pytest.raises(ValueError) as e:
        _engine.run(json.dumps(cfg))
    return re.findall(r"`([a-z_]+)`", str(e.value).split("expected one of", 1)[1])


@pytest.mark.parametrize("algorithm", _engine.algorithms())
def test_table_lists_exactly_the_engines_parameters(algorithm):
    assert list(cc_params.PARAMS[algorithm]) == _engine_param_names(algorithm)


def test_every_catalog_experiment_passes_the_range_table():
    for name in experiments.list_experiments():
        experiments.get(name)  # raises ScenarioError if a shipped value were out of range


@pytest.mark.parametrize(
    "key,value,needle",
    [
        ("gamma", -5, "(0, 1]"),
        ("gamma", 0, "(0, 1]"),
        ("gamma", 1.5, "(0, 1]"),
        ("gamma", float("nan"), "finite"),
        ("gamma", float("inf"), "finite"),
        ("gamma", "0.9", "expected a number"),
        ("variant", "Paper", "allowed: paper, tcp-advanced, rdma-hw, linux"),
        ("additive_increase_bps", -1, "(0, 1e+13]"),
    ],
)
def test_out_of_range_value_names_field_and_range(base, key, value, needle):
    base["cc"] = {"algorithm": "powertcp", key: value}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert e.value.field == f"cc.{key}"
    assert needle in e.value.message


def test_variant_typo_is_reported_at_the_variants_path(base):
    base["experiment"] = {"variants": [{"name": "a", "cc": {"algorithm": "powertcp", "gama": 0.5}}]}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert e.value.field == "experiment.variants[0].cc.gama"
    assert "allowed: gamma," in e.value.message


def test_rai_alpha_absurd_value_refused(base):
    base["cc"] = {"algorithm": "tbtcp", "rai_alpha": 1e9}
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.from_dict(base)
    assert e.value.field == "cc.rai_alpha" and "(0, 100]" in e.value.message
