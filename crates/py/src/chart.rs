//! `line_chart`: a stacked line chart (dccsim_chart) rasterised natively and written as PNG, for
//! the figures that need no matplotlib (python/dccsim/chart.py builds the description).

use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// Draw the chart described by `spec` (JSON, `dccsim_chart::Chart`) with series
/// `(xs[i], ys[i])` in the font at `font_path`, and write the PNG to `path`.
#[pyfunction]
pub fn line_chart(
    py: Python<'_>,
    spec: &str,
    xs: Vec<PyReadonlyArray1<'_, f64>>,
    ys: Vec<PyReadonlyArray1<'_, f64>>,
    font_path: &str,
    path: &str,
) -> PyResult<()> {
    let chart = dccsim_chart::Chart::from_json(spec).map_err(|e| PyValueError::new_err(e.0))?;
    if xs.len() != ys.len() {
        return Err(PyValueError::new_err("chart: xs and ys differ in number"));
    }
    let mut series = Vec::with_capacity(xs.len());
    for (x, y) in xs.iter().zip(&ys) {
        let (x, y) = (x.as_slice()?, y.as_slice()?);
        if x.len() != y.len() {
            return Err(PyValueError::new_err("chart: a series' x and y differ in length"));
        }
        series.push((x, y));
    }
    let font = std::fs::read(font_path).map_err(|e| PyOSError::new_err(format!("font {font_path:?}: {e}")))?;
    let png = py.allow_threads(|| chart.png(&series, &font)).map_err(|e| PyValueError::new_err(e.0))?;
    std::fs::write(path, png).map_err(|e| PyOSError::new_err(format!("{path:?}: {e}")))
}
