"""SACK-based loss recovery (`host.recovery = "sack"`, transport/sack.rs; issue 29) through the engine:
the key is declared once and refused in one line when wrong; on the lossy two-path MPTCP scenario (the
testbed's, where go-back-N kept both CUBIC subflows in one recovery episode for seconds) each subflow
repairs its own holes, the connection completes with every byte, and it retransmits about what was
dropped instead of whole windows; runs are deterministic; go-back-N stays the default."""

from __future__ import annotations

import copy

import pytest

from cli_helpers import assert_refused_in_one_line

from dccsim import engine, scenario

# testbed-mptcp-2path's topology with CUBIC: a 300 Mbps NIC over paths of 100 and 50 Mbps overflows
# both paths' buffers (the window outgrows the DT limit), so both subflows lose packets. HyStart is
# off: it ends slow start before the buffers overflow and the run loses nothing (docs/testbed.md,
# "HyStart in the simulator's CUBIC"), and the recovery under test needs losses.
TWO_PATH = {
    "name": "sack",
    "seed": 1,
    "duration": "4s",
    "topology": {
        "kind": "two-path",
        "host_rate": "300Mbps",
        "host_delay": "5us",
        "path0_rate": "100Mbps",
        "path0_delay": "5us",
        "path1_rate": "50Mbps",
        "path1_delay": "5us",
    },
    "switch": {"buffer": "4MiB", "dt_alpha": 0.125, "ecn": {"kind": "none"}},
    "host": {"rto": "200ms"},
    "cc": {"algorithm": "cubic", "hystart": False},
    "flows": [{"src": 0, "dst": 1, "start": "0s", "size": "6MB", "subflows": 2}],
}


def run(recovery: str | None, raw: dict = TWO_PATH):
    raw = copy.deepcopy(raw)
    if recovery is not None:
        raw["host"]["recovery"] = recovery
    return engine.run(scenario.from_dict(raw).to_engine_config())


def totals(r):
    f = r["flows"]
    return (
        sum(int(x) for x in f["retransmits"]),
        sum(int(x) for x in f["timeouts"]),
        int(r["summary"]["data_packets_dropped"]),
    )


def test_each_subflow_repairs_its_holes_and_the_connection_completes():
    sack, gbn = run("sack"), run("go-back-n")
    rtx, rto, drops = totals(sack)
    assert drops > 100  # the recovery under test happened (on both subflows, below)
    f = sack["flows"]
    assert all(int(e) > 0 for e in f["end_ps"]), "the connection did not complete"
    assert all(int(x) > 0 for x in f["retransmits"]), "a subflow without loss tests nothing"
    # SACK repairs each drop (of a first transmission or of a retransmission) with one
    # retransmission; beyond that only a timeout resends, at most the window it finds outstanding:
    # at most the path's pipe plus the port's DT limit, 0.125/1.125 of 4 MiB = 466 KB < 500 packets
    assert drops <= rtx <= drops + 500 * rto, (rtx, drops, rto)
    g_rtx, _, g_drops = totals(gbn)
    # go-back-N resends the window behind each loss, most of which had arrived
    assert g_rtx > g_drops, (g_rtx, g_drops)
    assert rtx < g_rtx / 4, (rtx, g_rtx)
    # the connection finishes sooner: it does not resend windows the receiver already had
    assert max(int(e) for e in f["end_ps"]) < max(int(e) for e in gbn["flows"]["end_ps"])


def test_same_scenario_and_seed_give_identical_results():
    a, b = run("sack"), run("sack")
    for k in ("retransmits", "timeouts", "end_ps", "bytes_acked"):
        if k in a["flows"]:
            assert list(a["flows"][k]) == list(b["flows"][k]), k
    assert a["summary"] == b["summary"]


def test_go_back_n_stays_the_default():
    assert totals(run(None)) == totals(run("go-back-n"))


@pytest.mark.parametrize(
    "key,bad", [("recovery", "selective"), ("recovery", "SACK"), ("recovery", 3), ("prr", "on"), ("prr", 2)]
)
def test_a_wrong_value_is_refused_in_one_line_naming_the_field(key, bad):
    raw = copy.deepcopy(TWO_PATH)
    raw["host"][key] = bad
    assert_refused_in_one_line(raw, f"host.{key}")


def test_prr_is_on_by_default_and_changes_only_the_fast_recoveries():
    # CUBIC is a law Linux reduces by PRR (host.prr, transport/prr.rs): the same losses are
    # repaired, with a different pace of sending in each fast recovery
    default, on, off = run("sack"), copy.deepcopy(TWO_PATH), copy.deepcopy(TWO_PATH)
    on["host"]["prr"], off["host"]["prr"] = True, False
    with_prr, without = run("sack", on), run("sack", off)
    assert default["summary"] == with_prr["summary"]
    assert list(default["flows"]["end_ps"]) == list(with_prr["flows"]["end_ps"])
    assert list(with_prr["flows"]["end_ps"]) != list(without["flows"]["end_ps"])
    # under go-back-N there is no fast recovery: the key changes nothing
    assert totals(run("go-back-n", on)) == totals(run("go-back-n", off))
