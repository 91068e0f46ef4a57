"""Pairs of keys that are each in range but contradict each other are refused with one line naming
the first field (issue 27): rules declared beside their fields in the engine (config/, cc/)."""

import pytest

from cli_helpers import assert_input_error, dccsim

pytestmark = pytest.mark.engine

STAR = """duration = "1ms"
[topology]
kind = "star"
hosts = 2
host_rate = "10Gbps"
host_delay = "1us"
[cc]
algorithm = "dctcp"
[[flows]]
src = 0
dst = 1
"""

RDCN = """duration = "1ms"
[topology]
kind = "rdcn"
tors = 3
servers_per_tor = 2
voq = "VOQ"
[cc]
algorithm = "powertcp"
[[flows]]
src = 0
dst = 4
"""


def _run(tmp_path, text):
    f = tmp_path / "s.toml"
    f.write_text(text)
    return dccsim("run", f, "--out", tmp_path / "out", "--no-figures", "--quiet")


@pytest.mark.parametrize(
    "ecn",
    [
        '{ kind = "step", k = "200KB" }',
        '{ kind = "red", kmin = "100KB", kmax = "300KB", pmax = 0.1 }',
        '{ kind = "curve", bdp = "50KB", tmin = "100KB" }',
    ],
)
def test_an_ecn_threshold_the_buffer_cannot_reach_is_refused(tmp_path, ecn):
    p = _run(tmp_path, STAR + f'[switch]\nbuffer = "100KB"\necn = {ecn}\n')
    assert_input_error(p, "switch.buffer")
    assert "never marks" in p.stderr and "switch.ecn" in p.stderr


def test_a_threshold_inside_the_buffer_runs(tmp_path):
    p = _run(tmp_path, STAR + '[switch]\nbuffer = "100KB"\necn = { kind = "step", k = "20KB" }\n')
    assert p.returncode == 0, p.stderr


def test_a_voq_smaller_than_one_packet_is_refused(tmp_path):
    p = _run(tmp_path, RDCN.replace("VOQ", "500B"))
    assert_input_error(p, "topology.voq")
    assert "1090 B" in p.stderr  # 1000 B payload + 48 B header + 42 B INT header (powertcp)


def test_a_voq_of_one_packet_runs(tmp_path):
    p = _run(tmp_path, RDCN.replace("VOQ", "1090B"))
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize(
    "cc,field",
    [
        ('{ algorithm = "timely", t_low_us = 500, t_high_us = 50 }', "cc.t_low_us"),
        ('{ algorithm = "swift", fs_min_cwnd = 100, fs_max_cwnd = 10 }', "cc.fs_min_cwnd"),
        ('{ algorithm = "reno", init_cwnd_mss = 100, max_cwnd_mss = 10 }', "cc.init_cwnd_mss"),
    ],
)
def test_contradicting_controller_parameters_are_refused(tmp_path, cc, field):
    top = 'duration = "1ms"\ncc = ' + cc + "\n"
    p = _run(tmp_path, top + STAR.split("\n", 1)[1].replace('[cc]\nalgorithm = "dctcp"\n', ""))
    assert_input_error(p, field)
