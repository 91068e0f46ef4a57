//! The engine's result tables as Python columns: numbers as numpy arrays (int64 or float64),
//! strings as lists. The column lists below are the only place the table layout is written; the
//! front reads it back with `schema()` (docs/engine-api.md).

use dccsim_engine::results::{
    FlowSeries, FlowTable, PacketIntTable, PacketTable, PfcTable, PortSeries, PortTable, Results, Summary, Trace,
};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One column, converted to the dtype the front writes.
pub enum Column {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Str(Vec<String>),
}

impl Column {
    fn dtype(&self) -> &'static str {
        match self {
            Column::I64(_) => "int64",
            Column::F64(_) => "float64",
            Column::Str(_) => "string",
        }
    }

    fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        Ok(match self {
            Column::I64(v) => v.into_pyarray(py).into_any(),
            Column::F64(v) => v.into_pyarray(py).into_any(),
            Column::Str(v) => v.into_pyobject(py)?.into_any(),
        })
    }
}

fn int<T: Copy + TryInto<i64>>(v: Vec<T>) -> Column {
    // Every engine integer (ids, ps, bytes, counters) is far below 2^63.
    Column::I64(v.into_iter().map(|x| x.try_into().unwrap_or(i64::MAX)).collect())
}

type Named = Vec<(&'static str, Column)>;

fn flows(f: FlowTable) -> Named {
    vec![
        ("flow_id", int(f.flow_id)),
        ("src", int(f.src)),
        ("dst", int(f.dst)),
        ("size_bytes", int(f.size_bytes)),
        ("start_ps", int(f.start_ps)),
        ("end_ps", int(f.end_ps)),
        ("bytes_acked", int(f.bytes_acked)),
        ("base_rtt_ps", int(f.base_rtt_ps)),
        ("ideal_fct_ps", int(f.ideal_fct_ps)),
        ("ideal_fct_artifact_ps", int(f.ideal_fct_artifact_ps)),
        ("retransmits", int(f.retransmits)),
        ("timeouts", int(f.timeouts)),
        ("connection", int(f.connection)),
        ("subflow", int(f.subflow)),
        ("delivered_bytes", int(f.delivered_bytes)),
        ("suppressions", int(f.suppressions)),
    ]
}

fn ports(p: PortTable) -> Named {
    vec![("port", int(p.port)), ("name", Column::Str(p.name)), ("rate_bps", int(p.rate_bps))]
}

fn port_series(s: PortSeries) -> Named {
    vec![("time_ps", int(s.time_ps)), ("port", int(s.port)), ("queue_bytes", int(s.queue_bytes)), ("tx_bytes", int(s.tx_bytes))]
}

fn trace(t: Trace) -> Named {
    let names: Vec<String> = t.variable.iter().map(|&i| t.names[i as usize].to_string()).collect();
    vec![("time_ps", int(t.time_ps)), ("flow_id", int(t.flow_id)), ("variable", Column::Str(names)), ("value", Column::F64(t.value))]
}

fn flow_series(s: FlowSeries) -> Named {
    vec![
        ("time_ps", int(s.time_ps)),
        ("flow_id", int(s.flow_id)),
        ("cwnd_bytes", Column::F64(s.cwnd_bytes)),
        ("rate_bps", Column::F64(s.rate_bps)),
        ("bytes_acked", int(s.bytes_acked)),
    ]
}

fn pfc(p: PfcTable) -> Named {
    vec![
        ("port", int(p.port)),
        ("name", Column::Str(p.name)),
        ("pauses_sent", int(p.pauses_sent)),
        ("resumes_sent", int(p.resumes_sent)),
        ("paused_ps", int(p.paused_ps)),
    ]
}

fn packets(p: PacketTable) -> Named {
    vec![
        ("time_ps", int(p.time_ps)),
        ("port", int(p.port)),
        ("flow_id", int(p.flow_id)),
        ("kind", int(p.kind)),
        ("seq", int(p.seq)),
        ("size_bytes", int(p.size_bytes)),
        ("payload_bytes", int(p.payload_bytes)),
        ("prio", int(p.prio)),
        ("ecn", int(p.ecn)),
        ("int_hops", int(p.int_hops)),
        ("ece", int(p.ece)),
    ]
}

fn packet_int(p: PacketIntTable) -> Named {
    vec![
        ("packet", int(p.packet)),
        ("hop", int(p.hop)),
        ("qlen_bytes", int(p.qlen_bytes)),
        ("tx_bytes", int(p.tx_bytes)),
        ("ts_ps", int(p.ts_ps)),
        ("rate_bps", int(p.rate_bps)),
    ]
}

fn summary(s: &Summary) -> Vec<(&'static str, u64)> {
    vec![
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
        ("pfc_pause_frames", s.pfc_pause_frames),
        ("pfc_resume_frames", s.pfc_resume_frames),
        ("pfc_paused_ps", s.pfc_paused_ps),
        ("pfc_deadlock_at_ps", s.pfc_deadlock_at_ps),
        ("capture_overflow", s.capture_overflow),
        ("pfc_overflow_drops", s.pfc_overflow_drops),
    ]
}

/// The tables of `Results`, in the order `run` returns them.
fn tables(r: Results) -> Vec<(&'static str, Named)> {
    vec![
        ("flows", flows(r.flows)),
        ("ports", ports(r.ports)),
        ("port_series", port_series(r.port_series)),
        ("flow_series", flow_series(r.flow_series)),
        ("trace", trace(r.trace)),
        ("pfc", pfc(r.pfc)),
        ("packets", packets(r.packets)),
        ("packet_int", packet_int(r.packet_int)),
    ]
}

/// Number of tables besides the summary.
pub const SCHEMA_TABLES: usize = 8;

/// {"summary": {counter: int}, table: {column: array or list}}; consumes the results so the
/// column vectors move into numpy without a second copy.
pub fn to_py_tables(py: Python<'_>, r: Results) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    let s = PyDict::new(py);
    for (k, v) in summary(&r.summary) {
        s.set_item(k, v)?;
    }
    out.set_item("summary", s)?;
    // the ports of a PFC deadlock cycle, in wait order (empty: none)
    out.set_item("pfc_deadlock", r.pfc_deadlock.clone())?;
    // the debug log's text (`[metrics] log`; empty: off)
    out.set_item("log", r.log.clone())?;
    for (name, cols) in tables(r) {
        let t = PyDict::new(py);
        for (col, data) in cols {
            t.set_item(col, data.into_py(py)?)?;
        }
        out.set_item(name, t)?;
    }
    Ok(out)
}

/// (table, [(column, dtype)]) for every table, summary included, from the converters above.
pub fn schema() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let mut out: Vec<_> = tables(Results::default())
        .into_iter()
        .map(|(name, cols)| (name, cols.iter().map(|(c, data)| (*c, data.dtype())).collect()))
        .collect();
    out.push(("summary", summary(&Summary::default()).into_iter().map(|(k, _)| (k, "int64")).collect()));
    out
}
