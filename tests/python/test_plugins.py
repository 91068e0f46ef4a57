"""Congestion-control plugins end to end (docs/plugins.md): scaffold, compile, run, determinism,
refused plugins and parameters as one error line. Needs clang (CI installs it with
.ci/testbed-deps.sh); skipped, saying so, without it."""

import hashlib
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cli_helpers import ROOT, assert_input_error, dccsim

pytestmark = pytest.mark.skipif(
    shutil.which("clang") is None, reason="clang is not installed (it compiles plugins)"
)

EXAMPLE = ROOT / "examples" / "delay_aimd.bpf.c"


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DCCSIM_PLUGIN_CACHE", str(tmp_path / "cache"))


def scenario(tmp_path: Path, cc: str, duration: str = "400us") -> Path:
    """A 4:1 incast on one rack, the controller given by `cc` (TOML of the [cc] table's body)."""
    p = tmp_path / "incast.toml"
    p.write_text(
        f"""
name = "plugin-incast"
duration = "{duration}"
[topology]
kind = "star"
hosts = 5
host_rate = "25Gbps"
host_delay = "1us"
[switch]
buffer = "1MiB"
[cc]
{cc}
[[flows]]
src = [1, 2, 3, 4]
dst = 0
start = "0s"
[metrics]
interval = "10us"
ports = ["sw0->h0"]
flows = true
"""
    )
    return p


def outputs(d: Path) -> dict:
    return {
        f.relative_to(d).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(d.rglob("*"))
        if f.is_file() and f.name != "meta.json" and f.suffix not in (".png", ".svg", ".html")
    }


def test_scaffold_then_run_gives_results(tmp_path):
    r = dccsim("cc", "new", "my_law", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    src = tmp_path / "my_law.bpf.c"
    assert "my_law" in src.read_text() and "DCCSIM_ENTRY(on_ack" in src.read_text()
    again = dccsim("cc", "new", "my_law", cwd=tmp_path)
    assert_input_error(again, "cc.new")
    out = tmp_path / "out"
    r = dccsim(
        "run",
        scenario(tmp_path, 'plugin = "my_law.bpf.c"\ntarget_us = 5'),
        "--out",
        out,
        "--no-figures",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    flows = pq.read_table(out / "my-law" / "flows.parquet").to_pandas()  # the variant is the plugin's stem
    assert len(flows) == 4 and (flows["bytes_acked"] > 100_000).all(), flows
    assert 'plugin = "' in (out / "scenario.toml").read_text()


def test_run_plugin_flag_on_a_catalog_experiment_is_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        r = dccsim("run", "powertcp-incast", "--plugin", EXAMPLE, "--out", out, "--quiet", "--no-figures")
        assert r.returncode == 0, r.stderr
    oa, ob = outputs(a), outputs(b)
    assert oa and oa == ob


def test_target_parameter_changes_the_result(tmp_path):
    # the parameter reaches the law: a tighter delay target keeps the bottleneck queue shorter
    means = []
    for target in (2, 50):
        out = tmp_path / f"t{target}"
        toml = scenario(tmp_path, f'plugin = "{EXAMPLE}"\ntarget_us = {target}')
        r = dccsim("run", toml, "--out", out, "--quiet", "--no-figures")
        assert r.returncode == 0, r.stderr
        q = pq.read_table(out / "delay-aimd" / "port_series.parquet").to_pandas()
        means.append(q[q["time_ps"] > 200_000_000]["queue_bytes"].mean())
    assert means[0] < means[1] / 2, means


@pytest.mark.parametrize(
    "key, value, want",
    [
        ("md", "2", "cc.md: must be a number in [0, 1], got 2"),
        ("gamma", "1", "cc.gamma: unknown parameter of plugin"),
        ("target_us", '"x"', "cc.target_us: must be a number in [1, 100000] us"),
    ],
)
def test_parameters_are_validated_against_the_declarations(tmp_path, key, value, want):
    r = dccsim("run", scenario(tmp_path, f'plugin = "{EXAMPLE}"\n{key} = {value}'), "--out", tmp_path / "o")
    assert_input_error(r, want)


BAD = {
    "loop": ("volatile __u64 n = c->rtt_ns; while (n) n = n * 3 + 1; c->cwnd_bytes = n;", "jumps backwards"),
    "oob": ("c->state[20] = 1;", "outside its 480 bytes"),
    "call": (None, "CALL is not allowed"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_unsafe_plugins_are_one_error_line_naming_the_file(tmp_path, name):
    body, want = BAD[name]
    head = '#include "plugin_api.h"\n'
    if body is None:
        src = head + (
            "__attribute__((noinline)) static void g(struct dccsim_ctx *c) { c->cwnd_bytes = c->rtt_ns; }\n"
            "static __always_inline void f(struct dccsim_ctx *c) { g(c); }\n"
        )
    else:
        src = head + f"static __always_inline void f(struct dccsim_ctx *c) {{ {body} }}\n"
    path = tmp_path / f"{name}.bpf.c"
    path.write_text(src + "DCCSIM_ENTRY(on_ack, f)\n")
    r = dccsim("run", scenario(tmp_path, f'plugin = "{path}"'), "--out", tmp_path / "o")
    assert_input_error(r, f"cc.plugin: {path}: ")
    assert want in r.stderr, r.stderr


def test_a_plugin_that_does_not_compile_is_one_line(tmp_path):
    path = tmp_path / "broken.bpf.c"
    path.write_text('#include "plugin_api.h"\nthis is not C\n')
    r = dccsim("run", "powertcp-incast", "--plugin", path, "--out", tmp_path / "o")
    assert_input_error(r, f"--plugin: {path}: does not compile: ")


def test_algorithm_and_plugin_together_are_refused(tmp_path):
    r = dccsim(
        "run", scenario(tmp_path, f'algorithm = "dctcp"\nplugin = "{EXAMPLE}"'), "--out", tmp_path / "o"
    )
    assert_input_error(r, "cc.algorithm: give either algorithm or plugin")


def test_a_plugin_that_reads_int_needs_int_on(tmp_path):
    src = tmp_path / "intp.bpf.c"
    src.write_text(
        '#include "plugin_api.h"\nDCCSIM_FLAGS(DCCSIM_NEEDS_INT)\n'
        "static __always_inline void f(struct dccsim_ctx *c) { c->cwnd_bytes = 20000 + c->hop[0].qlen; }\n"
        "DCCSIM_ENTRY(on_ack, f)\n"
    )
    toml = scenario(tmp_path, f'plugin = "{src}"')
    r = dccsim("run", toml, "--out", tmp_path / "on", "--quiet", "--no-figures")
    assert r.returncode == 0, r.stderr
    toml.write_text(toml.read_text().replace('buffer = "1MiB"', 'buffer = "1MiB"\nint = false'))
    r = dccsim("run", toml, "--out", tmp_path / "off")
    assert_input_error(r, "switch.int: is false, but cc = intp reads INT from the switches")


def test_a_change_in_an_included_header_recompiles_the_plugin(tmp_path, monkeypatch):
    """The cache key covers the headers a plugin includes from its own directory (as the law
    plugins include bpf/laws/power_common.h), and theirs."""
    from dccsim import plugins

    monkeypatch.setenv("DCCSIM_PLUGIN_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "law.bpf.c"
    law = (ROOT / "examples" / "delay_aimd.bpf.c").read_text()
    src.write_text('#include "mine.h"\n' + law)
    (tmp_path / "mine.h").write_text('#include "deeper.h"\n')
    (tmp_path / "deeper.h").write_text("#define MINE 1\n")
    found = plugins.local_includes(src.read_bytes(), [tmp_path, plugins.api_dir()])
    assert found[:2] == [(tmp_path / "mine.h").read_bytes(), b"#define MINE 1\n"]
    first = plugins.compile_source(src)
    assert plugins.compile_source(src) == first  # cached
    (tmp_path / "deeper.h").write_text("#define MINE 2\n")
    second = plugins.compile_source(src)
    assert second != first and second.is_file()


def test_timely_as_a_plugin_runs_the_incast_as_the_native_timely(tmp_path):
    """bpf/laws/timely.bpf.c (a rate-based law) beside the native TIMELY on powertcp-incast: the
    same transport and switch events for flow 3, line for line (the fixed point takes the same
    branches as f64 on this run; tests/vectors.rs bounds the rates on every option)."""
    out = tmp_path / "out"
    law = ROOT / "bpf" / "laws" / "timely.bpf.c"
    args = ["run", "powertcp-incast", "--add-variant", f"tim={law}", "--no-figures", "--out", str(out)]
    proc = dccsim(*args, "--log", "transport:flow=3", "--log", "fabric:node=tor0,flow=3")
    assert proc.returncode == 0, proc.stderr
    plugin, native = (out / "tim" / "log.txt").read_text(), (out / "timely" / "log.txt").read_text()
    assert " transport ack " in plugin and " fabric dequeue " in plugin
    assert plugin == native
