"""The AMP experiments (docs/experiments.md "AMP"): catalog round trip, and scaled-down real runs
whose statistics must show each paper mechanism (bounds are the analysis's own)."""

from __future__ import annotations

import re

import pytest

from dccsim.experiments import get, list_experiments, text
from dccsim.scenario import dump_toml, loads

AMP = ("amp-incast", "amp-min-window", "amp-fairness", "amp-shifting", "amp-ssr-threshold")


def test_amp_experiments_listed_and_round_trip():
    for name in AMP:
        assert name in list_experiments()
        s = get(name)
        assert loads(dump_toml(s)) == s, name


def test_variant_subflows_replace_the_multipath_flows_only():
    s = get("amp-min-window")
    for v in s.variants():
        flows = s.to_engine_config(v)["flows"]
        assert all("subflows" not in f for f in flows[:8]), v.name  # the DCTCP flows stay single-path
        assert flows[8]["subflows"] == v.subflows
    dctcp = get("amp-incast").to_engine_config("DCTCP")["flows"]
    assert all("subflows" not in f for f in dctcp)  # subflows = 1: single-path


def test_incast_episodes_follow_the_papers_pattern():
    s = get("amp-incast")
    flows = s.flows
    period = s.experiment.params["period"]
    by_episode = {}
    for f in flows:
        by_episode.setdefault(f.start_ps // period, []).append(f)
    for ep, fs in by_episode.items():
        k = len(fs)
        assert k in (10, 20, 30, 40)
        # h0..h<k-1> start 50 µs apart from the episode's second, 4 subflows, one size
        assert [f.src for f in fs] == list(range(k))
        assert [f.start_ps - ep * period for f in fs] == [i * 50_000_000 for i in range(k)]
        assert {f.subflows for f in fs} == {4} and len({f.size_bytes for f in fs}) == 1


def _run(name, tmp_path, edit=lambda s: s, variants=None):
    from dccsim import runner

    scn = loads(edit(text(name)), default_name=name)
    return runner.run(scn, tmp_path / name, variants=variants, progress=False, argv=["test"]), scn


def _first_episodes(t: str, n: int) -> str:
    """amp-incast cut to its first n episodes (n seconds)."""
    keep = [
        ln
        for ln in t.splitlines()
        if not ln.startswith("  { src")
        or int(re.search(r'start = "([0-9]+)us"', ln).group(1)) < n * 1_000_000
    ]
    return "\n".join(keep).replace('duration = "20s"', f'duration = "{n}s"')


@pytest.mark.engine
def test_incast_amp_avoids_the_timeouts_of_xmp_at_k40(tmp_path):
    # episodes 0..3: k = 10, 20, 30, 40 at 128 KB once each
    s, _ = _run("amp-incast", tmp_path, lambda t: _first_episodes(t, 4), variants=["DCTCP", "XMP", "AMP"])
    g = {slug: {x["k"]: x for x in r["metrics"]["groups"]} for slug, r in s["runs"].items()}
    assert g["amp"][40]["timeouts_max"] == 0 and g["dctcp"][40]["timeouts_max"] == 0
    assert g["xmp"][40]["timeouts_max"] > 0  # 160 subflows at ≥ 1 packet overflow 100 packets
    assert g["xmp"][40]["fct_mean_s"] >= 10 * g["dctcp"][40]["fct_mean_s"]
    assert g["amp"][40]["fct_mean_s"] <= 2 * g["dctcp"][40]["fct_mean_s"]
    assert g["amp"][40]["suppressions"] > 0


@pytest.mark.engine
def test_min_window_syndrome_and_amp_fairness(tmp_path):
    s, _ = _run(
        "amp-min-window",
        tmp_path,
        lambda t: t.replace('duration = "200ms"', 'duration = "40ms"'),
        variants=["XMP 2 subflows", "XMP 8 subflows", "AMP 8 subflows"],
    )
    m = {slug: r["metrics"] for slug, r in s["runs"].items()}
    # at the floor every subflow gets a DCTCP flow's share: the ratio grows with the subflows
    assert 1.25 < m["xmp-2-subflows"]["ratio"] < m["xmp-8-subflows"]["ratio"]
    assert abs(m["amp-8-subflows"]["ratio"] - 1) <= 0.25
    assert m["amp-8-subflows"]["suppressions"] >= 1
    assert m["amp-8-subflows"]["jain_index"] > m["xmp-8-subflows"]["jain_index"]


@pytest.mark.engine
def test_ssr_threshold_one_episode_from_tau_6(tmp_path):
    s, _ = _run(
        "amp-ssr-threshold",
        tmp_path,
        lambda t: t.replace('duration = "200ms"', 'duration = "50ms"'),
        variants=["AMP tau 1", "AMP tau 8"],
    )
    e = {slug: r["metrics"]["episodes_per_connection"] for slug, r in s["runs"].items()}
    assert e["amp-tau-1"] > 1 and e["amp-tau-8"] == 1


@pytest.mark.engine
def test_shifting_moves_traffic_off_the_joined_path(tmp_path):
    s, _ = _run("amp-shifting", tmp_path, variants=["XMP", "AMP"])
    for slug, r in s["runs"].items():
        m = r["metrics"]
        # before the join the NIC's 10 Gbps split over two paths: 5 Gbps on path 0; afterwards the
        # DCTCP flow takes most of path 0
        assert 4.5e9 < m["rate_before_bps"] < 5.5e9, slug
        assert m["rate_after_bps"] < 0.6 * m["rate_before_bps"], slug
        assert m["shift_s"] is not None and m["shift_s"] < 0.02, slug


@pytest.mark.engine
def test_short_flows_beside_multipath_long_flows_finish_and_are_measured(tmp_path):
    s, scn = _run(
        "amp-short-flows",
        tmp_path,
        lambda t: (
            t.replace('duration = "45ms"', 'duration = "16ms"')
            .replace('stop = "35ms"', 'stop = "6ms"')
            .replace('warmup = "5ms"', 'warmup = "1ms"')
        ),
        variants=["AMP"],
    )
    cfg = scn.to_engine_config("AMP")
    assert all(f["subflows"] == 4 for f in cfg["flows"][:64])
    assert all(f["cc"]["algorithm"] == "dctcp" and "subflows" not in f for f in cfg["flows"][64:])
    m = s["runs"]["amp"]["metrics"]
    # 64 senders × 256/s × 5 ms ≈ 82 expected (Poisson)
    assert m["short_flows"] > 40 and m["unfinished"] == 0
    # 1 MB alone takes 0.8 ms at 10 Gbps; beside the long flows the full run's p99 is 4.4 ms
    assert 0 < m["fct_p50_s"] <= m["fct_p90_s"] <= m["fct_p99_s"] < 0.01
    assert m["long_goodput_bps"] > 1e9


def _jobs_until(t: str, end_us: int) -> str:
    """amp-jobs with only the jobs starting before end_us, run 4 ms past it."""
    keep = [
        ln
        for ln in t.splitlines()
        if "size = " not in ln or int(re.search(r'start = "([0-9]+)us"', ln).group(1)) < end_us
    ]
    return "\n".join(keep).replace('duration = "30ms"', f'duration = "{end_us // 1000 + 4}ms"')


@pytest.mark.engine
def test_jobs_are_grouped_and_timed(tmp_path):
    s, scn = _run("amp-jobs", tmp_path, lambda t: _jobs_until(t, 8000), variants=["AMP 4 subflows"])
    m = s["runs"]["amp-4-subflows"]["metrics"]
    assert m["jobs"] == 16  # 8 clients × jobs at 5 and 7 ms
    assert m["unfinished_jobs"] == 0
    # a job moves 640 KB into one 10 Gbps host link: at least 0.51 ms
    assert 0.51e-3 <= m["jct_p50_s"] <= m["jct_p90_s"]
