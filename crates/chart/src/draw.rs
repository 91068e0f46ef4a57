//! Rasterising a [`Chart`]: the panels from the top down (reference lines, grid, series, frame,
//! ticks and their labels, the y label), the shared x label under the last panel, the title, and
//! the legend above the panels. Sizes follow matplotlib's defaults where the figure had them
//! (ticks 3.5 pt long outside the frame, 3.5 pt to their labels, 4 pt to an axis label, frame and
//! ticks 0.8 pt, grid 0.8 pt of #b0b0b0 at 30 %, legend handle 1.6 em, text 0.8 em after it,
//! columns 1.2 em apart, rows 0.5 em apart; dashes 3.7/1.6 and dots 1/1.65 line widths).

use crate::text::{Align, Fonts};
use crate::ticks;
use crate::{Chart, ChartError, Dash, Style};
use tiny_skia::{Color, ColorU8, FillRule, LineCap, LineJoin, Mask, Paint, PathBuilder, Pixmap, Rect, Stroke, StrokeDash, Transform};

const TICK_PT: f64 = 3.5;
const TICK_PAD_PT: f64 = 3.5;
const LABEL_PAD_PT: f64 = 4.0;
const FRAME_PT: f64 = 0.8;

/// Pixels of one panel: left, top, right, bottom.
#[derive(Clone, Copy)]
struct Area {
    l: f64,
    t: f64,
    r: f64,
    b: f64,
}

pub fn parse_color(s: &str) -> Result<ColorU8, ChartError> {
    let hex = s.strip_prefix('#').filter(|h| h.len() == 6 || h.len() == 8);
    let bad = || ChartError(format!("chart: colour {s:?} is not #rrggbb or #rrggbbaa"));
    let hex = hex.ok_or_else(bad)?;
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
    let alpha = if hex.len() == 8 { byte(6)? } else { 255 };
    Ok(ColorU8::from_rgba(byte(0)?, byte(2)?, byte(4)?, alpha))
}

fn paint(c: ColorU8) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(Color::from_rgba8(c.red(), c.green(), c.blue(), c.alpha()));
    p.anti_alias = true;
    p
}

fn stroke(style: &Style, px_per_pt: f64) -> Stroke {
    let w = (style.width_pt * px_per_pt) as f32;
    let mut s = Stroke { width: w, line_cap: LineCap::Butt, line_join: LineJoin::Round, ..Stroke::default() };
    let pattern = match style.dash {
        Dash::Solid => None,
        Dash::Dashed => Some([3.7f32, 1.6]),
        Dash::Dotted => Some([1.0f32, 1.65]),
    };
    if let Some([on, off]) = pattern {
        s.dash = StrokeDash::new(vec![on * w, off * w], 0.0);
    }
    s
}

/// Stroke the polyline through `pts` (pixels) in `style`; a non-finite point lifts the pen.
fn polyline(
    pm: &mut Pixmap,
    pts: impl IntoIterator<Item = (f64, f64)>,
    style: &Style,
    px_per_pt: f64,
    mask: Option<&Mask>,
) -> Result<(), ChartError> {
    let mut pb = PathBuilder::new();
    let mut pen_down = false;
    for (x, y) in pts {
        if !(x.is_finite() && y.is_finite()) {
            pen_down = false;
            continue;
        }
        // far outside the panel is still outside after clamping (f32 keeps its precision)
        let (qx, qy) = (x.clamp(-1e6, 1e6) as f32, y.clamp(-1e6, 1e6) as f32);
        if pen_down {
            pb.line_to(qx, qy);
        } else {
            pb.move_to(qx, qy);
            pen_down = true;
        }
    }
    if let Some(path) = pb.finish() {
        let c = parse_color(&style.color)?;
        pm.stroke_path(&path, &paint(c), &stroke(style, px_per_pt), Transform::identity(), mask);
    }
    Ok(())
}

/// A straight segment stroked solid.
fn segment(pm: &mut Pixmap, a: (f64, f64), b: (f64, f64), color: ColorU8, width_px: f64, mask: Option<&Mask>) {
    let mut pb = PathBuilder::new();
    pb.move_to(a.0 as f32, a.1 as f32);
    pb.line_to(b.0 as f32, b.1 as f32);
    if let Some(path) = pb.finish() {
        let s = Stroke { width: width_px as f32, ..Stroke::default() };
        pm.stroke_path(&path, &paint(color), &s, Transform::identity(), mask);
    }
}

pub fn render(chart: &Chart, series: &[(&[f64], &[f64])], font: &[u8]) -> Result<Pixmap, ChartError> {
    let dpi = chart.dpi;
    let ppt = dpi / 72.0;
    let (w, h) = ((chart.width_in * dpi).round(), (chart.height_in * dpi).round());
    let mut pm = Pixmap::new(w as u32, h as u32).ok_or_else(|| ChartError("chart: empty figure".into()))?;
    pm.fill(Color::WHITE);
    let fonts = Fonts::new(font, dpi)?;
    let black = ColorU8::from_rgba(0, 0, 0, 255);
    let n = chart.panels.len();
    if n == 0 {
        return Err(ChartError("chart: no panel".into()));
    }
    let [ml, mr, mb, mt] = chart.margins_in.map(|m| m * dpi);
    let gap = chart.vgap_in * dpi;
    let ph = (h - mt - mb - gap * (n as f64 - 1.0)) / n as f64;
    let (xlo, xhi) = (chart.xlim[0], chart.xlim[1]);
    let empty = |lim: [f64; 2]| !(lim[0].is_finite() && lim[1].is_finite() && lim[1] > lim[0]);
    if empty(chart.xlim) {
        return Err(ChartError(format!("chart: xlim {:?} is not an increasing finite range", chart.xlim)));
    }
    if let Some(i) = chart.panels.iter().position(|p| empty(p.ylim)) {
        return Err(ChartError(format!("chart: panels[{i}].ylim {:?} is not an increasing finite range", chart.panels[i].ylim)));
    }
    let x_step = ticks::step(xlo, xhi, ticks::max_intervals((w - ml - mr) / ppt, chart.font_pt, 3.0));
    let xt = ticks::positions(xlo, xhi, x_step);
    let tick = TICK_PT * ppt;
    let label_h = fonts.line_height(chart.font_pt);
    for (i, panel) in chart.panels.iter().enumerate() {
        let t = mt + i as f64 * (ph + gap);
        let a = Area { l: ml, t, r: w - mr, b: t + ph };
        let (ylo, yhi) = (panel.ylim[0], panel.ylim[1]);
        let px = |x: f64| a.l + (x - xlo) / (xhi - xlo) * (a.r - a.l);
        let py = |y: f64| a.b - (y - ylo) / (yhi - ylo) * (a.b - a.t);
        let y_step = ticks::step(ylo, yhi, ticks::max_intervals(ph / ppt, chart.font_pt, 2.0));
        let yt = ticks::positions(ylo, yhi, y_step);
        let mut mask = Mask::new(w as u32, h as u32).ok_or_else(|| ChartError("chart: mask".into()))?;
        let rect =
            Rect::from_ltrb(a.l as f32, a.t as f32, a.r as f32, a.b as f32).ok_or_else(|| ChartError("chart: panel has no area".into()))?;
        mask.fill_path(&PathBuilder::from_rect(rect), FillRule::Winding, false, Transform::identity());
        // reference lines under everything (zorder 1), then the grid, then the series
        for line in &panel.lines {
            if let Some(y) = line.y {
                polyline(&mut pm, [(a.l, py(y)), (a.r, py(y))], &line.style, ppt, Some(&mask))?;
            }
        }
        let grid = ColorU8::from_rgba(0xb0, 0xb0, 0xb0, 77);
        for &x in &xt {
            segment(&mut pm, (px(x), a.t), (px(x), a.b), grid, FRAME_PT * ppt, Some(&mask));
        }
        for &y in &yt {
            segment(&mut pm, (a.l, py(y)), (a.r, py(y)), grid, FRAME_PT * ppt, Some(&mask));
        }
        for line in &panel.lines {
            let Some(k) = line.series else { continue };
            let (xs, ys) = series.get(k).ok_or_else(|| ChartError(format!("chart: no series {k}")))?;
            let pts = xs.iter().zip(ys.iter()).map(|(&x, &y)| (px(x), py(y)));
            polyline(&mut pm, pts, &line.style, ppt, Some(&mask))?;
        }
        // frame, ticks outside it, their labels
        let frame = FRAME_PT * ppt;
        for (p, q) in [((a.l, a.t), (a.r, a.t)), ((a.r, a.t), (a.r, a.b)), ((a.r, a.b), (a.l, a.b)), ((a.l, a.b), (a.l, a.t))] {
            segment(&mut pm, p, q, black, frame, None);
        }
        let mut widest = 0.0f64;
        for &y in &yt {
            segment(&mut pm, (a.l - tick, py(y)), (a.l, py(y)), black, frame, None);
            let text = ticks::label(y, y_step);
            widest = widest.max(fonts.width(&text, chart.font_pt));
            let x = a.l - tick - TICK_PAD_PT * ppt;
            fonts.draw(&mut pm, &text, chart.font_pt, x, py(y), Align::End, Align::Center, false, black);
        }
        let last = i + 1 == n;
        for &x in &xt {
            segment(&mut pm, (px(x), a.b), (px(x), a.b + tick), black, frame, None);
            if last {
                let text = ticks::label(x, x_step);
                let y = a.b + tick + TICK_PAD_PT * ppt;
                fonts.draw(&mut pm, &text, chart.font_pt, px(x), y, Align::Center, Align::Start, false, black);
            }
        }
        let x = a.l - tick - TICK_PAD_PT * ppt - widest - LABEL_PAD_PT * ppt;
        let yc = (a.t + a.b) / 2.0;
        fonts.draw(&mut pm, &panel.ylabel, chart.font_pt, x, yc, Align::Center, Align::End, true, black);
        if last {
            let y = a.b + tick + TICK_PAD_PT * ppt + label_h + LABEL_PAD_PT * ppt;
            fonts.draw(&mut pm, &chart.xlabel, chart.font_pt, (a.l + a.r) / 2.0, y, Align::Center, Align::Start, false, black);
        }
    }
    // the title, centred, its lines 1.2 line heights apart
    let title_h = fonts.line_height(chart.title_pt);
    for (k, line) in chart.title.iter().enumerate() {
        let y = chart.title_top_in * dpi + k as f64 * 1.2 * title_h;
        fonts.draw(&mut pm, line, chart.title_pt, w / 2.0, y, Align::Center, Align::Start, false, black);
    }
    legend(&mut pm, chart, &fonts, mt - chart.legend_gap_in * dpi, w / 2.0)?;
    Ok(pm)
}

/// The legend: entries filled column by column, centred on `cx`, its bottom edge at `bottom`.
fn legend(pm: &mut Pixmap, chart: &Chart, fonts: &Fonts, bottom: f64, cx: f64) -> Result<(), ChartError> {
    let n = chart.legend.len();
    if n == 0 {
        return Ok(());
    }
    let ppt = fonts.px_per_pt;
    let em = chart.legend_pt * ppt;
    let cols = chart.legend_cols.clamp(1, n);
    let rows = n.div_ceil(cols);
    let cols = n.div_ceil(rows); // as matplotlib: no empty column
    let (handle, text_pad, col_gap, row_gap) = (1.6 * em, 0.8 * em, 1.2 * em, 0.5 * em);
    let lh = fonts.line_height(chart.legend_pt);
    let col_w: Vec<f64> = (0..cols)
        .map(|c| {
            let widest =
                (c * rows..((c + 1) * rows).min(n)).map(|k| fonts.width(&chart.legend[k].label, chart.legend_pt)).fold(0.0, f64::max);
            handle + text_pad + widest
        })
        .collect();
    let total_w: f64 = col_w.iter().sum::<f64>() + col_gap * (cols as f64 - 1.0);
    let top = bottom - (rows as f64 * lh + (rows as f64 - 1.0) * row_gap);
    let mut x = cx - total_w / 2.0;
    for (c, cw) in col_w.iter().enumerate() {
        for r in 0..rows {
            let Some(e) = chart.legend.get(c * rows + r) else { break };
            let yc = top + r as f64 * (lh + row_gap) + lh / 2.0;
            polyline(pm, [(x, yc), (x + handle, yc)], &e.style, ppt, None)?;
            let black = ColorU8::from_rgba(0, 0, 0, 255);
            fonts.draw(pm, &e.label, chart.legend_pt, x + handle + text_pad, yc, Align::Start, Align::Center, false, black);
        }
        x += cw + col_gap;
    }
    Ok(())
}
