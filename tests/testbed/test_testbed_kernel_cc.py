"""The kernel's own congestion controls as references (`--cc cubic|reno|bbr|linux-dctcp`), each run
against its simulator counterpart by `--compare` (issue 29)."""

import json
import subprocess
import sys

import pytest

from tb_helpers import ENV, needs_engine, needs_testbed


def _cli(*args, cwd=None):
    cmd = [sys.executable, "-m", "dccsim.testbed", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300, cwd=cwd)


def test_kernel_controls_are_named_exactly_and_map_to_the_simulators():
    from dccsim.testbed import bpfctl, kernel_cc, simside

    for alg in ("cubic", "reno", "bbr", "linux-dctcp"):
        assert bpfctl.canonical(alg) == alg
        assert bpfctl.register(alg, None) == kernel_cc.KERNEL[alg]  # nothing to load: the kernel's
    with pytest.raises(ValueError, match="allowed .*cubic, reno, bbr, linux-dctcp"):
        bpfctl.canonical("CUBIC")
    assert [simside.sim_algorithm(a) for a in ("cubic", "reno", "linux-dctcp", "dctcp")] == [
        "cubic",
        "reno",
        "dctcp",
        "dctcp",
    ]
    with pytest.raises(simside.SimSideError, match="bbr has no simulator counterpart"):
        simside.sim_algorithm("bbr")


@needs_engine
def test_the_simulator_side_runs_linux_rto():
    """The testbed scenarios keep the simulator's 1 ms RTO (below their queueing delay); Linux's is
    at least 200 ms, and that is what the kernel ran under every algorithm (a struct_ops law never
    sets the RTO), so every simulator side gets it; likewise Linux's SACK loss recovery."""
    from dccsim.testbed import scenario, simside

    sc = scenario.load("testbed-shared-4", None, "300Mbps")
    assert sc.raw.get("host", {}).get("rto", "1ms") != "200ms"  # the scenario's own is not Linux's
    assert sc.raw.get("host", {}).get("recovery", "go-back-n") == "go-back-n"
    for alg in ("powertcp", "theta-powertcp", "dctcp", "tbtcp", "swift"):
        assert simside._scenario(sc, alg).host.rto_ps == 200_000_000_000
        assert simside._scenario(sc, alg).host.recovery == "sack"
    for alg, sim in (("cubic", "cubic"), ("reno", "reno"), ("linux-dctcp", "dctcp")):
        scn = simside._scenario(sc, alg)
        assert scn.host.rto_ps == 200_000_000_000
        assert scn.host.recovery == "sack"
        assert scn.cc.algorithm == sim
    assert simside.sim_cc("linux-dctcp", {"g": 0.125}, sc.host_rate_bps, 1) == {
        "law": "linux",
        "g": 0.125,
    }
    step = simside.sim_ecn(
        simside._scenario(sc, "linux-dctcp"), "linux-dctcp", {"ecn_kind": "step", "k_bytes": 30280}, 1
    )
    assert (step.kind, step.k_bytes) == ("step", 30280)  # the kernel's DCTCP gets the testbed's K too


def test_a_control_the_kernel_lacks_is_one_line_exit_2(monkeypatch):
    from dccsim.testbed import kernel_cc

    monkeypatch.setattr(kernel_cc, "available", lambda: ["reno", "cubic"])
    assert kernel_cc.ensure("cubic") is None
    assert kernel_cc.ensure("bbr") == (
        "--cc: this kernel has no 'bbr' congestion control "
        "(/proc/sys/net/ipv4/tcp_available_congestion_control: reno cubic)"
    )


@needs_testbed
@needs_engine
def test_reno_runs_in_the_kernel_and_compares_with_the_simulators(tmp_path, clean_testbed):
    out = tmp_path / "incast"
    p = _cli(
        "run", "testbed-incast-8", "--cc", "reno", "--duration", "1500ms", "--host-rate", "100Mbps",
        "--out", str(out), "--compare", "--json",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    summary, cmp_ = (json.loads(x) for x in p.stdout.splitlines() if x.strip())
    meta = json.loads((out / "meta.json").read_text())["testbed"]["runs"]["reno"]
    assert meta["testbed_params"]["kernel_cc"] == "reno"
    assert summary["runs"]["reno"]["engine"]["bytes_delivered"] > 0
    assert "error" not in summary["runs"]["reno"]["metrics"]
    matched = json.loads((tmp_path / "incast-sim" / "matched.json").read_text())
    assert matched["cc"]["algorithm"] == "reno" and matched["rto_ps"] == 200_000_000_000
    (c,) = cmp_["comparisons"]
    assert c["a"]["variant"] == c["b"]["variant"] == "reno"
    assert c["b"]["tau_ps"] > 0 and c["a"]["tau_ps"] > 0


@needs_testbed
def test_bbr_runs_testbed_only_under_compare_and_says_so(tmp_path, clean_testbed):
    p = _cli(
        "run", "testbed-incast-8", "--cc", "bbr", "--duration", "1200ms", "--host-rate", "100Mbps",
        "--out", str(tmp_path / "bbr"), "--compare", "-q",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert p.stderr == "dccsim testbed: bbr has no simulator counterpart; ran the testbed only\n"
    assert not (tmp_path / "bbr-sim").exists()
    run = json.loads((tmp_path / "bbr" / "meta.json").read_text())["testbed"]["runs"]["bbr"]
    assert run["testbed_params"]["kernel_cc"] == "bbr"
    # BBR paces on its own: flow_series carries its pacing rate (the other kernel controls: inf)
    import pyarrow.parquet as pq

    rates = pq.read_table(tmp_path / "bbr" / "bbr" / "flow_series.parquet").column("rate_bps").to_pylist()
    assert rates and all(0 < r < float("inf") for r in rates)
