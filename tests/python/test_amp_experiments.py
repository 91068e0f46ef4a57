"""The AMP experiments (docs/experiments.md "AMP"): catalog round trip, and scaled-down real runs
whose statistics must show each paper mechanism (bounds are the analysis's own)."""

from __future__ import annotations

import re

import pytest

from dccsim.experiments import get, list_experiments, text
from dccsim.scenario import dump_toml, loads
from cli_helpers import run_catalog_edited

AMP = (
    "amp-incast",
    "amp-min-window",
    "amp-fairness",
    "amp-shifting",
    "amp-ssr-threshold",
    "amp-jobs",
    "amp-short-flows",
    "amp-datamining",
    "amp-datamining-paper-rate",
)


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


def test_fairness_runs_the_mix_of_fig10b():
    # AMP Fig. 10 caption: "(b) intensive syndrome: 4 DCTCP flows and 4 multipath flows"
    s = get("amp-fairness")
    for v in s.variants():
        flows = s.to_engine_config(v)["flows"]
        dctcp = [f for f in flows if (f.get("cc") or {}).get("algorithm") == "dctcp"]
        multipath = [f for f in flows if f.get("subflows", 1) == 4]
        assert (len(dctcp), len(multipath), len(flows)) == (4, 4, 8), v.name
        assert all("subflows" not in f for f in dctcp)


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


_run = run_catalog_edited


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
    # Fig. 13(c): every layer of the fat-tree is sampled (metrics.ports = ["*"])
    u = m["utilization_pct_by_layer"]
    assert set(u) == {"edge", "aggregation", "core"}
    assert all(0 < x <= 100 for x in u.values())


def _jobs_until(t: str, stop_ms: int) -> str:
    """amp-jobs with jobs measured in [5 ms, stop_ms), run 4 ms past it."""
    return t.replace('duration = "150ms"', f'duration = "{stop_ms + 4}ms"').replace(
        'stop = "140ms"', f'stop = "{stop_ms}ms"'
    )


def test_closed_loop_jobs_chain_requests_responses_and_jobs():
    s = get("amp-jobs")
    fl = s.flow_list(None)
    src = list(fl.source)
    first = src.index("jobs")
    assert first == 128 and all(x == "flows" for x in src[:128])
    flows = s.to_engine_config(s.variants()[0])["flows"]
    # the background: closed-loop Pareto(1.5, mean 192 MB) sources to random destinations
    assert all(
        f["closed_loop"] == {"shape": 1.5, "mean_bytes": 192_000_000, "destination": "random"}
        for f in flows[:128]
    )
    jobs = {}
    for i in range(first, len(fl)):
        jobs.setdefault(int(fl.request[i]), []).append(i)
    for jid, ids in jobs.items():
        reqs, resps = ids[:10], ids[10:]
        assert len(resps) == 10
        client = int(fl.src[reqs[0]])
        servers = [int(fl.dst[r]) for r in reqs]
        assert len(set(servers)) == 10 and client not in servers
        assert all(int(fl.size[r]) == 2000 for r in reqs) and all(int(fl.size[r]) == 64000 for r in resps)
        # each response answers its request, to the client, after it
        for q, r in zip(reqs, resps):
            assert (int(fl.src[r]), int(fl.dst[r])) == (int(fl.dst[q]), client)
            assert flows[r]["after"] == [q]
        # closed loop: the slot's next job's requests wait for every response of this one
        nxt = jobs.get(jid + 1)
        if nxt is not None and all(flows[q].get("after") for q in nxt[:10]):
            assert all(flows[q]["after"] == resps for q in nxt[:10])
    # the memory estimate counts exactly the flows the generator makes (closed and open loop)
    from dccsim.workloads.generate import expected_count

    assert expected_count(s) == len(fl) - first
    o = loads(text("amp-jobs").replace('loop = "closed"', 'loop = "open"\ninterval = "2ms"'))
    assert expected_count(o) == len(o.flow_list(None)) - first


def test_open_loop_jobs_and_multipath_by_size():
    t = text("amp-jobs").replace('loop = "closed"', 'loop = "open"\ninterval = "2ms"')
    s = loads(t)
    fl = s.flow_list(None)
    starts = sorted({int(x) for x, src in zip(fl.start, fl.source) if src == "jobs"})
    assert starts[:3] == [5_000_000_000, 7_000_000_000, 9_000_000_000]
    flows = s.to_engine_config(s.variants()[0])["flows"]
    assert not any(f.get("after") and fl.size[i] == 2000 for i, f in enumerate(flows))  # requests: no gate
    dm = get("amp-datamining")
    cfg = dm.to_engine_config("AMP")["flows"]
    big = [f for f in cfg if f["size_bytes"] >= 100_000]
    small = [f for f in cfg if f["size_bytes"] < 100_000]
    assert big and small
    assert all(f.get("subflows") == 4 and f["cc"] is None for f in big)
    assert all("subflows" not in f and f["cc"]["algorithm"] == "dctcp" for f in small)
    assert all("subflows" not in f for f in dm.to_engine_config("DCTCP")["flows"])


def test_arrival_rate_gives_the_papers_780us_per_host():
    from dccsim.errors import ScenarioError

    s = get("amp-datamining-paper-rate")
    n = len(s.flow_list(None))
    # 128 hosts × 1282/s × 35 ms = 5743 expected (Poisson, sd 76): ±400 is > 5 sd
    assert abs(n - 5743) < 400, n
    t = text("amp-datamining-paper-rate").replace(
        "arrival_rate = 1282.0", "arrival_rate = 1282.0\nload = 0.5"
    )
    with pytest.raises(ScenarioError) as e:
        loads(t)
    assert e.value.field == "workload.arrival_rate"


@pytest.mark.parametrize(
    "edit, field",
    [
        (
            ("dst = 32, subflows = 4, closed_loop", "dst = 32, subflows = 4, after = [5], closed_loop"),
            "flows[1].after[0]",
        ),
        (
            ("dst = 32, subflows = 4, closed_loop", 'dst = 32, subflows = 4, size = "1MB", closed_loop'),
            "flows[1].size",
        ),
        (
            (
                '1.5, mean = "192MB", destination = "random" } },\n  { src = 2',
                '1.0, mean = "192MB", destination = "random" } },\n  { src = 2',
            ),
            "flows[1].closed_loop.shape",
        ),
        (
            ('destination = "random" } },\n  { src = 2', 'destination = "far" } },\n  { src = 2'),
            "flows[1].closed_loop.destination",
        ),
        (('loop = "closed"', 'loop = "open"'), "workload.interval"),
        (('loop = "closed"', 'loop = "sometimes"'), "workload.loop"),
        (("fan_in = 10", "fan_in = 0"), "workload.fan_in"),
    ],
)
def test_bad_jobs_and_closed_loop_keys_name_their_field(edit, field):
    from dccsim.errors import ScenarioError

    t = text("amp-jobs")
    assert edit[0] in t
    with pytest.raises(ScenarioError) as e:
        loads(t.replace(edit[0], edit[1], 1))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(field + ":"), msg


@pytest.mark.engine
def test_jobs_are_grouped_and_timed(tmp_path):
    s, scn = _run("amp-jobs", tmp_path, lambda t: _jobs_until(t, 8), variants=["AMP 4 subflows"])
    m = s["runs"]["amp-4-subflows"]["metrics"]
    # 8 closed-loop slots from 5 ms: jobs take ≥ 0.51 ms (640 KB into one 10 Gbps host link), so
    # at most 8 × ⌈3 / 0.51⌉ = 48 start in [5, 8) ms; at least one per slot
    assert 8 <= m["jobs"] <= 48
    assert m["unfinished_jobs"] == 0
    assert 0.51e-3 <= m["jct_p50_s"] <= m["jct_p90_s"]
    # 12 ms is below the 51.2 ms a 64 MB flow needs at 10 Gbps: no background flow restarts yet
    assert m["background_flows"] == 128 and m["background_restarts"] == 0


@pytest.mark.engine
def test_datamining_short_flows_are_measured(tmp_path):
    s, _ = _run(
        "amp-datamining",
        tmp_path,
        lambda t: t.replace('duration = "315ms"', 'duration = "20ms"').replace(
            'stop = "305ms"', 'stop = "15ms"'
        ),
        variants=["AMP"],
    )
    m = s["runs"]["amp"]["metrics"]
    # 128 hosts × 124 flows/s × 10 ms ≈ 159 arrivals, 87.4 % of them < 100 KB: ≈ 139 (Poisson sd 12)
    assert 90 < m["short_flows"] < 190 and m["unfinished"] == 0
    assert m["long_flows"] > 0
    # a < 100 KB flow alone takes at most ≈ 0.1 ms at 10 Gbps plus the RTT; p99 well below 10 ms
    assert 0 < m["fct_p50_s"] <= m["fct_p90_s"] <= m["fct_p99_s"] < 0.01
    assert sum(m["short_flows_halves"]) == m["short_flows"]


def test_after_names_every_flow_of_a_listed_source_list():
    t = """name = "x"
seed = 1
duration = "1ms"
flows = [
  { src = [1, 2], dst = 0, size = "10KB" },
  { src = 3, dst = 0, size = "1KB", after = [0] },
  { src = 0, dst = 3, closed_loop = { shape = 1.5, mean = "1MB", destination = "same", max = "4MB" } },
]
[topology]
kind = "star"
hosts = 4
host_rate = "10Gbps"
host_delay = "1us"
[cc]
algorithm = "dctcp"
"""
    s = loads(t)
    flows = s.to_engine_config(None)["flows"]
    assert flows[2]["after"] == [0, 1]  # flows[0] became engine flows 0 and 1
    assert flows[3]["closed_loop"] == {
        "shape": 1.5,
        "mean_bytes": 1_000_000,
        "destination": "same",
        "max_bytes": 4_000_000,
    }
    assert loads(dump_toml(s)) == s
