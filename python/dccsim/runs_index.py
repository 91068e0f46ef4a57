"""The run index: an embedded DuckDB database (`catalog.duckdb`: one per user or project, wherever
a command runs from — `catalog_path`; `DCCSIM_CATALOG=path`, `DCCSIM_HOME=dir` or `--catalog
PATH` to choose another) listing every run and sweep
point with its scenario parameters, summary metrics, claims and the paths of its Parquet tables.
The Parquet files are not copied: views read them on demand, so a query across hundreds of runs
does not load them into memory. Schema and migrations: docs/results.md. (Named the run index,
not the catalog, which is the list of named experiments in `dccsim.experiments`; the file and
the `--catalog` option keep their released names.)

Registration is two-phase. A finished run writes one small JSON record into
`catalog.inbox/` beside the database (no DuckDB import, no database lock, so parallel runs never contend);
`connect()` imports the inbox under the database's lock before answering. A record whose run
directory is gone is dropped.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from pathlib import Path
from typing import Optional

from .results import TABLE_NAMES

INBOX = "catalog.inbox"
DEFAULT_ROOT = Path("runs")
# every table of a run directory (results.TABLE_NAMES): a view each
TABLES = TABLE_NAMES  # every table a run writes

# Versioned migrations: version -> statements. Applied in order, each in one transaction, and
# recorded in schema_version; never edit a released one, add the next.
MIGRATIONS = {
    1: [
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_utc TIMESTAMP)",
        """CREATE TABLE runs (
            run_id VARCHAR PRIMARY KEY, path VARCHAR NOT NULL, experiment VARCHAR, title VARCHAR,
            seed BIGINT, analysis VARCHAR, complete BOOLEAN, sweep VARCHAR, point_id VARCHAR,
            params JSON, scenario_toml VARCHAR, registered_utc TIMESTAMP)""",
        """CREATE TABLE variants (
            run_id VARCHAR, variant VARCHAR, name VARCHAR, algorithm VARCHAR, cc_params JSON,
            engine JSON, metrics JSON, PRIMARY KEY (run_id, variant))""",
        """CREATE TABLE claims (
            run_id VARCHAR, idx INTEGER, variant VARCHAR, claim VARCHAR, measured VARCHAR,
            verdict VARCHAR, PRIMARY KEY (run_id, idx))""",
        """CREATE TABLE parquet_files (
            run_id VARCHAR, variant VARCHAR, table_name VARCHAR, path VARCHAR,
            PRIMARY KEY (run_id, variant, table_name))""",
        """CREATE TABLE sweeps (
            sweep VARCHAR PRIMARY KEY, path VARCHAR, name VARCHAR, grid JSON, seeds JSON,
            registered_utc TIMESTAMP)""",
    ],
}


def catalog_path(path=None) -> Path:
    """The run index every command of this user or project shares, wherever it runs from:
    `path` (`--catalog`), else `$DCCSIM_CATALOG`, else `$DCCSIM_HOME/catalog.duckdb`, else the
    nearest project's (`runs/catalog.duckdb` in the working directory or the closest parent that
    has one), else the user's data directory (`$XDG_DATA_HOME/dccsim/`, default
    `~/.local/share/dccsim/`)."""
    if path:
        return Path(path)
    if os.environ.get("DCCSIM_CATALOG"):
        return Path(os.environ["DCCSIM_CATALOG"])
    if os.environ.get("DCCSIM_HOME"):
        return Path(os.environ["DCCSIM_HOME"]) / "catalog.duckdb"
    here = Path.cwd()
    for d in (here, *here.parents):
        if (d / DEFAULT_ROOT / "catalog.duckdb").is_file():
            return d / DEFAULT_ROOT / "catalog.duckdb"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "dccsim" / "catalog.duckdb"


def run_id(run_dir) -> str:
    return "r-" + hashlib.sha256(str(Path(run_dir).resolve()).encode("utf-8")).hexdigest()[:16]


def _write_record(catalog: Path, record: dict) -> None:
    from .results import write_json

    inbox = catalog.parent / INBOX
    inbox.mkdir(parents=True, exist_ok=True)
    write_json(inbox / f"{record['kind']}-{record['id']}.json", record)


def register_run(run_dir, sweep: Optional[str] = None, point: Optional[dict] = None, path=None) -> None:
    """Queue a finished run directory for the catalog (see module docstring)."""
    d = Path(run_dir).resolve()
    rec = {"kind": "run", "id": run_id(d), "path": str(d), "sweep": sweep, "point": point}
    _write_record(catalog_path(path), rec)


def register_sweep(sweep_dir, path=None) -> None:
    d = Path(sweep_dir).resolve()
    rec = {"kind": "sweep", "id": run_id(d), "path": str(d)}
    _write_record(catalog_path(path), rec)


def connect(path=None, read_only: bool = False):
    """A DuckDB connection to the catalog, migrated and with the inbox imported. Views `flows`,
    `port_series`, `flow_series`, `ports` read every registered Parquet file (columns `run_id`,
    `variant`, then the table's own)."""
    import duckdb

    p = catalog_path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(p))
    migrate(con)
    _import_inbox(con, p.parent / INBOX)
    if read_only:  # `dccsim query`: the user's SQL cannot change the catalog (only dccsim writes)
        con.close()
        con = duckdb.connect(str(p), read_only=True)
    _make_views(con)
    return con


def schema_version(con) -> int:
    try:
        return int(con.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0)
    except Exception:  # noqa: BLE001  (no table yet: version 0)
        return 0


def migrate(con) -> int:
    v = schema_version(con)
    for version in sorted(k for k in MIGRATIONS if k > v):
        con.execute("BEGIN TRANSACTION")
        for stmt in MIGRATIONS[version]:
            con.execute(stmt)
        con.execute("INSERT INTO schema_version VALUES (?, ?)", [version, _now()])
        con.execute("COMMIT")
        v = version
    return v


def _now():
    return _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)


def _import_inbox(con, inbox: Path) -> None:
    if not inbox.is_dir():
        return
    for f in sorted(inbox.glob("*.json")):
        try:
            rec = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # being written (the writer renames into place) or damaged: next time
        con.execute("BEGIN TRANSACTION")
        if rec["kind"] == "run":
            _import_run(con, rec)
        else:
            _import_sweep(con, rec)
        con.execute("COMMIT")
        f.unlink(missing_ok=True)


def _import_run(con, rec: dict) -> None:
    rid, d = rec["id"], Path(rec["path"])
    for t in ("runs", "variants", "claims", "parquet_files"):
        con.execute(f"DELETE FROM {t} WHERE run_id = ?", [rid])
    try:
        s = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # the run directory is gone or unreadable: nothing to list
    toml = (d / "scenario.toml").read_text(encoding="utf-8") if (d / "scenario.toml").is_file() else None
    point = rec.get("point") or {}
    con.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            rid,
            str(d),
            s.get("experiment"),
            s.get("title"),
            s.get("seed"),
            s.get("analysis"),
            bool(s.get("complete")),
            rec.get("sweep"),
            point.get("id"),
            json.dumps(point.get("params") or {}, sort_keys=True),
            toml,
            _now(),
        ],
    )
    for slug in s.get("order") or []:
        r = s["runs"][slug]
        vsum = {}
        if (d / slug / "summary.json").is_file():
            vsum = json.loads((d / slug / "summary.json").read_text(encoding="utf-8"))
        con.execute(
            "INSERT INTO variants VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                rid,
                slug,
                r.get("name"),
                r.get("algorithm"),
                json.dumps((vsum.get("cc") or {}).get("params") or {}, sort_keys=True),
                json.dumps(r.get("engine") or {}, sort_keys=True),
                json.dumps(r.get("metrics") or {}, sort_keys=True),
            ],
        )
        for t in TABLES:
            f = d / slug / f"{t}.parquet"
            if f.is_file():
                con.execute("INSERT INTO parquet_files VALUES (?, ?, ?, ?)", [rid, slug, t, str(f)])
    for i, c in enumerate(s.get("claims") or []):
        con.execute(
            "INSERT INTO claims VALUES (?, ?, ?, ?, ?, ?)",
            [rid, i, c.get("variant"), c.get("claim"), c.get("measured"), c.get("verdict")],
        )


def _import_sweep(con, rec: dict) -> None:
    d = Path(rec["path"])
    con.execute("DELETE FROM sweeps WHERE sweep = ?", [rec["id"]])
    try:
        s = json.loads((d / "sweep.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    con.execute(
        "INSERT INTO sweeps VALUES (?, ?, ?, ?, ?, ?)",
        [
            rec["id"],
            str(d),
            s.get("name"),
            json.dumps(s.get("grid"), sort_keys=True),
            json.dumps(s.get("seeds")),
            _now(),
        ],
    )


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _make_views(con) -> None:
    """(Re)create the table views over the registered Parquet files (temporary: per connection)."""
    from .results import table_columns

    duck = {"int64": "BIGINT", "float64": "DOUBLE", "string": "VARCHAR"}
    for t in TABLES:
        files = [
            r[0]
            for r in con.execute(
                "SELECT path FROM parquet_files WHERE table_name = ? ORDER BY path", [t]
            ).fetchall()
        ]
        files = [f for f in files if Path(f).is_file()]
        if files:
            body = (
                f"SELECT pf.run_id, pf.variant, t.* EXCLUDE (filename) FROM read_parquet([{', '.join(map(_sql_str, files))}], "
                f"filename = true, union_by_name = true) t JOIN parquet_files pf ON pf.path = t.filename "
                f"AND pf.table_name = {_sql_str(t)}"
            )
        else:
            cols = ", ".join(f"NULL::{duck[d]} AS {c}" for c, d in table_columns()[t])
            body = f"SELECT NULL::VARCHAR AS run_id, NULL::VARCHAR AS variant, {cols} WHERE false"
        con.execute(f"CREATE OR REPLACE TEMP VIEW {t} AS {body}")
    _make_points_view(con)


def _make_points_view(con) -> None:
    """`points`: one row per registered sweep point with its swept parameters as plain columns,
    named by their dotted keys (`"switch.buffer"`), DOUBLE where every value is a number."""
    numeric: dict = {}
    for (params,) in con.execute(
        "SELECT params FROM runs WHERE point_id IS NOT NULL ORDER BY sweep, point_id"
    ).fetchall():
        for k, v in json.loads(params or "{}").items():
            num = isinstance(v, (int, float)) and not isinstance(v, bool)
            numeric[k] = numeric.get(k, True) and num
    cols = ""
    for k, num in numeric.items():
        value = f"params->>{_sql_str('$.' + json.dumps(k))}"
        ident = '"' + k.replace('"', '""') + '"'
        cols += f", {'TRY_CAST(' + value + ' AS DOUBLE)' if num else value} AS {ident}"
    con.execute(
        "CREATE OR REPLACE TEMP VIEW points AS SELECT run_id, sweep, point_id, seed"
        f"{cols} FROM runs WHERE point_id IS NOT NULL"
    )


def query(sql: str, path=None):
    """(column names, rows) of one SQL statement against the catalog."""
    import duckdb

    try:
        con = connect(path, read_only=True)
    except duckdb.Error as e:
        from .errors import ScenarioError

        raise ScenarioError("catalog", str(e).splitlines()[0]) from None
    try:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description] if cur.description else []
        return names, cur.fetchall()
    except duckdb.Error as e:
        from .errors import ScenarioError

        raise ScenarioError("query", str(e).splitlines()[0]) from None
    finally:
        con.close()
