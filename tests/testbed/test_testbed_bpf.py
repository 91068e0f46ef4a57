"""Each algorithm builds, registers as a kernel congestion control and unregisters cleanly."""

import pytest

from tb_helpers import needs_testbed

ALGS = ["powertcp", "theta-powertcp", "dctcp", "tbtcp"]


@needs_testbed
@pytest.mark.parametrize("alg", ALGS)
def test_register_and_unregister(alg, clean_testbed):
    from dccsim.testbed import bpfctl

    build = bpfctl.build()
    bpfctl.ensure_bpffs()
    name = bpfctl.register(alg, build)
    avail = open("/proc/sys/net/ipv4/tcp_available_congestion_control").read().split()
    assert name in avail
    bpfctl.cleanup()
    avail = open("/proc/sys/net/ipv4/tcp_available_congestion_control").read().split()
    assert name not in avail


@needs_testbed
def test_tc_programs_load_and_share_the_int_map(clean_testbed):
    from dccsim.testbed import bpfctl

    build = bpfctl.build()
    bpfctl.ensure_bpffs()
    bpfctl.register("powertcp", build)
    progs = bpfctl.load_tc(build)
    import os

    for p in progs.values():
        assert os.path.exists(p)
    # the struct_ops object and the tc object use one pinned INT map
    assert os.path.exists(f"{bpfctl.BPFFS}/dccsim_int")
    bpfctl.cleanup()
