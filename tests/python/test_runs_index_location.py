"""One run index per user or project, whatever the working directory (issue 26 item 6)."""

import json
from pathlib import Path

import pytest

from dccsim.runs_index import catalog_path


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for k in ("DCCSIM_CATALOG", "DCCSIM_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def test_default_is_the_users_data_directory_from_any_directory(clean_env, tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    clean_env.chdir(tmp_path / "a")
    first = catalog_path()
    clean_env.chdir(tmp_path / "a" / "b")
    assert catalog_path() == first == tmp_path / "home" / ".local" / "share" / "dccsim" / "catalog.duckdb"
    clean_env.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert catalog_path() == tmp_path / "xdg" / "dccsim" / "catalog.duckdb"


def test_a_projects_runs_catalog_serves_its_subdirectories(clean_env, tmp_path):
    project = tmp_path / "project"
    (project / "runs").mkdir(parents=True)
    (project / "runs" / "catalog.duckdb").write_bytes(b"")
    (project / "src" / "deep").mkdir(parents=True)
    clean_env.chdir(project / "src" / "deep")
    assert catalog_path() == project / "runs" / "catalog.duckdb"


def test_dccsim_home_and_dccsim_catalog_choose(clean_env, tmp_path):
    clean_env.chdir(tmp_path)
    clean_env.setenv("DCCSIM_HOME", str(tmp_path / "h"))
    assert catalog_path() == tmp_path / "h" / "catalog.duckdb"
    clean_env.setenv("DCCSIM_CATALOG", str(tmp_path / "c.duckdb"))
    assert catalog_path() == tmp_path / "c.duckdb"
    assert catalog_path(tmp_path / "x.duckdb") == tmp_path / "x.duckdb"


@pytest.mark.engine
def test_a_run_from_a_subdirectory_is_seen_by_query_from_its_parent(clean_env, tmp_path):
    """The reported problem: the index followed the working directory."""
    from cli_helpers import DATA, dccsim

    env_home = tmp_path / "home"
    (tmp_path / "sub").mkdir()
    p = dccsim(
        "run",
        DATA / "incast-small.toml",
        "--out",
        tmp_path / "sub" / "out",
        "--quiet",
        "--no-figures",
        cwd=tmp_path / "sub",
    )
    assert p.returncode == 0, p.stderr
    q = dccsim("query", "SELECT count(*) AS n FROM runs", "--json", cwd=tmp_path)
    assert q.returncode == 0, q.stderr
    assert json.loads(q.stdout) == [{"n": 1}]
    assert (env_home / ".local" / "share" / "dccsim" / "catalog.duckdb").exists()
    assert not (tmp_path / "sub" / "runs").exists()  # nothing written outside --out but the index
    assert Path(tmp_path / "sub" / "out").is_dir()
