//! The scenario schema for the front: every section's keys (engine `config::sections`) and the
//! check of one section as the engine reads it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The scenario sections as JSON: `[{name, keys: [{key, field, type, unit, min, max, default,
/// doc, source, …}], rules: [{key, message}]}]` (crates/engine/src/schema.rs).
#[pyfunction]
pub fn scenario_schema() -> String {
    serde_json::to_string(&dccsim_engine::config::sections()).expect("the schema serialises")
}

/// Check one section given as the engine's JSON; ValueError `"<prefix>.<key>: <message>"`.
#[pyfunction]
pub fn check_section(section: &str, json: &str, prefix: &str) -> PyResult<()> {
    dccsim_engine::config::check_section(section, json, prefix).map_err(|e| PyValueError::new_err(e.to_string()))
}
