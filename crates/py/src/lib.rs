//! Python bindings: `dccsim._engine.run(config_json) -> dict`. A config error becomes a
//! ValueError naming the field; a broken end-of-run invariant an `InvariantViolation` (a
//! RuntimeError) naming it; a panic a RuntimeError; none crosses as a crash.
//!
//! Tables cross as numpy arrays (int64 / float64, moved without copying the engine's vectors
//! twice) and string columns as lists. `schema()` tells the front the tables, their columns and
//! dtypes from the same code that converts them, so the column list is written in one place;
//! `parquet_table` encodes a table's Parquet file (parquet_out.rs), so a run needs no pyarrow.

mod chart;
mod columns;
mod describe;
mod parquet_out;
mod plugin;
mod scenario_schema;

use columns::{to_py_tables, SCHEMA_TABLES};
use dccsim_engine::{cc, config::Config, Error};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(_engine, InvariantViolation, PyRuntimeError, "An end-of-run invariant does not hold (an engine bug).");

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Run one scenario given as the engine's JSON input (see docs/engine-api.md).
///
/// The simulation runs with the GIL released; every `POLL_EVENTS` events the engine calls back,
/// which takes the GIL to run Python's signal handlers and, when given, `progress(now_ps)` (the
/// simulated time; the caller counts calls × `POLL_EVENTS` events). A pending Ctrl-C (or any
/// exception a handler or `progress` raises) stops the run and is raised here, so it reaches the
/// caller within one poll interval instead of after the whole run.
#[pyfunction]
#[pyo3(signature = (config_json, progress=None))]
fn run<'py>(py: Python<'py>, config_json: &str, progress: Option<PyObject>) -> PyResult<Bound<'py, PyDict>> {
    let cfg = Config::from_json(config_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut raised: Option<PyErr> = None;
    let outcome = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| dccsim_engine::run_polled_timed(&cfg, &mut |now| poll(now, progress.as_ref(), &mut raised))))
    });
    if let Some(e) = raised {
        return Err(e);
    }
    match outcome {
        Ok(Ok((r, _completed, times))) => {
            let out = to_py_tables(py, r)?;
            // wall-clock phases (benchmarks; not a result: the front writes only the tables)
            let t = PyDict::new(py);
            t.set_item("build_s", times.build_s)?;
            t.set_item("simulate_s", times.simulate_s)?;
            out.set_item("phase_times", t)?;
            // bytes the engine's structures held at the end (benchmarks: docs/benchmarks.md)
            let m = PyDict::new(py);
            let f = times.memory;
            m.set_item("pool_peak_packets", f.pool_peak_packets)?;
            m.set_item("pool_bytes", f.pool_bytes)?;
            m.set_item("sched_bytes", f.sched_bytes)?;
            m.set_item("port_bytes", f.port_bytes)?;
            m.set_item("port_ring_bytes", f.port_ring_bytes)?;
            m.set_item("network_bytes", f.network_bytes)?;
            m.set_item("flow_bytes", f.flow_bytes)?;
            out.set_item("engine_memory", m)?;
            Ok(out)
        }
        Ok(Err(Error { violation: Some(v), .. })) => Err(InvariantViolation::new_err(v.to_string())),
        Ok(Err(e)) => Err(PyValueError::new_err(e.to_string())),
        Err(p) => Err(PyRuntimeError::new_err(format!("internal engine error (please report): {}", panic_message(p)))),
    }
}

/// Run Python's pending signal handlers and the progress callback; true (stop the run) when one
/// raised, keeping its error.
fn poll(now: u64, progress: Option<&PyObject>, raised: &mut Option<PyErr>) -> bool {
    Python::with_gil(|py| {
        let r = py.check_signals().and_then(|()| progress.map_or(Ok(()), |f| f.call1(py, (now,)).map(drop)));
        match r {
            Ok(()) => false,
            Err(e) => {
                *raised = Some(e);
                true
            }
        }
    })
}

/// Names of the congestion-control algorithms this build knows.
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    cc::algorithms()
}

/// The result tables: {table: [(column, dtype)]} with dtype "int64", "float64" or "string", in
/// the order `run` returns them; plus "summary": [(counter, "int64")].
#[pyfunction]
fn schema(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (table, cols) in columns::schema() {
        d.set_item(table, cols)?;
    }
    debug_assert_eq!(d.len(), SCHEMA_TABLES + 1);
    Ok(d)
}

/// What the engine builds from a topology (its JSON, docs/engine-api.md): (number of hosts, the
/// names of every node, hosts first, number of egress ports). ValueError naming the field when it
/// cannot be built.
#[pyfunction]
fn topology_facts(topology_json: &str) -> PyResult<(u32, Vec<String>, usize)> {
    let t: dccsim_engine::config::Topology =
        serde_json::from_str(topology_json).map_err(|e| PyValueError::new_err(format!("topology: {e}")))?;
    let net = dccsim_engine::topo::Network::graph(&t).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((net.n_hosts, net.nodes.into_iter().map(|n| n.name).collect(), net.ports.len()))
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add("InvariantViolation", m.py().get_type::<InvariantViolation>())?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(topology_facts, m)?)?;
    m.add_function(wrap_pyfunction!(describe::describe_algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(describe::check_cc, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_out::parquet_table, m)?)?;
    m.add_function(wrap_pyfunction!(chart::line_chart, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema::scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema::check_section, m)?)?;
    m.add_function(wrap_pyfunction!(plugin::plugin_describe, m)?)?;
    m.add_function(wrap_pyfunction!(plugin::plugin_check, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("POLL_EVENTS", dccsim_engine::sim::POLL_EVENTS)?;
    Ok(())
}
