"""`--set dotted.key=value` on `run`, `sweep` and `show`: applied to the raw TOML before
validation, so an override behaves exactly like the same edit in the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import assert_input_error, dccsim
from dccsim import overrides, sweep_spec

pytestmark = pytest.mark.engine

SCENARIO = """
name = "ovr"
duration = "100us"
[topology]
kind = "star"
hosts = 3
host_rate = "25Gbps"
host_delay = "1us"
[switch]
buffer = "1MB"
ecn = { kind = "step", k = "5KB" }
[cc]
algorithm = "dctcp"
[[flows]]
src = [0, 1]
dst = 2
size = "30KB"
[experiment]
[[experiment.variants]]
name = "A"
cc = { algorithm = "dctcp" }
[[experiment.variants]]
name = "B"
cc = { algorithm = "dctcp" }
"""


@pytest.fixture()
def scn_file(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO)
    return p


def test_values_are_toml_values_or_strings():
    assert overrides.parse("cc.gamma=0.8") == ("cc.gamma", 0.8)
    assert overrides.parse("switch.buffer=2MiB") == ("switch.buffer", "2MiB")
    assert overrides.parse("switch.int=true") == ("switch.int", True)
    assert overrides.parse("metrics.ports=['sw0->h2']") == ("metrics.ports", ["sw0->h2"])
    assert overrides.parse('name="a=b"') == ("name", "a=b")  # only the first '=' splits
    assert overrides.parse("switch.ecn={ kind = 'none' }") == ("switch.ecn", {"kind": "none"})


def test_apply_creates_tables_and_reaches_into_lists():
    d = {"experiment": {"variants": [{"name": "A"}]}}
    overrides.apply(d, "experiment.variants[0].cc.algorithm", "hpcc")
    overrides.apply(d, "metrics.interval", "1us")
    assert d == {
        "experiment": {"variants": [{"name": "A", "cc": {"algorithm": "hpcc"}}]},
        "metrics": {"interval": "1us"},
    }


def test_show_prints_the_edited_scenario(scn_file):
    p = dccsim(
        "show",
        scn_file,
        "--set",
        "switch.buffer=2MiB",
        "--set",
        "experiment.variants[1].cc.algorithm=hpcc",
        "--set",
        "flows[0].size=40KB",
    )
    assert p.returncode == 0, p.stderr
    assert 'buffer = "2MiB"' in p.stdout
    assert 'algorithm = "hpcc"' in p.stdout
    assert 'size = "40KB"' in p.stdout and "30KB" not in p.stdout
    base = dccsim("show", scn_file)
    assert 'buffer = "1MB"' in base.stdout and 'algorithm = "hpcc"' not in base.stdout


def test_show_of_a_catalog_experiment(tmp_path):
    p = dccsim("show", "powertcp-incast", "--set", "cc.gamma=0.8")
    assert p.returncode == 0, p.stderr
    cc = p.stdout.split("\n[cc]\n", 1)[1].split("\n\n", 1)[0]
    assert "gamma = 0.8" in cc


@pytest.mark.parametrize(
    "item, field",
    [
        ("switch.bufer=2MiB", "switch.bufer: unknown key (did you mean 'buffer'?); allowed: buffer,"),
        ("switch.buffer=lots", "switch.buffer: cannot read 'lots' as a size"),
        ("cc.algorithm=nosuch", "cc.algorithm:"),
        ("experiment.variants[5].name=x", "experiment.variants[5]: no such element"),
        ("cc.algorithm.x=1", "cc.algorithm: is not a table"),
        ("flows[0]..size=1", "flows[0]..size: bad key segment"),
        ("cc.gamma", "--set: expected dotted.key=value"),
    ],
)
def test_bad_overrides_are_one_line_naming_the_field(scn_file, item, field):
    for cmd in ("show", "run"):
        assert_input_error(dccsim(cmd, scn_file, "--set", item), field)


def test_run_with_set_equals_run_of_the_edited_file(tmp_path, scn_file):
    edited = tmp_path / "edited.toml"
    edited.write_text(SCENARIO.replace('buffer = "1MB"', 'buffer = "20KB"').replace("30KB", "60KB"))
    a = dccsim(
        "run", scn_file, "--set", "switch.buffer=20KB", "--set", "flows[0].size=60KB",
        "--out", tmp_path / "a", "--quiet", "--no-figures",
    )  # fmt: skip
    b = dccsim("run", edited, "--out", tmp_path / "b", "--quiet", "--no-figures")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    for slug in ("a", "b"):  # the variants' slugs
        fa = (tmp_path / "a" / slug / "flows.parquet").read_bytes()
        assert fa == (tmp_path / "b" / slug / "flows.parquet").read_bytes()
    plain = dccsim("run", scn_file, "--out", tmp_path / "c", "--quiet", "--no-figures")
    assert plain.returncode == 0, plain.stderr
    assert (tmp_path / "c" / "a" / "flows.parquet").read_bytes() != fa  # the override changed the run


def test_sweep_set_edits_the_base(tmp_path, scn_file):
    spec = tmp_path / "sw.toml"
    spec.write_text('[sweep]\nbase = "s.toml"\n[grid]\n"cc.g" = [0.0625, 0.125]\n')
    s = sweep_spec.load(spec, out=str(tmp_path / "o"), sets=["switch.buffer=2MiB"])
    assert 'buffer = "2MiB"' in s.base_text
    assert_input_error(dccsim("sweep", spec, "--set", "switch.bufer=1"), "switch.bufer: unknown key")


def test_default_output_directory_of_a_run_with_overrides(tmp_path, scn_file):
    """`run --set` without --out writes beside the unedited run, not over it."""
    plain = dccsim("run", scn_file, "--quiet", "--no-figures", cwd=tmp_path)
    edited = dccsim("run", scn_file, "--set", "switch.buffer=300KB", "--quiet", "--no-figures", cwd=tmp_path)
    assert plain.returncode == 0 and edited.returncode == 0, plain.stderr + edited.stderr
    assert plain.stdout.strip() == str(Path("runs") / "s-seed1")
    assert edited.stdout.strip() == str(
        Path("runs") / f"s-set-{overrides.digest(['switch.buffer=300KB'])}-seed1"
    )
