"""The analysis registry: every name is an object implementing the `Analysis` protocol, a family
of paper figures has one object per figure, and every catalog experiment's `paper` names one."""

from __future__ import annotations

from importlib import resources

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from dccsim.analysis import ANALYSES, NAMES
from dccsim.analysis.base import Analysis, ByPaper
from dccsim.errors import ScenarioError

METHODS = ("check", "variant_metrics", "claims", "report", "figure")


@pytest.mark.parametrize("name", NAMES)
def test_every_analysis_implements_the_protocol(name):
    a = ANALYSES[name]
    assert isinstance(a, Analysis), name
    assert set(a.REQUIRED) <= set(a.KEYS)
    assert all(t in ("time", "str", "number") for t in a.KEYS.values())
    assert a.FIGURE.endswith(".png")
    figures = a.figures.values() if isinstance(a, ByPaper) else [a]
    for f in figures:
        assert isinstance(f, Analysis), (name, f)
        for m in METHODS:  # defined by the figure's class, not only declared by the protocol
            assert any(m in vars(c) for c in type(f).__mro__ if c not in (Analysis, object)), (name, m)
    if isinstance(a, ByPaper):
        assert "paper" in a.KEYS
        assert len(a.figures) >= 2, f"{name}: a family of one figure needs no ByPaper"


def _catalog():
    for p in resources.files("dccsim.experiments").iterdir():
        if p.name.endswith(".toml"):
            exp = tomllib.loads(p.read_text(encoding="utf-8")).get("experiment", {})
            if "analysis" in exp:
                yield p.name[:-5], exp["analysis"], exp.get("paper")


@pytest.mark.parametrize("experiment,analysis,paper", list(_catalog()))
def test_every_catalog_paper_has_its_figure_object(experiment, analysis, paper):
    a = ANALYSES[analysis]
    if isinstance(a, ByPaper):
        assert (paper or a.default) in a.figures, experiment
    else:
        assert paper is None or "paper" in a.KEYS, experiment


def test_an_unknown_paper_is_one_error_naming_the_figures():
    from dccsim.experiments import get

    scn = get("amp-fairness")
    scn.experiment.params["paper"] = "amp-fig99"
    with pytest.raises(ScenarioError) as e:
        ANALYSES["amp"].check(scn)
    assert e.value.field == "experiment.paper"
    assert "'amp-fig99'" in str(e.value) and "amp-fig2, amp-fig4, amp-fig4b, amp-fig9" in str(e.value)
