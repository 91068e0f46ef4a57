//! Line charts drawn natively: panels stacked above each other that share the x axis, every
//! series a line in its panel, horizontal reference lines, grid, ticks, axis labels, a title and
//! one legend above the panels — the layout of the paper's incast overlay (PowerTCP Fig. 4).
//!
//! Why: drawing that figure with matplotlib costs about 60 % of the main job's instructions
//! (importing matplotlib, laying out and rasterising text, PNG), more than the simulation
//! (docs/benchmarks.md, "The main job on one core"). Here a figure is a [`Chart`] (deserialised from
//! JSON: the layout in inches and points, as matplotlib takes it) plus its series, rasterised with
//! antialiased paths (`tiny-skia`) and TrueType text (`ab_glyph`, the font file matplotlib ships),
//! then written as PNG. Everything is computed in the order it is drawn, with no clock, hash or
//! thread: the same chart gives the same bytes.
//!
//! Modules: [`ticks`] (where ticks go and how they read), [`text`] (glyph layout and blending),
//! [`draw`] (panels, lines, legend).

pub mod draw;
pub mod text;
pub mod ticks;

use serde::Deserialize;

/// How a line is stroked: solid, dashed (`--`) or dotted (`:`), as matplotlib names them.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum Dash {
    #[serde(rename = "-")]
    Solid,
    #[serde(rename = "--")]
    Dashed,
    #[serde(rename = ":")]
    Dotted,
}

/// A line's look: colour `#rrggbb`, width in points, dash.
#[derive(Deserialize, Clone, Debug)]
pub struct Style {
    pub color: String,
    pub width_pt: f64,
    pub dash: Dash,
}

/// What a panel draws: series `series` of the chart's data, or a horizontal line at `y`.
#[derive(Deserialize, Clone, Debug)]
pub struct Line {
    #[serde(default)]
    pub series: Option<usize>,
    #[serde(default)]
    pub y: Option<f64>,
    pub style: Style,
}

#[derive(Deserialize, Clone, Debug)]
pub struct Panel {
    pub ylabel: String,
    pub ylim: [f64; 2],
    /// In drawing order (later on top); reference lines first, as matplotlib's zorder 1 puts them.
    pub lines: Vec<Line>,
}

/// One legend entry: a short stroke in the entry's style, then its label.
#[derive(Deserialize, Clone, Debug)]
pub struct Entry {
    pub label: String,
    pub style: Style,
}

#[derive(Deserialize, Clone, Debug)]
pub struct Chart {
    pub width_in: f64,
    pub height_in: f64,
    pub dpi: f64,
    /// Tick labels and axis labels.
    pub font_pt: f64,
    pub title: Vec<String>,
    pub title_pt: f64,
    /// Title's top edge below the figure's top (inches).
    pub title_top_in: f64,
    /// Left, right, bottom, top margins of the panel block (inches).
    pub margins_in: [f64; 4],
    /// Gap between two panels (inches).
    pub vgap_in: f64,
    pub xlim: [f64; 2],
    pub xlabel: String,
    pub panels: Vec<Panel>,
    pub legend: Vec<Entry>,
    pub legend_cols: usize,
    pub legend_pt: f64,
    /// The legend's bottom edge above the panels' top (inches).
    pub legend_gap_in: f64,
}

/// A bad chart (from our own Python, never from a user's input): what is wrong, in one line.
#[derive(Debug)]
pub struct ChartError(pub String);

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Chart {
    pub fn from_json(text: &str) -> Result<Chart, ChartError> {
        serde_json::from_str(text).map_err(|e| ChartError(format!("chart: {e}")))
    }

    /// Rasterise with `series[i] = (x, y)` and return the PNG's bytes.
    pub fn png(&self, series: &[(&[f64], &[f64])], font: &[u8]) -> Result<Vec<u8>, ChartError> {
        let pixmap = draw::render(self, series, font)?;
        png_rgb(&pixmap).map_err(|e| ChartError(format!("png: {e}")))
    }
}

/// The figure as an 8-bit RGB PNG: the background is opaque white, so alpha carries nothing
/// (tiny-skia's own encoder writes RGBA: 275 KB instead of 178 KB for the incast figure).
/// Adaptive row filters, fast deflate (the default level gives 110 KB for ≈ 30 ms more CPU).
fn png_rgb(pm: &tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let rgb: Vec<u8> = pm.data().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, pm.width(), pm.height());
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    enc.write_header()?.write_image_data(&rgb)?;
    Ok(out)
}
