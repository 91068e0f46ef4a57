//! Plugin objects as the front sees them: their declarations, and a check of a parameter table
//! against them (engine cc/plugin).

use dccsim_engine::cc::plugin::Plugin;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// JSON {"path", "params": [...], "trace": [...], "entries": [...], "needs_int"} of the BPF object
/// at `path`; ValueError "cc.plugin: <path>: <why>" when it cannot be loaded.
#[pyfunction]
pub fn plugin_describe(path: &str) -> PyResult<String> {
    let p = Plugin::load(path).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(p.describe().to_string())
}

/// Check a JSON parameter table against the plugin's declarations; ValueError "<prefix>.<name>:
/// <what is allowed>" on the first problem.
#[pyfunction]
pub fn plugin_check(path: &str, params: &str, prefix: &str) -> PyResult<()> {
    let p = Plugin::load(path).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let v: serde_json::Value = serde_json::from_str(params).map_err(|e| PyValueError::new_err(format!("{prefix}: {e}")))?;
    p.param_values(&v, prefix).map(|_| ()).map_err(|e| PyValueError::new_err(e.to_string()))
}
