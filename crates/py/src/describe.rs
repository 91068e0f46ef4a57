//! `describe_algorithms()`: the engine's algorithm list with parameters, defaults and sources
//! (`dccsim list --algorithms`), as JSON text; `check_cc()`: an algorithm's parameter table
//! checked as the engine will read it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// JSON list of {"name", "source", "params": {name: default}, "choices": {name: [allowed]},
/// "keys": [{key, type, unit, min, max, …, symbol, doc, source}], "rules": [{key, message}],
/// "caps": {"needs_int", "study_nic"}}.
#[pyfunction]
pub fn describe_algorithms() -> String {
    serde_json::to_string(&dccsim_engine::cc::describe()).expect("algorithm descriptions serialise")
}

/// Check `algorithm`'s parameters (a JSON object) as the engine reads them; ValueError
/// `"<prefix>.<key>: <message>"`.
#[pyfunction]
pub fn check_cc(algorithm: &str, params_json: &str, prefix: &str) -> PyResult<()> {
    let params: serde_json::Value = serde_json::from_str(params_json).map_err(|e| PyValueError::new_err(format!("{prefix}: {e}")))?;
    dccsim_engine::cc::check(algorithm, &params, prefix).map_err(|e| PyValueError::new_err(e.to_string()))
}
