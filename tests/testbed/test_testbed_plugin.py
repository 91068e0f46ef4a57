"""A simulator plugin (docs/plugins.md) run unchanged in the kernel as struct_ops
(`dccsim testbed run --plugin`): its source is included by bpf/plugin_kernel.bpf.c, the verifier
accepts it, data moves and the law reacts. Same scenario and reaction criterion as
test_testbed_flows.py (flow 0's median window after two flows join is at most 80% of its solo
median; the fair share is a third)."""

import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from tb_helpers import ROOT, needs_testbed
from test_testbed_flows import JOIN_PS, SCENARIO, SETTLE_PS, _median

EXAMPLE = ROOT / "examples" / "delay_aimd.bpf.c"
DCTCP = ROOT / "bpf" / "laws" / "dctcp.bpf.c"
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "dccsim.testbed", *map(str, args)], capture_output=True, text=True, env=ENV
    )


@pytest.mark.parametrize("extra", [[], ["--cc", "dctcp"]])
def test_exactly_one_of_cc_and_plugin(extra):
    args = ["run", "testbed-shared-4", *extra] + (["--plugin", EXAMPLE] if extra else [])
    p = _cli(*args)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("dccsim: error: --cc: give one algorithm with --cc, or a plugin with --plugin")


def test_plugin_parameters_are_checked_before_running(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text(SCENARIO.replace("[[flows]]", f'[cc]\nplugin = "{EXAMPLE}"\nmd = 3\n[[flows]]', 1))
    p = _cli("run", sc, "--plugin", EXAMPLE, "--out", tmp_path / "o")
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("dccsim: error: cc.md: must be a number in [0, 1], got 3"), p.stderr


@needs_testbed
def test_dctcp_plugin_runs_in_the_kernel_and_reacts(tmp_path, clean_testbed):
    """bpf/laws/dctcp.bpf.c (the law of the testbed's `--cc dctcp`, default RFC 8257 reading) with
    step marking at 20 packets."""
    from dccsim.testbed.cli import main

    sc = tmp_path / "s.toml"
    sc.write_text(SCENARIO.replace('ecn = { kind = "none" }', 'ecn = { kind = "step", k = "28960B" }'))
    out = tmp_path / "out"
    assert main(["run", str(sc), "--plugin", str(DCTCP), "--out", str(out), "--json"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["runs"]) == ["dctcp"]
    run = summary["runs"]["dctcp"]["engine"]
    assert run["bytes_delivered"] * 8 / (run["sim_time_ps"] / 1e12) > 0.18e9
    assert run["ecn_marked"] > 0
    params = json.loads((out / "meta.json").read_text())["testbed"]["runs"]["dctcp"]["testbed_params"]
    # the declared defaults, raw (value × 2^shift): law 0 (rfc), g = 1/16, α0 = 1, IW 10 MSS,
    # ai 1 MSS/RTT, no ceiling
    assert params["kernel_cc"] == "dccsim_plugin"
    assert params["plugin_params"] == [0, 1 << 16, 1 << 20, 10 << 10, 1 << 20, 0]
    fs = pq.read_table(out / "dctcp" / "flow_series.parquet").to_pylist()
    solo = [r["cwnd_bytes"] for r in fs if r["flow_id"] == 0 and SETTLE_PS <= r["time_ps"] < JOIN_PS]
    shared = [r["cwnd_bytes"] for r in fs if r["flow_id"] == 0 and r["time_ps"] >= JOIN_PS + SETTLE_PS]
    assert solo and shared
    assert _median(shared) <= 0.8 * _median(solo), (_median(solo), _median(shared))


@needs_testbed
def test_delay_plugin_runs_in_the_kernel_with_its_parameters(tmp_path, clean_testbed):
    """The scaffold's delay law in the kernel: it loads, moves data and gets the scenario's
    parameter. No reaction criterion: the software testbed's RTT samples spread from 0.1 to 1 ms
    around a measured tau of 0.2-0.5 ms, so a delay target of tens of us is decided by that noise,
    not by the competing flows."""
    from dccsim.testbed.cli import main

    sc = tmp_path / "s.toml"
    sc.write_text(SCENARIO.replace("[[flows]]", f'[cc]\nplugin = "{EXAMPLE}"\ntarget_us = 100\n[[flows]]', 1))
    out = tmp_path / "out"
    assert main(["run", str(sc), "--plugin", str(EXAMPLE), "--out", str(out), "--json"]) == 0
    run = json.loads((out / "summary.json").read_text())["runs"]["delay_aimd"]["engine"]
    assert run["bytes_delivered"] * 8 / (run["sim_time_ps"] / 1e12) > 0.18e9
    params = json.loads((out / "meta.json").read_text())["testbed"]["runs"]["delay_aimd"]["testbed_params"]
    assert params["kernel_cc"] == "dccsim_plugin" and params["plugin_params"] == [100, 1024, 512, 10]
