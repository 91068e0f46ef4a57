"""The run index: runs and sweep points register, `dccsim query` and runs_index.connect()
answer across them through views over the Parquet files, migrations are versioned."""

from __future__ import annotations

import json
import os

import pytest

from cli_helpers import assert_input_error, dccsim
from dccsim import results, runs_index

pytestmark = pytest.mark.engine

SPEC = """
[sweep]
base = "powertcp-incast"
variants = ["HPCC", "PowerTCP"]
seeds = [1]

[grid]
"switch.buffer" = ["3MB", "6MB"]
"""


@pytest.fixture
def cat(tmp_path, monkeypatch):
    path = tmp_path / "cat" / "catalog.duckdb"
    monkeypatch.setenv("DCCSIM_CATALOG", str(path))
    return path


def _q(*sql_args):
    p = dccsim("query", *sql_args, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_runs_and_sweep_points_are_queryable(tmp_path, cat):
    assert (
        dccsim(
            "run", "powertcp-incast", "--variant", "hpcc", "--no-figures", "--quiet", "--out", tmp_path / "r"
        ).returncode
        == 0
    )
    (tmp_path / "s.toml").write_text(SPEC)
    assert (
        dccsim("sweep", tmp_path / "s.toml", "--out", tmp_path / "sw", "--jobs", "2", "--quiet").returncode
        == 0
    )
    runs = _q(
        "SELECT sweep IS NOT NULL AS in_sweep, params->>'$.\"switch.buffer\"' AS buffer FROM runs ORDER BY ALL"
    )
    assert runs == [
        {"in_sweep": False, "buffer": None},
        {"in_sweep": True, "buffer": "3MB"},
        {"in_sweep": True, "buffer": "6MB"},
    ]
    # peak queue by buffer and algorithm, from the summary metrics
    rows = _q(
        "SELECT params->>'$.\"switch.buffer\"' AS buffer, algorithm, "
        "CAST(metrics->>'peak_queue_bytes' AS BIGINT) AS peak FROM runs JOIN variants USING (run_id) "
        "WHERE sweep IS NOT NULL ORDER BY buffer, algorithm"
    )
    assert [(r["buffer"], r["algorithm"]) for r in rows] == [
        ("3MB", "hpcc"),
        ("3MB", "powertcp"),
        ("6MB", "hpcc"),
        ("6MB", "powertcp"),
    ]
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["runs"]["hpcc"]["metrics"]["peak_queue_bytes"] > 0
    # the flows view reads the Parquet files: as many rows as the tables hold
    n = _q("SELECT run_id, variant, count(*) AS n FROM flows GROUP BY ALL ORDER BY ALL")
    assert len(n) == 5 and {r["n"] for r in n} == {11}
    ps = _q("SELECT count(*) AS n FROM port_series JOIN runs USING (run_id) WHERE sweep IS NULL")[0]["n"]
    import pyarrow.parquet as pq

    assert ps == pq.read_metadata(tmp_path / "r" / "hpcc" / "port_series.parquet").num_rows
    # the capture and PFC tables are views too (no capture, lossy: registered, empty)
    assert _q("SELECT count(*) AS n FROM parquet_files WHERE table_name = 'packets'")[0]["n"] == 5
    assert _q("SELECT count(*) AS n FROM packets")[0]["n"] == 0
    claims = _q("SELECT verdict FROM claims JOIN runs USING (run_id) WHERE sweep IS NULL")
    assert claims and all(
        c["verdict"].split(":")[0] in ("holds", "partly holds", "differs", "n/a") for c in claims
    )
    assert _q("SELECT count(*) AS n FROM sweeps")[0]["n"] == 1
    assert not any((cat.parent / runs_index.INBOX).iterdir())  # imported


def test_rerun_replaces_and_missing_directory_is_dropped(tmp_path, cat):
    for _ in range(2):
        assert (
            dccsim(
                "run",
                "powertcp-incast",
                "--variant",
                "hpcc",
                "--no-figures",
                "--quiet",
                "--out",
                tmp_path / "r",
            ).returncode
            == 0
        )
        assert _q("SELECT count(*) AS n FROM variants")[0]["n"] == 1
    runs_index.register_run(tmp_path / "gone")
    assert _q("SELECT count(*) AS n FROM runs")[0]["n"] == 1


def test_connect_api_and_versioned_migrations(cat):
    con = runs_index.connect()
    assert runs_index.schema_version(con) == max(runs_index.MIGRATIONS)
    assert runs_index.migrate(con) == max(runs_index.MIGRATIONS)  # idempotent
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"runs", "variants", "claims", "parquet_files", "sweeps", "schema_version", "flows"} <= tables
    assert set(runs_index.TABLES) == set(results.TABLE_NAMES) <= tables  # a view for every run table
    assert con.execute("SELECT count(*) FROM flows").fetchone() == (0,)  # empty, typed view
    con.close()
    assert os.path.exists(cat)


def test_bad_sql_exits_2(cat):
    assert_input_error(dccsim("query", "SELECT nope FROM runs"), "query")
