"""A near miss of a key, a value or an experiment name gets a "did you mean" (issue 26 item 9)."""

import pytest

from cli_helpers import assert_input_error, dccsim

pytestmark = pytest.mark.engine


@pytest.mark.parametrize(
    "args,field,hint",
    [
        (
            ["run", "powertcp-incast", "--set", "host.nack_intervall=1us"],
            "host.nack_intervall",
            "'nack_interval'",
        ),
        (["run", "powertcp-incast", "--set", "switch.int_bytes=txx"], "switch.int_bytes", "'tx'"),
        (["run", "powertcp-incast", "--set", "cc.algorithm=powertcpp"], "cc.algorithm", "'powertcp'"),
        (["run", "powertcp-incastt"], "experiment", "'powertcp-incast'"),
    ],
)
def test_a_near_miss_is_named(args, field, hint):
    p = dccsim(*args, "--no-figures")
    assert_input_error(p, field)
    assert f"did you mean {hint}?" in p.stderr


def test_no_hint_for_a_far_miss():
    p = dccsim("run", "powertcp-incast", "--set", "host.zzz=1", "--no-figures")
    assert_input_error(p, "host.zzz")
    assert "did you mean" not in p.stderr
