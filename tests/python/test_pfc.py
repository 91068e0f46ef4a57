"""PFC from a scenario file: `[switch] pfc = true` or a [switch.pfc] table reaches the engine,
a PFC incast loses nothing and writes pfc.parquet, a deadlock is reported on stderr."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow.parquet as pq

import pytest

from dccsim.errors import ScenarioError
from dccsim.scenario import Pfc, dump_toml, loads

INCAST = """
name = "pfc-incast"
duration = "5ms"
[topology]
kind = "star"
hosts = 11
host_rate = "25Gbps"
host_delay = "1us"
[switch]
buffer = "200KB"
dt_alpha = 1.0
ecn = { kind = "none" }
PFC
[cc]
algorithm = "dcqcn"
[[flows]]
src = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
dst = 10
size = "300KB"
"""


def test_pfc_true_gives_the_artifact_values_and_a_table_overrides_them():
    scn = loads(INCAST.replace("PFC", "pfc = true"))
    assert scn.switch.pfc == Pfc()
    eng = scn.to_engine_config(None)["switch"]["pfc"]
    assert eng == {
        "model": "sonic",
        "alpha": 0.125,
        "xon_bytes": 1248,
        "xon_offset_bytes": 2496,
        "reserve_bytes": 4096,
        "resume_offset_bytes": 3072,
        "alpha_shift": 3,
        "headroom_artifact": False,
        "ingress_pool": "buffer",
        "frame_bytes": 64,
        "watchdog_ps": 1_000_000_000,
    }
    text = 'pfc = { model = "hpcc", alpha_shift = 1, headroom = "20KB", watchdog = "0s" }'
    p = loads(INCAST.replace("PFC", text)).switch.pfc
    assert (p.model, p.alpha_shift, p.headroom_bytes, p.watchdog_ps) == ("hpcc", 1, 20000, 0)
    assert "pfc" not in loads(INCAST.replace("PFC", "pfc = false")).to_engine_config(None)["switch"]


def test_headroom_artifact_is_the_artifacts_value_without_the_floor_and_round_trips():
    text = 'pfc = { headroom = "artifact" }'
    scn = loads(INCAST.replace("PFC", text))
    assert (scn.switch.pfc.headroom_bytes, scn.switch.pfc.headroom_artifact) == (None, True)
    eng = scn.to_engine_config(None)["switch"]["pfc"]
    assert (eng.get("headroom_bytes"), eng["headroom_artifact"]) == (None, True)
    assert 'headroom = "artifact"' in dump_toml(scn)
    assert loads(dump_toml(scn)).switch.pfc == scn.switch.pfc
    with pytest.raises(ScenarioError) as e:
        loads(INCAST.replace("PFC", 'pfc = { headroom = "floor" }'))
    assert str(e.value).startswith("switch.pfc.headroom:") and '"auto", "artifact" or a size' in str(e.value)


def test_ingress_pool_workload_reaches_the_engine_round_trips_and_is_checked():
    # the PowerTCP workload program's sonic pool (buffer − all headroom), a named option
    scn = loads(INCAST.replace("PFC", 'pfc = { ingress_pool = "buffer-minus-headroom" }'))
    assert scn.switch.pfc.ingress_pool == "buffer-minus-headroom"
    assert scn.to_engine_config(None)["switch"]["pfc"]["ingress_pool"] == "buffer-minus-headroom"
    assert 'ingress_pool = "buffer-minus-headroom"' in dump_toml(scn)
    assert loads(dump_toml(scn)).switch.pfc == scn.switch.pfc
    # the default stays out of the engine's JSON and the TOML (older configs unchanged)
    default = loads(INCAST.replace("PFC", "pfc = true"))
    assert default.to_engine_config(None)["switch"]["pfc"]["ingress_pool"] == "buffer"
    assert 'ingress_pool = "buffer"' in dump_toml(default)
    for text, msg in (
        ('pfc = { ingress_pool = "half" }', "allowed: buffer, buffer-minus-headroom"),
        (
            'pfc = { model = "hpcc", ingress_pool = "buffer-minus-headroom" }',
            'applies to model = "sonic" only',
        ),
    ):
        with pytest.raises(ScenarioError) as e:
            loads(INCAST.replace("PFC", text))
        assert str(e.value).startswith("switch.pfc.ingress_pool:") and msg in str(e.value)


def run(tmp_path, text):
    f = tmp_path / "s.toml"
    f.write_text(text)
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "dccsim", "run", str(f), "--out", str(out), "--no-figures", "--quiet"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    return p, out / "dcqcn"


def test_a_pfc_incast_is_lossless_and_records_its_pauses(tmp_path):
    _, d = run(tmp_path, INCAST.replace("PFC", "pfc = true"))
    eng = json.loads((d / "summary.json").read_text())["engine"]
    assert eng["packets_dropped"] == 0 and eng["flows_completed"] == 10
    assert eng["pfc_pause_frames"] > 0 and eng["pfc_pause_frames"] == eng["pfc_resume_frames"]
    t = pq.read_table(d / "pfc.parquet").to_pydict()
    assert sum(t["pauses_sent"]) == eng["pfc_pause_frames"]
    assert sum(t["paused_ps"]) == eng["pfc_paused_ps"]
    assert t["paused_ps"][t["name"].index("h0->sw0")] > 0


RING = """
name = "pfc-ring"
duration = "20ms"
[topology]
kind = "custom"
hosts = 5
switches = 5
links = [
  LINKS
]
[switch]
buffer = "200KB"
pfc = true
[cc]
algorithm = "dcqcn"
FLOWS
"""


def test_a_deadlock_is_reported_with_its_ports(tmp_path):
    links = [f'{{ a = "h{i}", b = "s{i}", rate = "25Gbps", delay = "1us" }}' for i in range(5)]
    links += [f'{{ a = "s{i}", b = "s{(i + 1) % 5}", rate = "25Gbps", delay = "1us" }}' for i in range(5)]
    flows = "\n".join(f"[[flows]]\nsrc = {i}\ndst = {(i + 2) % 5}" for i in range(5))
    p, d = run(tmp_path, RING.replace("LINKS", ",\n  ".join(links)).replace("FLOWS", flows))
    assert "PFC deadlock" in p.stderr and "s0->s1" in p.stderr, p.stderr
    eng = json.loads((d / "summary.json").read_text())["engine"]
    assert eng["pfc_deadlock_at_ps"] > 0
    assert sorted(eng["pfc_deadlock_ports"]) == ["s0->s1", "s1->s2", "s2->s3", "s3->s4", "s4->s0"]
