"""`dccsim claims`: an experiment's claims over variants run in pieces equal one run of them all,
and pieces that are not one experiment are refused with the field that differs."""

from __future__ import annotations

import json
import shutil

import pytest
from cli_helpers import assert_input_error, dccsim
from test_powertcp_dc import small

from dccsim import runner
from dccsim.scenario import dump_toml

pytestmark = pytest.mark.engine

VARIANTS = ["PowerTCP 20%", "HPCC 20%", "PowerTCP 90%", "HPCC 90%"]


@pytest.fixture(scope="module")
def pieces(tmp_path_factory):
    """One run of all four variants, and the same four run as two pieces."""
    root = tmp_path_factory.mktemp("claims")
    scn = small("powertcp-load", variants=VARIANTS)
    whole = runner.run(scn, root / "whole", progress=False, argv=["x"], jobs=1, figures=False)
    runner.run(scn, root / "low", variants=VARIANTS[:2], progress=False, argv=["x"], jobs=1, figures=False)
    runner.run(scn, root / "high", variants=VARIANTS[2:], progress=False, argv=["x"], jobs=1, figures=False)
    return root, whole


def test_pieces_give_the_claims_of_one_run(pieces):
    root, whole = pieces
    assert len(whole["claims"]) >= 2  # an average over both loads, and the 90% point
    p = dccsim("claims", root / "high", root / "low", "--json")
    assert p.returncode == 0, p.stderr
    merged = json.loads(p.stdout)
    assert merged["claims"] == whole["claims"]
    assert merged["order"] == whole["order"]  # the scenario's order, whatever the arguments' order
    assert merged["sources"]["hpcc-20"] == str(root / "low") and merged["warnings"] == []
    text = dccsim("claims", root / "low", root / "high")
    assert text.returncode == 0 and "paper claim | ours | verdict" in text.stdout
    # one piece alone has no average over load points: fewer claims, not a wrong one
    alone = json.loads(dccsim("claims", root / "low", "--json").stdout)
    assert len(alone["claims"]) < len(whole["claims"])


def test_a_variant_may_come_from_one_directory_only(pieces):
    root, whole = pieces
    both = dccsim("claims", root / "whole", root / "low")
    assert_input_error(both, "")
    assert "-20: is in both" in both.stderr and "pick one with DIR:" in both.stderr
    picked = dccsim("claims", f"{root / 'whole'}:powertcp-90,hpcc-90", root / "low", "--json")
    assert picked.returncode == 0, picked.stderr
    assert json.loads(picked.stdout)["claims"] == whole["claims"]
    assert_input_error(dccsim("claims", f"{root / 'whole'}:cubic-90"), f"{root / 'whole'}:cubic-90")


def test_pieces_of_different_experiments_are_refused(pieces, tmp_path):
    root, _ = pieces
    other = tmp_path / "other-seed"
    shutil.copytree(root / "high", other)
    s = json.loads((other / "summary.json").read_text())
    s["seed"] = 7
    (other / "summary.json").write_text(json.dumps(s))
    assert_input_error(dccsim("claims", root / "low", other), f"{other}: seed")
    # the same seed, but another scenario: refused, or merged with the difference printed
    changed = tmp_path / "changed"
    shutil.copytree(root / "high", changed)
    scn = small("powertcp-load", stop="5ms", variants=VARIANTS)
    (changed / "scenario.toml").write_text(dump_toml(scn))
    assert_input_error(dccsim("claims", root / "low", changed), f"{changed}/scenario.toml")
    lenient = dccsim("claims", root / "low", changed, "--allow-different-scenarios", "--json")
    assert lenient.returncode == 0, lenient.stderr
    assert [w.split(":")[0] for w in json.loads(lenient.stdout)["warnings"]] == [f"{changed}/scenario.toml"]
    # a variant only the second scenario has is merged too, after the first scenario's
    extra = small("powertcp-load", variants=VARIANTS + ["θ-PowerTCP 20%"])
    runner.run(
        extra, tmp_path / "theta", variants=["θ-PowerTCP 20%"], progress=False, argv=["x"], figures=False
    )
    both = dccsim("claims", root / "low", tmp_path / "theta", "--allow-different-scenarios", "--json")
    assert both.returncode == 0, both.stderr
    merged = json.loads(both.stdout)
    assert merged["order"] == ["powertcp-20", "hpcc-20", "theta-powertcp-20"]
    assert merged["sources"]["theta-powertcp-20"] == str(tmp_path / "theta")
    text = dccsim("claims", root / "low", tmp_path / "theta", "--allow-different-scenarios").stdout
    rows = [line.split("  ")[0] for line in text.splitlines() if "0.2 " in line]  # the table's rows
    assert rows == ["PowerTCP 20%", "HPCC 20%", "θ-PowerTCP 20%"]
    assert_input_error(dccsim("claims", tmp_path), f"{tmp_path}")
    broken = tmp_path / "broken"
    shutil.copytree(root / "low", broken)
    (broken / "summary.json").write_text("[1, 2]")
    assert_input_error(dccsim("claims", broken), f"{broken}/summary.json")
    (broken / "summary.json").write_text('{"runs": {"hpcc-20": {"name": "HPCC 20%"}}}')
    assert_input_error(dccsim("claims", broken), f"{broken}/summary.json: runs.hpcc-20")
    assert_input_error(dccsim("claims", root / "low", tmp_path / "missing"), f"{tmp_path / 'missing'}")


def test_a_scenario_difference_is_shown_as_a_short_window():
    from dccsim.claims_merge import _first_difference

    a = "name = 'x'\ndescription = '" + "w" * 500 + "A" + "w" * 500 + "'\n"
    b = a.replace("A", "B")
    d = _first_difference(a, b)
    assert d.startswith("line 2, column 516: ") and "A" in d and "B" in d and len(d) < 160
    assert _first_difference("a\n", "a\nb\n") == "one is longer"
