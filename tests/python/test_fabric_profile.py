"""`[fabric] profile = "artifact"`, `host.nic` and RED by port rate from scenario files."""

from __future__ import annotations

import pytest

from dccsim import engine, experiments
from dccsim.errors import ScenarioError
from dccsim.scenario import dump_toml, loads

# the 10:1 incast without its own int_bytes and ecn, so the profile's values show
BASE = (
    experiments.text("powertcp-incast")
    .replace('int_bytes = "tx"\n', "")
    .replace('ecn = { kind = "none" }\n', "")
)


def with_fabric(extra: str, text: str = BASE) -> str:
    return text.replace("[topology]", f"{extra}\n\n[topology]", 1)


def test_the_artifact_profile_sets_pfc_the_rdma_nic_and_red_by_rate():
    scn = loads(with_fabric('[fabric]\nprofile = "artifact"'))
    cfg = scn.to_engine_config(scn.variants()[0])
    # the study's NIC: the maxBdp window except for DCQCN and TIMELY (script-workload.sh windowCheck=0)
    assert cfg["host"]["nic"] == "rdma-study"
    # TIMELY's packets carry the simulator's 8-byte TS header (int-header.cc, IntHeader::TS)
    assert cfg["host"]["ts_header_bytes"] == 8
    assert cfg["switch"]["pfc"]["alpha_shift"] == 3
    assert cfg["switch"]["int_bytes_mode"] == "rx"
    rules = {
        r["rate_bps"]: (r["kmin_bytes"], r["kmax_bytes"], r["pmax"]) for r in cfg["switch"]["ecn"]["rules"]
    }
    # the artifact's KMIN_MAP / KMAX_MAP / PMAX_MAP (KB = 1000 B)
    assert rules[25_000_000_000] == (100_000, 400_000, 0.2)
    assert rules[100_000_000_000] == (400_000, 1_600_000, 0.2)
    # the written scenario is the expanded one and loads to the same engine config
    again = loads(dump_toml(scn))
    assert again.to_engine_config(again.variants()[0]) == cfg


def test_ts_header_is_read_written_and_reaches_the_engine():
    text = BASE.replace("[cc]", '[host]\nts_header = "12B"\n\n[cc]', 1)
    scn = loads(text)
    assert scn.host.ts_header_bytes == 12
    assert loads(dump_toml(scn)).host.ts_header_bytes == 12
    assert scn.to_engine_config(None)["host"]["ts_header_bytes"] == 12
    # the default: the NIC timestamps in hardware
    assert loads(BASE).to_engine_config(None)["host"]["ts_header_bytes"] == 0


def test_keys_in_the_file_override_the_profile():
    text = with_fabric('[fabric]\nprofile = "artifact"').replace("[switch]", "[switch]\npfc = false", 1)
    cfg = loads(text).to_engine_config(None)
    assert "pfc" not in cfg["switch"]
    assert cfg["host"]["nic"] == "rdma-study"


def test_an_artifact_profile_incast_runs_lossless():
    scn = loads(with_fabric('[fabric]\nprofile = "artifact"'))
    hpcc = next(v for v in scn.variants() if v.cc.algorithm == "hpcc")
    res = engine.run(scn.to_engine_config(hpcc))
    assert res["summary"]["packets_dropped"] == 0
    assert res["summary"]["flows_completed"] >= 0


@pytest.mark.parametrize(
    "extra, field",
    [
        ('[fabric]\nprofile = "ns3"', "fabric.profile"),
        ('[fabric]\nprofil = "artifact"', "fabric.profil"),
    ],
)
def test_bad_profiles_name_the_field(extra, field):
    with pytest.raises(ScenarioError) as e:
        loads(with_fabric(extra))
    assert e.value.field == field


def test_red_by_rate_rules_are_checked():
    bad = BASE.replace(
        "[switch]\n",
        '[switch]\necn = { kind = "red_by_rate", rules = [ { rate = "25Gbps", kmin = "400KB", kmax = "100KB", pmax = 0.2 } ] }\n',
    )
    assert bad != BASE
    with pytest.raises(ScenarioError) as e:
        loads(bad)
    assert e.value.field == "switch.ecn.rules[0].kmax"
