"""`dccsim report DIR` (a run or a sweep directory) and `dccsim compare A B --html`: one
self-contained static HTML page — claims table with verdicts, the run's figures (embedded PNG),
interactive Vega-Lite charts with the vega-embed JavaScript inlined (from the `vl-convert-python`
package, so the page needs no network), the scenario and the meta. Links point at the run's own
files, relative to the page."""

from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path
from typing import Optional

from .errors import ScenarioError

CSS = """
body{font-family:sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;font-size:90%}
th{background:#f3f3f3}.holds{background:#e3f6e3}.partly{background:#fff6d6}.differs{background:#fbe3e3}.na{background:#eee}
pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:85%}img{max-width:100%;height:auto}figure{margin:1em 0}
.chart{margin:1em 0}
"""


def _e(x) -> str:
    return html.escape(str(x))


def _verdict_class(v: str) -> str:
    w = v.split(":")[0].strip()
    return {"holds": "holds", "partly holds": "partly", "differs": "differs"}.get(w, "na")


def _js_bundle() -> str:
    import altair as alt
    import vl_convert as vlc

    return vlc.javascript_bundle(vl_version=alt.SCHEMA_VERSION.lstrip("v").rsplit(".", 1)[0])


def _claims_table(claims: list) -> str:
    if not claims:
        return "<p>No paper claims for this experiment.</p>"
    rows = "".join(
        f"<tr class='{_verdict_class(c['verdict'])}'><td>{_e(c['variant'])}</td><td>{_e(c['claim'])}</td>"
        f"<td>{_e(c['measured'])}</td><td>{_e(c['verdict'])}</td></tr>"
        for c in claims
    )
    return f"<table><tr><th>variant</th><th>paper claims</th><th>measured</th><th>verdict</th></tr>{rows}</table>"


def _figures(run_dir: Path, names: list, page_dir: Path) -> str:
    """The run's figures, embedded (the page stays self-contained) at their own width up to the
    page's, each a link to the full-size PNG beside the run."""
    out = []
    for n in names:
        f = run_dir / n
        if f.is_file():
            b64 = base64.b64encode(f.read_bytes()).decode("ascii")
            rel = _e(Path(os.path.relpath(f, page_dir)).as_posix())
            out.append(
                f"<figure><a href='{rel}'><img alt='{_e(n)}' src='data:image/png;base64,{b64}'></a>"
                f"<figcaption>{_link(page_dir, f, n)} (full size)</figcaption></figure>"
            )
    return "".join(out) or "<p>No figures (run with figures to include them).</p>"


def _charts_html(specs: list) -> str:
    parts = []
    for i, (title, spec) in enumerate(specs):
        parts.append(f"<h3>{_e(title)}</h3><div class='chart' id='chart{i}'></div>")
    script = "".join(
        f"vegaEmbed('#chart{i}', {json.dumps(spec)}, {{actions: false}}).catch(e => console.error(e));"
        for i, (_, spec) in enumerate(specs)
    )
    return "".join(parts) + f"<script>{script}</script>"


def _link(page_dir: Path, target: Path, text: str) -> str:
    rel = os.path.relpath(target, page_dir)
    return f"<a href='{_e(Path(rel).as_posix())}'>{_e(text)}</a>"


def _page(title: str, body: str, with_js: bool) -> str:
    js = f"<script>{_js_bundle()}</script>" if with_js else ""
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
        f"<style>{CSS}</style>{js}</head><body>{body}</body></html>\n"
    )


def _load_json(p: Path) -> dict:
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ScenarioError("report", f"{p}: {e.strerror}") from None
    except ValueError:
        raise ScenarioError("report", f"{p}: not valid JSON") from None


def run_section(run_dir: Path, page_dir: Path, heading: Optional[str] = None) -> tuple:
    """(html, chart sources) of one run directory."""
    s = _load_json(run_dir / "summary.json")
    order = s.get("order") or []
    links = [_link(page_dir, run_dir / "summary.json", "summary.json")]
    for n in ("scenario.toml", "meta.json"):
        if (run_dir / n).is_file():
            links.append(_link(page_dir, run_dir / n, n))
    for slug in order:
        for t in ("flows", "port_series"):
            if (run_dir / slug / f"{t}.parquet").is_file():
                links.append(_link(page_dir, run_dir / slug / f"{t}.parquet", f"{slug}/{t}.parquet"))
    variants = "".join(
        f"<tr><td>{_e(s['runs'][v]['name'])}</td><td>{_e(s['runs'][v]['algorithm'])}</td>"
        f"<td>{_e(s['runs'][v]['engine'].get('flows_completed', ''))}</td><td>{_e(s['runs'][v]['engine'].get('packets_dropped', ''))}</td></tr>"
        for v in order
    )
    scenario = (
        (run_dir / "scenario.toml").read_text(encoding="utf-8")
        if (run_dir / "scenario.toml").is_file()
        else ""
    )
    meta = (run_dir / "meta.json").read_text(encoding="utf-8") if (run_dir / "meta.json").is_file() else "{}"
    body = (
        f"<h1>{_e(heading or s.get('experiment'))}</h1><p>{_e(s.get('title', ''))}</p>"
        f"<p>seed {_e(s.get('seed'))} · analysis {_e(s.get('analysis'))} · complete: {_e(s.get('complete'))}</p>"
        f"<nav><a href='#claims'>claims</a> · <a href='#figures'>figures</a> · <a href='#charts'>charts</a> · "
        f"<a href='#scenario'>scenario</a> · <a href='#meta'>meta</a></nav>"
        f"<h2 id='claims'>Claims</h2>{_claims_table(s.get('claims') or [])}"
        f"<table><tr><th>variant</th><th>algorithm</th><th>flows completed</th><th>packets dropped</th></tr>{variants}</table>"
        f"<h2 id='figures'>Figures</h2>{_figures(run_dir, s.get('figures') or [], page_dir)}"
        f"<h2 id='charts'>Interactive charts</h2>@@CHARTS@@"
        f"<h2 id='files'>Files</h2><p>{' · '.join(links)}</p>"
        f"<h2 id='scenario'>Scenario</h2><pre>{_e(scenario)}</pre>"
        f"<h2 id='meta'>Meta</h2><pre>{_e(meta)}</pre>"
    )
    names = {slug: s["runs"][slug]["name"] for slug in order}
    return body, [(run_dir, order, lambda slug: names[slug])]


def _sweep_answers(sweep_dir: Path, page_dir: Path) -> str:
    """The key metrics per parameter combination and variant (seeds aggregated) and sweep.png,
    the metrics against each swept parameter (sweep_results.py), linked at full size."""
    from . import sweep_results as sr

    df = sr.table(sweep_dir)
    metrics = [m for m in sr.key_metrics(df) if m in df and df[m].notna().any()]
    agg = sr.aggregate(df, metrics)
    if agg.empty:
        return "<p>No finished points yet.</p>"
    params = df.attrs["params"]
    head = "".join(f"<th>{_e(c)}</th>" for c in params + ["variant", "seeds"] + metrics)
    rows = []
    for _, r in agg.iterrows():
        cells = [sr._fmt(r[p]) for p in params] + [r["name"] or r["variant"], r["n"]]
        for m in metrics:
            ci = r[m + "_ci95"]
            cells.append(sr._fmt(r[m]) + ("" if ci != ci else f" ± {sr._fmt(ci)}"))
        rows.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>")
    png = sr.draw(sweep_dir)
    b64 = base64.b64encode(png.read_bytes()).decode("ascii")
    rel = Path(os.path.relpath(png, page_dir)).as_posix()
    return (
        "<h2 id='answers'>Key metrics</h2><p>Mean over seeds ± half-width of its 95 % confidence "
        f"interval (Student's t).</p><table><tr>{head}</tr>{''.join(rows)}</table>"
        f"<figure><a href='{_e(rel)}'><img alt='sweep.png' src='data:image/png;base64,{b64}'></a>"
        f"<figcaption>{_link(page_dir, png, png.name)} (full size): each key metric against each swept "
        "parameter</figcaption></figure>"
    )


def sweep_section(sweep_dir: Path, page_dir: Path) -> str:
    doc = _load_json(sweep_dir / "sweep.json")
    keys = list(doc.get("grid") or {})
    rows = []
    for p in doc["points"]:
        pdir = sweep_dir / "points" / p["id"]
        link = (
            _link(page_dir, pdir / "summary.json", p["id"])
            if (pdir / "summary.json").is_file()
            else _e(p["id"])
        )
        metrics = ""
        if (pdir / "summary.json").is_file():
            s = _load_json(pdir / "summary.json")
            verdicts = [c["verdict"].split(":")[0] for c in s.get("claims") or []]
            metrics = ", ".join(f"{v}: {verdicts.count(v)}" for v in sorted(set(verdicts)))
        cells = "".join(f"<td>{_e(p['params'].get(k))}</td>" for k in keys)
        rows.append(
            f"<tr><td>{link}</td>{cells}<td>{_e(p['seed'])}</td><td>{_e(p['status'])}</td><td>{_e(metrics)}</td></tr>"
        )
    head = "".join(f"<th>{_e(k)}</th>" for k in keys)
    return (
        f"<h1>Sweep {_e(doc.get('name'))}</h1><p>{len(doc['points'])} points · complete: {_e(doc.get('complete'))}</p>"
        f"{_sweep_answers(sweep_dir, page_dir)}<h2 id='points'>Points</h2>"
        f"<table><tr><th>point</th>{head}<th>seed</th><th>status</th><th>claim verdicts</th></tr>{''.join(rows)}</table>"
        f"<h2 id='base'>Base scenario</h2><pre>{_e(doc.get('base', ''))}</pre>"
    )


def write_report(target, out=None) -> Path:
    """Write the report of a run or sweep directory; returns the page's path."""
    d = Path(target)
    if (d / "sweep.json").is_file():
        page = Path(out) if out else d / "report.html"
        body, with_js = (
            sweep_section(d, page.parent.resolve() if page.parent.exists() else page.parent),
            False,
        )
        text = _page(f"sweep {d.name}", body, with_js)
    elif (d / "summary.json").is_file():
        page = Path(out) if out else d / "report.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        body, sources = run_section(d.resolve(), page.parent.resolve())
        from .report_charts import charts

        specs = charts(sources)
        body = body.replace("@@CHARTS@@", _charts_html(specs) if specs else "<p>No sampled series.</p>")
        text = _page(f"dccsim {d.name}", body, bool(specs))
    else:
        raise ScenarioError(
            "report", f"{d} is neither a run directory (summary.json) nor a sweep (sweep.json)"
        )
    from .results import write_text

    write_text(page, text)
    return page


def write_compare(a, b, comparison_text: str, out) -> Path:
    """A page with the text comparison, both runs' claims and their queues in one chart."""
    from .report_charts import charts

    page = Path(out)
    page.parent.mkdir(parents=True, exist_ok=True)
    pd_ = page.parent.resolve()
    sa, sb = _load_json(Path(a) / "summary.json"), _load_json(Path(b) / "summary.json")
    body = (
        f"<h1>Compare</h1><p>A = {_link(pd_, Path(a).resolve() / 'summary.json', str(a))} · "
        f"B = {_link(pd_, Path(b).resolve() / 'summary.json', str(b))}</p><pre>{_e(comparison_text)}</pre>"
        f"<h2>Claims of A</h2>{_claims_table(sa.get('claims') or [])}<h2>Claims of B</h2>{_claims_table(sb.get('claims') or [])}"
        "<h2 id='charts'>Interactive charts</h2>@@CHARTS@@"
    )
    specs = charts(
        [
            (Path(a), sa.get("order") or [], lambda slug: f"A:{slug}"),
            (Path(b), sb.get("order") or [], lambda slug: f"B:{slug}"),
        ]
    )
    body = body.replace("@@CHARTS@@", _charts_html(specs) if specs else "<p>No sampled series.</p>")
    from .results import write_text

    write_text(page, _page("dccsim compare", body, bool(specs)))
    return page
