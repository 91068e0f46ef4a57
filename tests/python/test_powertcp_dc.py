"""PowerTCP's datacenter experiments (issue 9): `run --jobs`, variants that override [workload],
and each experiment's pipeline end to end at a scaled-down size (a 48-host FatTree, a few ms of
arrivals: seconds of engine time). At that size no 99.9th percentile rests on 10 flows above it,
so every claim must say "not meaningful" — the flag is part of what is tested."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dccsim import cli, experiments, runner
from dccsim.analysis import fct, powertcp_dc
from dccsim.errors import ScenarioError
from dccsim.scenario import dump_toml, from_dict, loads, schema, to_dict

pytestmark = pytest.mark.engine

PAPER_SCALE = (
    "powertcp-websearch",
    "powertcp-websearch-artifact-pattern",
    "powertcp-load",
    "powertcp-load-artifact-pattern",
    "powertcp-burst-rate",
    "powertcp-burst-size",
    "powertcp-buffer",
    "powertcp-homa-websearch",
)


def small(name: str, stop: str = "4ms", variants=None) -> object:
    """The experiment on 2 pods × 2 ToRs × 12 servers (fan-in 10 fits a rack) with arrivals in [0, stop), 1 ms warm-up."""
    d = to_dict(experiments.get(name))
    d["topology"].update(pods=2, servers_per_tor=12)
    d["workload"].update(stop=stop, warmup="1ms")
    d["duration"] = "300ms"
    for w in [d["workload"]] + [v["workload"] for v in d["experiment"]["variants"] if "workload" in v]:
        if "stop" in w:
            w["stop"] = stop
        if "incast" in w:  # written out resolved, with the paper-scale window
            w["incast"]["stop"] = stop
    if variants is not None:
        d["experiment"]["variants"] = [v for v in d["experiment"]["variants"] if v["name"] in variants]
    if d["metrics"].get("ports"):  # every ToR port of the small FatTree
        d["metrics"]["ports"] = [f"tor{t}->h{h}" for t in range(4) for h in range(12 * t, 12 * t + 12)] + [
            f"tor{t}->agg{2 * (t // 2) + k}" for t in range(4) for k in range(2)
        ]
        d["metrics"]["interval"] = "20us"
        d["metrics"]["start"] = "1ms"
    return from_dict(d, default_name=name)


def test_every_experiment_is_listed_and_needs_10_flows_above_its_short_tail():
    """At paper scale, each workload point's arrival window holds enough short flows for the
    99.9th percentile to rest on ≥ 10 flows above it (expected count, not a run)."""
    listed = {e["name"] for e in __import__("dccsim.listing", fromlist=["x"]).experiments_table()}
    for name in PAPER_SCALE:
        assert name in listed
        scn = experiments.get(name)
        for v in scn.variants():
            fl = scn.flow_list(v)
            w = scn.variant_workload(v)
            src = np.asarray(fl.source)
            sel = (fl.start >= w.measured_from_ps) & (src == "poisson") & (fl.size < powertcp_dc.SHORT_PAPER)
            n = int(sel.sum())
            above = n - 1 - int(0.999 * n)
            if name == "powertcp-buffer":
                continue  # a buffer CDF: its percentiles are over samples, not flows
            assert above >= fct.MIN_ABOVE, (name, v.name, n)


def test_variant_workload_override_round_trips_and_bad_values_name_the_field():
    scn = experiments.get("powertcp-burst-rate")
    v = scn.variant("PowerTCP 16/s")
    assert v.workload.incast.rate == 16 and v.workload.incast.size_bytes == 2_000_000  # merged
    assert scn.variant("PowerTCP 4/s").workload is None
    assert loads(dump_toml(scn)) == scn
    d = to_dict(experiments.get("powertcp-websearch"))
    d["experiment"]["variants"][6]["workload"]["load"] = 1.5
    with pytest.raises(ScenarioError) as e:
        from_dict(d)
    assert e.value.field == "experiment.variants[6].workload.load"
    d["experiment"]["variants"][6]["workload"] = {"load": 0.2, "stop": "9s"}
    with pytest.raises(ScenarioError) as e:
        from_dict(d)
    assert e.value.field == "experiment.variants[6].workload.stop"
    d["experiment"]["variants"][6]["workload"] = {"lod": 0.2}
    with pytest.raises(ScenarioError) as e:
        from_dict(d)
    assert e.value.field == "experiment.variants[6].workload.lod"


def _files(root: Path) -> dict:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "meta.json"
    }


def test_jobs_n_is_byte_identical_to_jobs_1(tmp_path):
    scn = small("powertcp-websearch", variants=["PowerTCP 60%", "HPCC 60%", "PowerTCP 20%"])
    a = runner.run(scn, tmp_path / "one", progress=False, argv=["x"], jobs=1)
    b = runner.run(scn, tmp_path / "three", progress=False, argv=["x"], jobs=3)
    assert a == b
    fa, fb = _files(tmp_path / "one"), _files(tmp_path / "three")
    assert fa.keys() == fb.keys() and "powertcp-20/flows_input.parquet" in fa
    assert [k for k in fa if fa[k] != fb[k]] == []
    meta = json.loads((tmp_path / "three" / "meta.json").read_text())
    assert meta["jobs"] == 3 and set(meta["variant_wall_time_s"]) == {"powertcp-60", "hpcc-60", "powertcp-20"}


def test_automatic_jobs_use_workers_only_after_a_long_first_variant(tmp_path, monkeypatch):
    """jobs=None (the CLI default): short variants stay in one process; once the first variant
    took at least PARALLEL_AFTER_S the rest run in workers, with the same files."""
    scn = small("powertcp-websearch", variants=["PowerTCP 60%", "HPCC 60%", "PowerTCP 20%"])
    monkeypatch.setattr(runner, "default_jobs", lambda: 2)
    monkeypatch.setattr(runner, "PARALLEL_AFTER_S", 1e9)  # no variant is that long: one process
    runner.run(scn, tmp_path / "short", progress=False, argv=["x"], jobs=None)
    assert json.loads((tmp_path / "short" / "meta.json").read_text())["jobs"] == 1
    monkeypatch.setattr(runner, "PARALLEL_AFTER_S", 0.0)  # every variant is long enough
    runner.run(scn, tmp_path / "long", progress=False, argv=["x"], jobs=None)
    assert json.loads((tmp_path / "long" / "meta.json").read_text())["jobs"] == 2
    fa, fb = _files(tmp_path / "short"), _files(tmp_path / "long")
    assert fa.keys() == fb.keys() and [k for k in fa if fa[k] != fb[k]] == []


def test_a_failing_variant_is_reported_with_its_name(tmp_path, monkeypatch):
    scn = small("powertcp-websearch", variants=["PowerTCP 60%", "HPCC 60%"])
    real = runner.engine.run

    def fail_hpcc(cfg, progress=None):
        if cfg["cc"]["algorithm"] == "hpcc":
            raise ScenarioError("cc.eta", "must lie in (0, 1]")
        return real(cfg, progress)

    monkeypatch.setattr(runner.engine, "run", fail_hpcc)
    with pytest.raises(ScenarioError) as e:
        runner.run(scn, tmp_path / "o", progress=False, argv=["x"], jobs=1)
    assert e.value.field == "cc.eta" and "'HPCC 60%'" in e.value.message
    assert not (tmp_path / "o").exists()
    # in a worker process: the error comes back as data and is raised with the name
    out = runner.variant_job(dump_toml(scn), "no-such-variant", str(tmp_path), False)
    assert out["error"]["field"] == "variant"
    v = scn.variant("HPCC 60%")
    err = runner._failed(v, out["error"]["field"], out["error"]["message"])
    assert isinstance(err, ScenarioError) and "'HPCC 60%'" in str(err)


def test_cli_jobs_must_be_positive(capsys, tmp_path):
    rc = cli.main(["run", "powertcp-websearch", "--jobs", "0", "--out", str(tmp_path / "o")])
    assert rc == 2 and "--jobs: must be at least 1" in capsys.readouterr().err


def _check_pipeline(scn, summary, out: Path, paper: str):
    assert summary["complete"] and summary["analysis"] == "powertcp_dc"
    assert (out / powertcp_dc.ANALYSIS.FIGURE).stat().st_size > 0
    tail = 0.999
    for slug, r in summary["runs"].items():
        m = r["metrics"]
        for g in powertcp_dc.GROUPS:
            t = m["groups"][g]["tail"]
            if t["n"]:
                assert t["above"] == t["n"] - 1 - int(tail * t["n"])
                assert t["meaningful"] is (t["above"] >= 10)
                assert len(m["groups"][g]["boot"]) == powertcp_dc.BOOT
    assert summary["claims"], "no claim evaluated"
    verdicts = ("holds", "same direction, smaller effect", "same direction, larger effect", "opposite")
    verdicts += ("no difference resolved",)
    for c in summary["claims"]:
        if c["claim"].startswith("ToR buffer"):  # percentiles over ≥ 1000 samples: may be meaningful
            assert c["verdict"].split(": ")[-1] in verdicts, c
        else:
            assert c["verdict"].startswith("not meaningful"), c  # too few flows at this size
    text = runner.report(scn, summary)
    assert "paper claim | ours | verdict" in text


@pytest.mark.parametrize(
    "name, variants, points",
    [
        (
            "powertcp-websearch",
            ["PowerTCP 60%", "HPCC 60%", "PowerTCP 20%", "HPCC 20%", "PowerTCP 60% lossy", "HPCC 60% lossy"],
            {0.2, 0.6},
        ),
        (
            "powertcp-websearch-artifact-pattern",
            ["PowerTCP 60%", "HPCC 60%", "PowerTCP 20%", "HPCC 20%"],
            {0.2, 0.6},
        ),
        ("powertcp-load", ["PowerTCP 20%", "HPCC 20%", "PowerTCP 90%", "HPCC 90%"], {0.2, 0.9}),
        (
            "powertcp-load-artifact-pattern",
            ["PowerTCP 20%", "HPCC 20%", "θ-PowerTCP 20% (artifact law)", "PowerTCP 90%", "HPCC 90%"],
            {0.2, 0.9},
        ),
        ("powertcp-burst-rate", ["PowerTCP 1/s", "HPCC 1/s", "PowerTCP 16/s", "HPCC 16/s"], {1.0, 16.0}),
        ("powertcp-burst-size", ["PowerTCP 1MB", "HPCC 1MB", "PowerTCP 8MB", "HPCC 8MB"], {1e6, 8e6}),
        ("powertcp-buffer", ["PowerTCP", "HPCC", "PowerTCP 2MB 16/s", "HPCC 2MB 16/s"], {0.0, 16.0}),
        ("powertcp-homa-websearch", ["Homa o1", "Homa o2"], {1.0, 2.0}),
    ],
)
def test_scaled_down_pipeline(tmp_path, name, variants, points):
    scn = small(name, variants=variants)
    out = tmp_path / name
    summary = runner.run(scn, out, progress=False, argv=["test"], jobs=2)
    assert {r["metrics"]["point"] for r in summary["runs"].values()} == points
    _check_pipeline(scn, summary, out, scn.experiment.params["paper"])
    if name == "powertcp-websearch":  # the lossy variants: no PFC, and claims of their own
        lossless = {slug: r["metrics"]["lossless"] for slug, r in summary["runs"].items()}
        assert lossless == {v.slug: not v.name.endswith("lossy") for v in scn.variants()}
        for v in scn.variants():
            assert ("pfc" in scn.to_engine_config(v)["switch"]) is lossless[v.slug]
        lossy_rows = [c for c in summary["claims"] if c["variant"].endswith(", lossy fabric")]
        assert [c["variant"] for c in lossy_rows] == ["powertcp vs hpcc, lossy fabric"]
        assert "at 60% load" in lossy_rows[0]["claim"]
    if name.endswith("-artifact-pattern"):  # only racks 0 and 1 send, never to a lower rack
        rack = 12  # servers per ToR of small()
        for v in scn.variants():
            fl = scn.flow_list(v)
            src, dst = np.asarray(fl.src), np.asarray(fl.dst)
            assert len(src) and src.max() < 2 * rack and (dst // rack >= src // rack).all()
            assert (dst // rack == 0).any() and (dst // rack == 1).any() and (dst < 2 * rack).all()
    if name == "powertcp-buffer":
        for r in summary["runs"].values():
            b = r["metrics"]["buffer"]
            assert b["samples"] > 0 and b["tors"] == 4 and len(b["boot_p99"]) == powertcp_dc.BOOT


def test_claim_arithmetic_and_verdicts():
    """r = a/b − 1 with the bootstrap interval; the four verdicts."""

    def m(alg, pt, val, boot, above=20):
        t = {"value": val, "n": 20_000, "above": above, "meaningful": above >= 10}
        g = {"tail": t, "boot": boot}
        return {
            "algorithm": alg,
            "point": pt,
            "lossless": True,
            "groups": {"short": g, "medium": g, "long": g},
            "buffer": {},
        }

    metrics = {
        "p": m("powertcp", 0.6, 6.7, [6.5, 6.7, 6.9] * 10),
        "h": m("hpcc", 0.6, 10.0, [9.8, 10.0, 10.2] * 10),
    }
    c = powertcp_dc._claim(metrics, "fig6", "short", "powertcp", "hpcc", 0.6, -0.33, "p99.9")
    assert c["ours_pct"] == pytest.approx(-33.0) and c["verdict"] == "holds"
    c = powertcp_dc._claim(metrics, "fig6", "short", "powertcp", "hpcc", 0.6, -0.80, "p99.9")
    assert c["verdict"] == "same direction, smaller effect"
    c = powertcp_dc._claim(metrics, "fig6", "short", "powertcp", "hpcc", 0.6, +0.30, "p99.9")
    assert c["verdict"] == "opposite"
    metrics["p"] = m("powertcp", 0.6, 10.0, [9.0, 10.0, 11.0] * 10, above=3)
    c = powertcp_dc._claim(metrics, "fig6", "short", "powertcp", "hpcc", 0.6, -0.33, "p99.9")
    assert (
        c["verdict"] == "not meaningful (fewer than 10 samples above the percentile): no difference resolved"
    )


def test_lossy_variants_are_compared_only_with_lossy_variants():
    """A claim pairs variants of one fabric: a lossy PowerTCP is not compared with a lossless HPCC."""
    g = {"tail": {"value": 5.0, "n": 20_000, "above": 20, "meaningful": True}, "boot": [5.0] * 30}
    groups = {"short": g, "medium": g, "long": g}

    def m(alg, lossless, scale=1.0):
        gg = {"tail": {**g["tail"], "value": 5.0 * scale}, "boot": [5.0 * scale] * 30}
        return {
            "algorithm": alg,
            "point": 0.6,
            "lossless": lossless,
            "groups": {**groups, "short": gg},
            "buffer": {},
        }

    metrics = {"p": m("powertcp", False, 0.5), "h": m("hpcc", True)}
    assert powertcp_dc._claim(metrics, "fig6", "short", "powertcp", "hpcc", 0.6, -0.33, "p99.9") is None
    assert (
        powertcp_dc._claim(metrics, "fig6", "short", "powertcp", "hpcc", 0.6, -0.33, "p99.9", False) is None
    )
    metrics["hl"] = m("hpcc", False)
    c = powertcp_dc._claim(metrics, "fig6", "short", "powertcp", "hpcc", 0.6, -0.33, "p99.9", False)
    assert c["variant"] == "powertcp vs hpcc, lossy fabric" and c["ours_pct"] == pytest.approx(-50.0)


def test_a_second_law_of_one_algorithm_gets_claims_of_its_own():
    """θ-PowerTCP with the artifact's law beside the printed one: each is compared with the
    reference at its default law, the second labelled with its parameters; the default-law
    claims are those without it."""
    scn = experiments.get("powertcp-websearch-artifact-pattern")
    v = {x.name: x for x in scn.variants()}
    assert powertcp_dc.law(scn, v["θ-PowerTCP 60%"]) == ""
    assert powertcp_dc.law(scn, v["θ-PowerTCP 60% (artifact law)"]) == "law=rdma-hw, tau=min-rtt"
    homa = experiments.get("powertcp-homa-websearch")  # the point (overcommitment) is not a law
    assert {powertcp_dc.law(homa, x) for x in homa.variants()} == {""}

    def m(alg, value, law=""):
        g = {"tail": {"value": value, "n": 20_000, "above": 20, "meaningful": True}, "boot": [value] * 30}
        return {
            "algorithm": alg,
            "point": 0.6,
            "lossless": True,
            "law": law,
            "groups": {"short": g},
            "buffer": {},
        }

    printed = {"t": m("theta-powertcp", 8.0), "h": m("hpcc", 4.0)}
    both = {**printed, "ta": m("theta-powertcp", 2.0, "law=rdma-hw, tau=min-rtt")}
    rows = [
        c for c in powertcp_dc.ANALYSIS.claims(scn, both) if c["claim"].startswith("short p99.9 -36% at 60%")
    ]
    assert [(c["variant"], round(c["ours_pct"])) for c in rows] == [
        ("theta-powertcp vs hpcc", 100),
        ("theta-powertcp [law=rdma-hw, tau=min-rtt] vs hpcc", -50),
    ]
    assert [
        c for c in powertcp_dc.ANALYSIS.claims(scn, both) if "[" not in c["variant"]
    ] == powertcp_dc.ANALYSIS.claims(scn, printed)


def test_variant_pfc_switches_the_fabric_and_bad_values_name_the_field():
    base = to_dict(experiments.get("powertcp-websearch"))
    scn = from_dict(base)
    lossy = scn.variant("PowerTCP 60% lossy")
    assert lossy.pfc is False and "pfc" not in scn.to_engine_config(lossy)["switch"]
    assert scn.to_engine_config("PowerTCP 60%")["switch"]["pfc"] == schema.to_engine(scn.switch.pfc)
    again = loads(dump_toml(scn))  # round trip through `dccsim show`
    assert again.variant("PowerTCP 60% lossy").pfc is False and again.variant("PowerTCP 60%").pfc is None
    # a lossy scenario, one lossless variant with its own values
    d = {k: v for k, v in base.items() if k != "fabric"}
    d["switch"] = {}
    d["experiment"]["variants"] = [{"name": "on", "cc": {"algorithm": "hpcc"}, "pfc": {"alpha": 0.25}}]
    on = from_dict(d).variant("on")
    assert on.pfc.alpha == 0.25 and from_dict(d).to_engine_config(on)["switch"]["pfc"]["alpha"] == 0.25
    d["experiment"]["variants"][0]["pfc"] = "yes"
    with pytest.raises(ScenarioError) as e:
        from_dict(d)
    assert e.value.field == "experiment.variants[0].pfc" and "true, false or a table" in e.value.message
    d["experiment"]["variants"][0]["pfc"] = {"alpha": -1}
    with pytest.raises(ScenarioError) as e:
        from_dict(d)
    assert e.value.field == "experiment.variants[0].pfc.alpha"
