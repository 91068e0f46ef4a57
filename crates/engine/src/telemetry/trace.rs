//! Controllers' internal variables over time (`[metrics] trace`). At every sample each started,
//! unfinished flow's controller reports its variables (`CongestionControl::trace`) and the chosen
//! ones are recorded: results `Trace`, one row per (time, flow, variable). Off (None) unless the
//! scenario names a variable: the sampling path then has one untaken branch.

use crate::cc::CongestionControl;
use crate::config::ConfigError;
use crate::core::FlowId;
use crate::results::Trace;
use crate::time::Time;
use crate::transport::Endpoint;

pub struct Tracer {
    /// `"*"`: every variable a controller reports.
    all: bool,
    wanted: Vec<String>,
}

impl Tracer {
    /// The tracer of `names` (`metrics.trace`); None when empty. A name that no controller of
    /// this run reports is an error naming `metrics.trace[i]` and the names they do report.
    pub fn new(names: &[String], flows: &[Endpoint]) -> Result<Option<Tracer>, ConfigError> {
        if names.is_empty() {
            return Ok(None);
        }
        let mut reported: Vec<&'static str> = Vec::new();
        for f in flows {
            f.tx.cc.trace(&mut |n, _| {
                if !reported.contains(&n) {
                    reported.push(n);
                }
            });
        }
        for (i, n) in names.iter().enumerate() {
            if n != "*" && !reported.iter().any(|r| r == n) {
                let have = if reported.is_empty() { "none".to_string() } else { reported.join(", ") };
                return Err(ConfigError::new(
                    &format!("metrics.trace[{i}]"),
                    format!("no controller of this run reports {n:?}; they report: {have} (or \"*\" for all)"),
                ));
            }
        }
        Ok(Some(Tracer { all: names.iter().any(|n| n == "*"), wanted: names.to_vec() }))
    }

    /// Record the chosen variables of flow `id`'s controller at `now`.
    pub fn sample(&self, now: Time, id: FlowId, cc: &dyn CongestionControl, out: &mut Trace) {
        cc.trace(&mut |name, value| {
            if self.all || self.wanted.iter().any(|w| w == name) {
                let variable = out.intern(name);
                out.time_ps.push(now);
                out.flow_id.push(id);
                out.variable.push(variable);
                out.value.push(value);
            }
        });
    }
}
