"""What an analysis is: the `Analysis` protocol, the defaults of its optional parts (`Base`), and
`ByPaper`, the analysis of a family of paper figures (`[experiment] paper = "..."`) that hands
every call to the figure's own object.

An analysis reads an experiment's extra `[experiment]` keys, checks that the scenario can be
analysed, reduces each variant's tables to JSON-ready metrics, judges the paper's claims over
all variants, prints its table and draws its figure. The runner (dccsim.runner), `dccsim
figures` (redraw), `dccsim claims` (claims_merge), the figure worker and the testbed call
nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Optional, Protocol, runtime_checkable

from ..errors import ScenarioError

Tables = Mapping[str, Any]
"""{"flows", "port_series", "flow_series", "ports"} -> {column: numpy array} (or a DataFrame)."""


@runtime_checkable
class Analysis(Protocol):
    KEYS: ClassVar[Mapping[str, str]]
    """Its extra `[experiment]` keys -> "time" | "str" | "number" (scenario.parse reads them)."""
    REQUIRED: ClassVar[tuple[str, ...]]
    """The mandatory ones among KEYS."""
    FIGURE: ClassVar[str]
    """The figure's file name in the run directory."""
    NEEDS_SAMPLES: ClassVar[bool]
    """False when the flows table suffices (the runner then allows metrics.interval = 0)."""
    FIGURE_TABLES: ClassVar[Optional[tuple[str, ...]]]
    """The only tables figure() reads (the rest are not sent to the figure worker); None: all."""
    PARALLEL_FIGURE: ClassVar[bool]
    """The figure may be drawn half by each of two processes (figure_split.py)."""

    def check(self, scn) -> None:
        """Raise ScenarioError if the scenario cannot be analysed (called by scenario.load)."""

    def variant_metrics(
        self, scenario, variant, tables: Tables, engine_summary: Optional[dict] = None
    ) -> dict:
        """One variant's JSON-ready numbers."""

    def claims(self, scenario, metrics: dict) -> list[dict]:
        """{"variant", "claim", "measured", "verdict"} rows over {slug: metrics} of the variants
        that ran."""

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        """The table printed after a run."""

    def figure(self, scenario, series: dict, path) -> None:
        """Draw the figure to `path`; series = slug -> (variant, tables, metrics)."""


class Base:
    """The defaults of an analysis's optional attributes."""

    NEEDS_SAMPLES: ClassVar[bool] = True
    FIGURE_TABLES: ClassVar[Optional[tuple[str, ...]]] = None
    PARALLEL_FIGURE: ClassVar[bool] = False
    # drawn natively (chart.py), not with matplotlib: no figure process, no matplotlib import
    NATIVE_FIGURE: ClassVar[bool] = False


class ByPaper(Base):
    """A family of figure analyses selected by `[experiment] paper`: each figure is its own
    Analysis object (`PAPER` names it); the family's keys, figure name and flags are the
    figures' (which must agree). `default`: the figure when the key is absent (None: required).
    `before`: checks that come before the paper's (the family's own order of errors)."""

    def __init__(self, *figures: Analysis, default: Optional[str] = None, before=None):
        self.figures: dict[str, Analysis] = {f.PAPER: f for f in figures}  # type: ignore[attr-defined]
        self.default = default
        self.before = before
        first = figures[0]
        for attr in (
            "KEYS",
            "REQUIRED",
            "FIGURE",
            "NEEDS_SAMPLES",
            "FIGURE_TABLES",
            "PARALLEL_FIGURE",
            "NATIVE_FIGURE",
        ):
            value = getattr(first, attr)
            if any(getattr(f, attr) != value for f in figures):
                raise TypeError(f"the figures of one family disagree on {attr}")
            setattr(self, attr, value)

    def paper(self, scenario) -> Optional[str]:
        return scenario.experiment.params.get("paper", self.default)

    def of(self, scenario) -> Analysis:
        """The figure object of the scenario's `paper`."""
        return self.figures[self.paper(scenario)]

    def check(self, scn) -> None:
        if self.before is not None:
            self.before(scn, self.figures)
        paper = self.paper(scn)
        if paper not in self.figures:
            raise ScenarioError(
                "experiment.paper", f"unknown value {paper!r}; allowed: {', '.join(self.figures)}"
            )
        self.figures[paper].check(scn)

    def variant_metrics(
        self, scenario, variant, tables: Tables, engine_summary: Optional[dict] = None
    ) -> dict:
        return self.of(scenario).variant_metrics(scenario, variant, tables, engine_summary)

    def claims(self, scenario, metrics: dict) -> list[dict]:
        return self.of(scenario).claims(scenario, metrics)

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        return self.of(scenario).report(scenario, metrics, claim_rows)

    def figure(self, scenario, series: dict, path) -> None:
        self.of(scenario).figure(scenario, series, path)
