"""The output directory of a run (format documented in docs/results.md).

Every file except meta.json is a pure function of the scenario and seed: JSON with sorted keys,
Parquet with fixed options and explicit column types (encoded by the engine module, so a run
imports no pyarrow; pyarrow where the engine is not built), PNG without a timestamp or software
tag. Files are written to a temporary name and renamed, so a crash never leaves a
half-written file, and each variant's files are written as soon as that variant finishes.
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SCHEMA = "dccsim-results/1"

# The tables and their engine columns come from the engine (`dccsim._engine.schema()`); the front
# adds these derived columns: (column, dtype, inserted after this column; None = at the end).
FRONT_COLUMNS = {
    "flows": [("slowdown", "float64", None)],
    "port_series": [("port_name", "string", "port")],
}
# The value of a column a producer cannot give (the testbed's `ideal_fct_artifact_ps`, a column an
# older engine did not have): "not applicable".
NOT_APPLICABLE = {"int64": -1, "float64": math.nan, "string": ""}
TABLE_NAMES = ("flows", "port_series", "flow_series", "trace", "ports", "pfc", "packets", "packet_int")


@functools.cache
def table_columns() -> dict:
    """{table: ((column, dtype), ...)} in the order written to Parquet: the engine's columns
    (docs/engine-api.md) plus FRONT_COLUMNS. dtype is "int64", "float64" or "string"."""
    from . import engine

    schema = engine.schema()
    out = {}
    for name in TABLE_NAMES:
        cols = list(schema[name])
        for col, dtype, after in FRONT_COLUMNS.get(name, ()):
            at = len(cols) if after is None else [c for c, _ in cols].index(after) + 1
            cols.insert(at, (col, dtype))
        out[name] = tuple(cols)
    return out


def engine_columns(name: str) -> tuple[str, ...]:
    """The columns of table `name` a producer (the engine, the testbed) gives: table_columns()
    without the front's derived ones. The one definition of the flow record for the simulator and
    the testbed (testbed/results.py derives its own from it)."""
    derived = {c for c, _, _ in FRONT_COLUMNS.get(name, ())}
    return tuple(c for c, _ in table_columns()[name] if c not in derived)


class MissingColumns(ValueError):
    """A table with rows lacks columns of table_columns(): its producer is out of step with the
    engine's schema (a column must be produced or filled as not applicable, never left out)."""


def typed_columns(name: str, cols: dict) -> dict:
    """{column: numpy array} of table `name` with the columns and dtypes of table_columns(): what
    analyses and figures receive, whether the columns come from the engine (runner.frames), the
    testbed (testbed/results.py) or a run's Parquet file (redraw.py). A table with no rows may
    lack columns (a table the producer did not write: every column comes back empty); a table with
    rows that lacks one raises MissingColumns naming them."""
    spec = table_columns()[name]
    if any(len(v) for v in cols.values()):
        missing = [c for c, _ in spec if c not in cols]
        if missing:
            raise MissingColumns(
                f"{name}: no column {', '.join(missing)} (the schema is results.table_columns())"
            )
    return {c: np.asarray(cols.get(c, []), dtype=object if t == "string" else t) for c, t in spec}


def with_not_applicable(name: str, cols: dict) -> dict:
    """`cols` with every column of table_columns()[name] it lacks filled with the not-applicable
    value (NOT_APPLICABLE): for a file an older producer wrote, as the Parquet writer fills them."""
    n = max((len(v) for v in cols.values()), default=0)
    return {**{c: [NOT_APPLICABLE[t]] * n for c, t in table_columns()[name] if c not in cols}, **cols}


def _arrow_type(dtype: str):
    import pyarrow as pa

    return {"int64": pa.int64(), "float64": pa.float64(), "string": pa.string()}[dtype]


PARQUET_OPTIONS = dict(
    compression="zstd",
    compression_level=3,
    use_dictionary=True,
    write_statistics=True,
    version="2.6",
    data_page_version="1.0",
)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _clean(obj):
    """JSON-safe copy: NaN/inf become null, tuples lists, numpy scalars Python numbers."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def json_text(obj, default=None) -> str:
    """`default`: for values JSON has no type for (json.dumps's; None: such a value raises)."""
    return (
        json.dumps(
            _clean(obj), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False, default=default
        )
        + "\n"
    )


def read_table(path, field: str):
    """pyarrow.parquet.read_table of one of a run's Parquet files; a missing or unreadable file is
    a ScenarioError naming `field` and the file (one line), never a pyarrow traceback."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .errors import ScenarioError

    try:
        return pq.read_table(path)
    except FileNotFoundError:
        raise ScenarioError(field, f"{str(path)!r} is missing (every run writes it)") from None
    except (pa.ArrowException, OSError) as e:
        first = (str(e).splitlines() or [type(e).__name__])[0]
        raise ScenarioError(
            field, f"{str(path)!r} cannot be read ({first}); it must be a run's Parquet table"
        ) from None


def sql_json(value):
    """A SQL value JSON has no type for, as text (`dccsim query --json`, docs/python-front.md):
    BLOB as hex, DATE/TIME/TIMESTAMP as ISO 8601, anything else (INTERVAL, DECIMAL, UUID, ...)
    as its Python text."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def write_json(path: Path, obj) -> None:
    _atomic_write(Path(path), json_text(obj).encode("utf-8"))


def write_text(path: Path, text: str) -> None:
    _atomic_write(Path(path), text.encode("utf-8"))


def with_slowdown(flows: dict) -> dict:
    """Add `slowdown` = FCT / ideal FCT for finished finite flows (NaN otherwise)."""
    if "slowdown" in flows or "end_ps" not in flows:
        return flows
    out = dict(flows)
    s, e, i = (np.asarray(flows[c], dtype=np.int64) for c in ("start_ps", "end_ps", "ideal_fct_ps"))
    done = (e >= 0) & (i > 0)
    slowdown = np.full(len(e), np.nan)
    # int64 → float64 is exact below 2^53 ps (≈ 2.5 h), so this equals Python's int / int
    slowdown[done] = (e[done] - s[done]).astype(np.float64) / i[done].astype(np.float64)
    out["slowdown"] = slowdown
    return out


def _arrow_column(data, dtype: str):
    """An Arrow array built from numpy buffers. (`pyarrow.array` would import pandas to check
    its argument's type, which costs more than writing a small run.)"""
    import pyarrow as pa

    if dtype == "string":
        encoded = [str(x).encode("utf-8") for x in data]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
        return pa.Array.from_buffers(pa.string(), len(encoded), buffers)
    values = np.ascontiguousarray(data, dtype=np.int64 if dtype == "int64" else np.float64)
    return pa.Array.from_buffers(_arrow_type(dtype), len(values), [None, pa.py_buffer(values)])


def _ordered(spec, columns: dict) -> tuple[list, list]:
    """([(column, dtype, data)] in the order of `spec`, missing columns filled in) and the sorted
    names of the columns `spec` does not list (a newer engine's)."""
    n = max((len(v) for v in columns.values()), default=0)
    known = [(c, t, columns[c] if c in columns else [NOT_APPLICABLE[t]] * n) for c, t in spec]
    return known, sorted(set(columns) - {c for c, _ in spec})


@functools.cache
def _native_encoder():
    """`dccsim._engine.parquet_table` (Parquet encoded in Rust, no pyarrow import), or None when
    the engine is not built (a testbed-only install): then pyarrow writes the same schema."""
    from . import engine

    try:
        return getattr(engine._module(), "parquet_table", None)
    except Exception:  # noqa: BLE001  (EngineUnavailable: the pyarrow writer serves)
        return None


def encode_table(spec, columns: dict, native: bool = True) -> bytes:
    """The Parquet bytes of `columns` laid out as `spec` ((column, dtype) pairs, e.g.
    table_columns()[name] or FLOW_INPUT): encoded by the engine module when it is built
    (crates/py/src/parquet_out.rs), else by pyarrow with PARQUET_OPTIONS. Both give the same
    schema (names, types, nullable) and values; columns outside `spec` (only a newer producer
    has them) go through pyarrow, which infers their type."""
    known, extra = _ordered(spec, columns)
    encoder = _native_encoder() if native else None
    if encoder is not None and not extra:
        return encoder(
            [(c, t, d if t == "string" else np.ascontiguousarray(d, dtype=t)) for c, t, d in known]
        )
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = [_arrow_column(d, t) for _, t, d in known]
    fields = [pa.field(c, _arrow_type(t)) for c, t, _ in known]
    for col in extra:
        arr = pa.array(columns[col])
        arrays.append(arr)
        fields.append(pa.field(col, arr.type))
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_arrays(arrays, schema=pa.schema(fields)), buf, **PARQUET_OPTIONS)
    return buf.getvalue()


def write_parquet(path: Path, name: str, columns: dict) -> None:
    """OUT/.../<name>.parquet with the columns of table_columns()[name] (flows gain `slowdown`)."""
    if not any(len(v) for v in columns.values()):
        # an empty table (no sampling, no PFC, no capture): the same bytes every time
        _atomic_write(Path(path), _empty_parquet(name, tuple(sorted(columns))))
        return
    if name == "flows":
        columns = with_slowdown(columns)
    _atomic_write(Path(path), encode_table(table_columns()[name], columns))


@functools.cache
def _empty_parquet(name: str, columns: tuple) -> bytes:
    """The Parquet bytes of table `name` with no rows (`columns`: the producer's, for extras)."""
    return encode_table(table_columns()[name], {c: [] for c in columns})


def port_names(ports: dict, port_ids) -> np.ndarray:
    """The name of each port index in `port_ids` ("" for an index not in `ports`)."""
    ids = np.asarray(ports.get("port", []), dtype=np.int64)
    want = np.asarray(port_ids, dtype=np.int64)
    lut = np.full(int(max(ids.max(initial=-1), want.max(initial=-1))) + 1, "", dtype=object)
    lut[ids] = list(ports.get("name", []))
    return lut[want]


def engine_tables(result: dict) -> dict:
    """The engine's column dicts, with `port_name` added to port_series."""
    tables = {name: result.get(name) or {} for name in TABLE_NAMES}
    ps = tables["port_series"] = dict(tables["port_series"])
    ps["port_name"] = port_names(tables["ports"], ps.get("port", []))
    return tables


def write_variant(out_dir: Path, slug: str, result: dict, summary: dict) -> None:
    """OUT/<slug>/{flows,port_series,flow_series,ports,pfc,packets}.parquet, OUT/<slug>/summary.json,
    and OUT/<slug>/packets.pcap when packets were captured."""
    d = Path(out_dir) / slug
    tables = engine_tables(result)
    for name, cols in tables.items():
        write_parquet(d / f"{name}.parquet", name, cols)
    if len(tables["packets"].get("time_ps", ())):
        from . import pcap

        tmp = d / "packets.tmp.pcap"
        pcap.write(tmp, tables["packets"], tables["flows"], tables["packet_int"])
        os.replace(tmp, d / "packets.pcap")
    if result.get("log"):
        tmp = d / "log.tmp.txt"
        tmp.write_text(result["log"])
        os.replace(tmp, d / "log.txt")
    write_json(d / "summary.json", summary)


# OUT/flows_input.parquet: the run's flow list as given to the engine (docs/results.md); the same
# for every variant, and `[workload] kind = "replay"` reads it back.
FLOW_INPUT = (
    ("flow_id", "int64"),
    ("src", "int64"),
    ("dst", "int64"),
    ("size_bytes", "int64"),
    ("start_ps", "int64"),
    ("source", "string"),
    ("request", "int64"),
    ("subflows", "int64"),
)


def write_flow_input(out_dir: Path, columns: dict) -> None:
    _atomic_write(Path(out_dir) / "flows_input.parquet", encode_table(FLOW_INPUT, columns))


# ----------------------------------------------------------------------------------------------
# Reading


class IncompleteRunWarning(UserWarning):
    """results.load() of a directory whose summary.json says complete: false."""


@dataclass
class Results:
    summary: dict
    flows: object  # pandas DataFrames; every row carries its variant's slug in `variant`
    port_series: object
    flow_series: object
    trace: object  # controllers' variables over time (empty unless metrics.trace)
    ports: object
    pfc: object  # PFC frames and paused time per port (empty for lossy runs)
    packets: object  # captured packets (empty unless metrics.pcap)
    packet_int: object  # their INT records, one row per (packet, hop)

    def variant(self, slug: str) -> dict:
        """The tables of one variant (by slug); KeyError naming the known slugs for any other."""
        known = list(self.summary.get("order") or self.summary.get("runs", {}))
        if slug not in known:
            raise KeyError(f"no variant {slug!r} in these results; variants: {', '.join(known) or 'none'}")
        return {
            name: df[df["variant"] == slug].drop(columns="variant").reset_index(drop=True)
            for name, df in ((n, getattr(self, n)) for n in TABLE_NAMES)
        }


def load(out_dir):
    """Read a run directory back (summary.json plus the Parquet tables of every variant: a
    `Results`), or a sweep directory (sweep.json: one tidy pandas DataFrame, a row per point and
    variant, the swept parameters and the metrics as columns; sweep_results.py)."""
    import pandas as pd

    out = Path(out_dir)
    if (out / "sweep.json").is_file():
        from .sweep_results import table

        return table(out)
    if not (out / "summary.json").is_file():
        raise FileNotFoundError(
            f"{str(out)!r} is neither a run directory (no summary.json) nor a sweep directory (no sweep.json)"
        )
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    if summary.get("complete") is False:
        import warnings

        warnings.warn(
            f"{str(out)!r} holds an incomplete run (complete: false): interrupted, killed or still "
            f"running; only {', '.join(summary.get('order') or []) or 'no variants'} finished",
            IncompleteRunWarning,
            stacklevel=2,
        )

    frames: dict[str, list] = {n: [] for n in TABLE_NAMES}
    for slug in summary.get("order") or sorted(summary.get("runs", {})):
        for name in TABLE_NAMES:
            f = out / slug / f"{name}.parquet"
            if not f.exists():
                continue
            df = read_table(f, "out_dir").to_pandas()
            df.insert(0, "variant", slug)
            frames[name].append(df)

    def cat(name):
        if frames[name]:
            return pd.concat(frames[name], ignore_index=True)
        return pd.DataFrame(columns=["variant"] + [c for c, _ in table_columns()[name]])

    return Results(summary=summary, **{name: cat(name) for name in TABLE_NAMES})
