//! `describe_algorithms()`: the engine's algorithm list with parameters, defaults and sources
//! (`dccsim list --algorithms`), as JSON text.

use pyo3::prelude::*;

/// JSON list of {"name", "source", "params": {name: default}, "choices": {name: [allowed]}}.
#[pyfunction]
pub fn describe_algorithms() -> String {
    serde_json::to_string(&dccsim_engine::cc::describe()).expect("algorithm descriptions serialise")
}
