//! Python bindings: `dccsim._engine.run(config_json) -> dict`. A config error becomes a
//! ValueError naming the field; a panic becomes a RuntimeError; neither crosses as a crash.

use dccsim_engine::{cc, config::Config, results::Results};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};

fn table<'py>(py: Python<'py>, cols: Vec<(&str, Bound<'py, PyAny>)>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in cols {
        d.set_item(k, v)?;
    }
    Ok(d)
}

fn to_py<'py>(py: Python<'py>, r: &Results) -> PyResult<Bound<'py, PyDict>> {
    let s = &r.summary;
    let summary = PyDict::new(py);
    for (k, v) in [
        ("sim_time_ps", s.sim_time_ps),
        ("events", s.events),
        ("packets_sent", s.packets_sent),
        ("packets_delivered", s.packets_delivered),
        ("packets_dropped", s.packets_dropped),
        ("packets_in_flight", s.packets_in_flight),
        ("data_packets_sent", s.data_packets_sent),
        ("data_packets_delivered", s.data_packets_delivered),
        ("data_packets_dropped", s.data_packets_dropped),
        ("packet_hops", s.packet_hops),
        ("bytes_delivered", s.bytes_delivered),
        ("base_rtt_ps", s.base_rtt_ps),
        ("flows_completed", s.flows_completed),
    ] {
        summary.set_item(k, v)?;
    }
    let f = &r.flows;
    let flows = table(
        py,
        vec![
            ("flow_id", f.flow_id.clone().into_pyobject(py)?),
            ("src", f.src.clone().into_pyobject(py)?),
            ("dst", f.dst.clone().into_pyobject(py)?),
            ("size_bytes", f.size_bytes.clone().into_pyobject(py)?),
            ("start_ps", f.start_ps.clone().into_pyobject(py)?),
            ("end_ps", f.end_ps.clone().into_pyobject(py)?),
            ("bytes_acked", f.bytes_acked.clone().into_pyobject(py)?),
            ("base_rtt_ps", f.base_rtt_ps.clone().into_pyobject(py)?),
            ("ideal_fct_ps", f.ideal_fct_ps.clone().into_pyobject(py)?),
            ("retransmits", f.retransmits.clone().into_pyobject(py)?),
            ("timeouts", f.timeouts.clone().into_pyobject(py)?),
        ],
    )?;
    let p = &r.ports;
    let ports = table(
        py,
        vec![
            ("port", p.port.clone().into_pyobject(py)?),
            ("name", p.name.clone().into_pyobject(py)?),
            ("rate_bps", p.rate_bps.clone().into_pyobject(py)?),
        ],
    )?;
    let ps = &r.port_series;
    let port_series = table(
        py,
        vec![
            ("time_ps", ps.time_ps.clone().into_pyobject(py)?),
            ("port", ps.port.clone().into_pyobject(py)?),
            ("queue_bytes", ps.queue_bytes.clone().into_pyobject(py)?),
            ("tx_bytes", ps.tx_bytes.clone().into_pyobject(py)?),
        ],
    )?;
    let fs = &r.flow_series;
    let flow_series = table(
        py,
        vec![
            ("time_ps", fs.time_ps.clone().into_pyobject(py)?),
            ("flow_id", fs.flow_id.clone().into_pyobject(py)?),
            ("cwnd_bytes", fs.cwnd_bytes.clone().into_pyobject(py)?),
            ("rate_bps", fs.rate_bps.clone().into_pyobject(py)?),
            ("bytes_acked", fs.bytes_acked.clone().into_pyobject(py)?),
        ],
    )?;
    table(
        py,
        vec![
            ("summary", summary.into_any()),
            ("flows", flows.into_any()),
            ("ports", ports.into_any()),
            ("port_series", port_series.into_any()),
            ("flow_series", flow_series.into_any()),
        ],
    )
}

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
/// The simulation runs with the GIL released; every `POLL_EVENTS` events the engine asks
/// `interrupted`, which takes the GIL back to run Python's signal handlers. A pending Ctrl-C
/// (or any exception a handler raises) stops the run and is raised here, so it reaches the caller
/// within one poll interval instead of after the whole run.
#[pyfunction]
fn run<'py>(py: Python<'py>, config_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let cfg = Config::from_json(config_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut raised: Option<PyErr> = None;
    let outcome = py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| dccsim_engine::run_polled(&cfg, &mut || interrupted(&mut raised)))));
    if let Some(e) = raised {
        return Err(e);
    }
    match outcome {
        Ok(Ok((r, _completed))) => to_py(py, &r),
        Ok(Err(e)) => Err(PyValueError::new_err(e.to_string())),
        Err(p) => Err(PyRuntimeError::new_err(format!("internal engine error (please report): {}", panic_message(p)))),
    }
}

/// Run Python's pending signal handlers; true (stop the run) when one raised, keeping its error.
fn interrupted(raised: &mut Option<PyErr>) -> bool {
    Python::with_gil(|py| match py.check_signals() {
        Ok(()) => false,
        Err(e) => {
            *raised = Some(e);
            true
        }
    })
}

/// Names of the congestion-control algorithms this build knows.
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    cc::algorithms()
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
