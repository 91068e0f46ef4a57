"""The rdcn topology kind in scenario files: defaults (PowerTCP §5), engine form, round trip."""

from dccsim import scenario

RDCN = """
name = "r"
duration = "1ms"
[topology]
kind = "rdcn"
tors = 3
servers_per_tor = 2
matchings = [[1, 2, 0], [2, 0, 1]]
prebuffer = "600us"
prebuffer_voq = "300KB"
[cc]
algorithm = "hpcc"
[[flows]]
src = 0
dst = 2
[experiment]
[[experiment.variants]]
name = "small"
cc = { algorithm = "reno" }
topology = { prebuffer = "100us", prebuffer_voq = "100KB" }
"""


def test_defaults_are_the_papers_setup():
    text = 'name = "d"\nduration = "1ms"\n[topology]\nkind = "rdcn"\n[cc]\nalgorithm = "hpcc"\n'
    s = scenario.loads(text + "[[flows]]\nsrc = 0\ndst = 10\n")
    assert s.host_count == 250  # 25 ToRs × 10 servers
    c = s.to_engine_config()["topology"]["circuit"]
    assert (c["rate_bps"], c["day_ps"], c["night_ps"]) == (100_000_000_000, 225_000_000, 20_000_000)
    assert c["policy"] == "exclusive" and c["matchings"] == []  # [] = the engine's round robin


def test_circuit_fields_nest_in_the_engine_form_and_round_trip():
    s = scenario.loads(RDCN)
    t = s.to_engine_config()["topology"]
    assert t["tors"] == 3 and t["packet_rate_bps"] == 25_000_000_000
    assert t["circuit"]["matchings"] == [[1, 2, 0], [2, 0, 1]]
    assert (t["circuit"]["prebuffer_ps"], t["circuit"]["prebuffer_voq_bytes"]) == (600_000_000, 300_000)
    v = s.to_engine_config(s.experiment.variants[0])["topology"]["circuit"]
    assert (v["prebuffer_ps"], v["prebuffer_voq_bytes"]) == (100_000_000, 100_000)
    text = scenario.dump_toml(s)
    again = scenario.loads(text)
    assert again == s and scenario.dump_toml(again) == text
