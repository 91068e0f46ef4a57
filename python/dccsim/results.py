"""The output directory of a run (format documented in docs/results.md).

Every file except meta.json is a pure function of the scenario and seed: JSON with sorted keys,
Parquet through pyarrow with fixed options and explicit column types, PNG without a timestamp or
software tag. Files are written to a temporary name and renamed, so a crash never leaves a
half-written file, and each variant's files are written as soon as that variant finishes.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = "dccsim-results/1"

_I = pa.int64()
_F = pa.float64()
# Column order and types of the Parquet tables (engine columns, see docs/engine-api.md).
TABLES = {
    "flows": [
        ("flow_id", _I),
        ("src", _I),
        ("dst", _I),
        ("size_bytes", _I),
        ("start_ps", _I),
        ("end_ps", _I),
        ("bytes_acked", _I),
        ("base_rtt_ps", _I),
        ("ideal_fct_ps", _I),
        ("retransmits", _I),
        ("timeouts", _I),
        ("slowdown", _F),
    ],
    "port_series": [
        ("time_ps", _I),
        ("port", _I),
        ("port_name", pa.string()),
        ("queue_bytes", _I),
        ("tx_bytes", _I),
    ],
    "flow_series": [
        ("time_ps", _I),
        ("flow_id", _I),
        ("cwnd_bytes", _F),
        ("rate_bps", _F),
        ("bytes_acked", _I),
    ],
    "ports": [("port", _I), ("name", pa.string()), ("rate_bps", _I)],
}
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


def json_text(obj) -> str:
    return json.dumps(_clean(obj), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: Path, obj) -> None:
    _atomic_write(Path(path), json_text(obj).encode("utf-8"))


def write_text(path: Path, text: str) -> None:
    _atomic_write(Path(path), text.encode("utf-8"))


def with_slowdown(flows: dict) -> dict:
    """Add `slowdown` = FCT / ideal FCT for finished finite flows (NaN otherwise)."""
    if "slowdown" in flows or "end_ps" not in flows:
        return flows
    out = dict(flows)
    out["slowdown"] = [
        (e - s) / i if e >= 0 and i > 0 else float("nan")
        for s, e, i in zip(flows["start_ps"], flows["end_ps"], flows["ideal_fct_ps"])
    ]
    return out


def _arrow_table(name: str, columns: dict) -> pa.Table:
    if name == "flows":
        columns = with_slowdown(columns)
    arrays, fields = [], []
    known = TABLES[name]
    for col, typ in known:
        arrays.append(pa.array(columns.get(col, []), type=typ))
        fields.append(pa.field(col, typ))
    for col in sorted(set(columns) - {c for c, _ in known}):  # columns a newer engine adds
        arr = pa.array(columns[col])
        arrays.append(arr)
        fields.append(pa.field(col, arr.type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def write_parquet(path: Path, name: str, columns: dict) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(_arrow_table(name, columns), tmp, **PARQUET_OPTIONS)
    os.replace(tmp, path)


def engine_tables(result: dict) -> dict:
    """The engine's column dicts, with `port_name` added to port_series."""
    ports = result.get("ports") or {}
    names = dict(zip(ports.get("port", []), ports.get("name", [])))
    ps = dict(result.get("port_series") or {})
    ps["port_name"] = [names.get(p, "") for p in ps.get("port", [])]
    return {
        "flows": result.get("flows") or {},
        "port_series": ps,
        "flow_series": result.get("flow_series") or {},
        "ports": ports,
    }


def ports_list(result: dict) -> list[dict]:
    p = result.get("ports") or {}
    return [
        {"port": i, "name": n, "rate_bps": r}
        for i, n, r in zip(p.get("port", []), p.get("name", []), p.get("rate_bps", []))
    ]


def write_variant(out_dir: Path, slug: str, result: dict, summary: dict) -> None:
    """OUT/<slug>/{flows,port_series,flow_series,ports}.parquet and OUT/<slug>/summary.json."""
    d = Path(out_dir) / slug
    for name, cols in engine_tables(result).items():
        write_parquet(d / f"{name}.parquet", name, cols)
    write_json(d / "summary.json", summary)


def write_figure(fig_path: Path, draw) -> None:
    """draw(path) saves a PNG; written via a temporary name like every other file."""
    fig_path = Path(fig_path)
    tmp = fig_path.with_name(fig_path.stem + ".tmp.png")
    draw(tmp)
    os.replace(tmp, fig_path)


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
    ports: object

    def variant(self, slug: str) -> dict:
        """The tables of one variant (by slug); KeyError naming the known slugs for any other."""
        known = list(self.summary.get("order") or self.summary.get("runs", {}))
        if slug not in known:
            raise KeyError(f"no variant {slug!r} in these results; variants: {', '.join(known) or 'none'}")
        return {
            name: df[df["variant"] == slug].drop(columns="variant").reset_index(drop=True)
            for name, df in (
                ("flows", self.flows),
                ("port_series", self.port_series),
                ("flow_series", self.flow_series),
                ("ports", self.ports),
            )
        }


def load(out_dir) -> Results:
    """Read a run directory back: summary.json plus the Parquet tables of every variant."""
    import pandas as pd

    out = Path(out_dir)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    if summary.get("complete") is False:
        import warnings

        warnings.warn(
            f"{str(out)!r} holds an incomplete run (complete: false): interrupted, killed or still "
            f"running; only {', '.join(summary.get('order') or []) or 'no variants'} finished",
            IncompleteRunWarning,
            stacklevel=2,
        )
    frames: dict[str, list] = {n: [] for n in TABLES}
    for slug in summary.get("order") or sorted(summary.get("runs", {})):
        for name in TABLES:
            f = out / slug / f"{name}.parquet"
            if not f.exists():
                continue
            df = pq.read_table(f).to_pandas()
            df.insert(0, "variant", slug)
            frames[name].append(df)

    def cat(name):
        if frames[name]:
            return pd.concat(frames[name], ignore_index=True)
        return pd.DataFrame(columns=["variant"] + [c for c, _ in TABLES[name]])

    return Results(
        summary=summary,
        flows=cat("flows"),
        port_series=cat("port_series"),
        flow_series=cat("flow_series"),
        ports=cat("ports"),
    )
