"""`dccsim run EXPERIMENT --add-variant NAME=ALGORITHM`: a new controller beside the paper's
variants, in the table and the figure, and outside the paper's claims."""

import json

import pytest

from dccsim.errors import ScenarioError
from dccsim.experiments import resolve

from cli_helpers import dccsim

pytestmark = pytest.mark.engine


N = len(resolve("powertcp-incast").variants())  # the added variant's index: after the paper's


def test_an_added_variant_runs_beside_the_papers_and_leaves_their_claims_unchanged(tmp_path):
    plain = dccsim("run", "powertcp-incast", "--out", tmp_path / "plain", "--no-figures", "--json")
    added = dccsim(
        "run",
        "powertcp-incast",
        "--add-variant",
        "Mine=dctcp",
        "--set",
        f"experiment.variants[{N}].cc.g=0.5",
        "--out",
        tmp_path / "added",
        "--no-figures",
        "--json",
    )
    assert plain.returncode == 0 and added.returncode == 0, added.stderr
    a, p = json.loads(added.stdout), json.loads(plain.stdout)
    assert a["order"] == p["order"] + ["mine"]
    assert a["runs"]["mine"]["metrics"]["peak_queue_bytes"] > 0  # it ran and was analysed
    assert a["claims"] == p["claims"]  # the paper's claims, over the paper's variants only
    toml = (tmp_path / "added" / "scenario.toml").read_text()
    assert "added = true" in toml and "g = 0.5" in toml


def test_a_plain_scenario_gets_its_own_controller_as_the_first_variant():
    scn = resolve("testbed-shared-4", (), ("Reno=reno",))
    assert [(v.name, v.cc.algorithm, v.added) for v in scn.variants()][-1] == ("Reno", "reno", True)
    assert any(not v.added for v in scn.variants())


@pytest.mark.parametrize("bad", ["noequals", "=reno", "Name="])
def test_a_malformed_add_variant_is_one_line(bad):
    with pytest.raises(ScenarioError) as e:
        resolve("powertcp-incast", (), (bad,))
    assert e.value.field == "--add-variant" and "NAME=ALGORITHM" in e.value.message


def test_an_unknown_algorithm_names_the_variants_field():
    with pytest.raises(ScenarioError) as e:
        resolve("powertcp-incast", (), ("X=powertcpp",))
    assert e.value.field == f"experiment.variants[{N}].cc.algorithm"
