//! The engine's input: a fully resolved scenario in SI integer units (bits/s, picoseconds, bytes).
//!
//! The Python front parses user-facing TOML (with units such as "25Gbps", "1us"), fills defaults and
//! hands this structure over as JSON. The engine validates it again: every error names the field.

use serde::{Deserialize, Serialize};

pub use crate::schema::ConfigError;
use crate::schema::{self, Section};

mod closed_loop;
mod ecn;
mod engine;
mod host;
mod metrics;
mod pfc;
mod switch;
mod topology;
pub use closed_loop::{ClosedLoop, NextDestination};
pub use ecn::{CurveEcn, Ecn, RateRed, RedByRateEcn, RedEcn, StepEcn};
pub use engine::EngineConfig;
pub use host::{HostConfig, NicModel, Recovery};
pub use metrics::MetricsConfig;
pub use pfc::{IngressPool, PfcConfig, PfcModel};
pub use switch::{IntBytesMode, SwitchConfig, MAX_BUFFER_BYTES};
pub use topology::{
    CircuitConfig, CircuitPolicy, CustomTopology, DumbbellTopology, FattreeTopology, LinkSpec, RdcnTopology, StarTopology, Topology,
    TwoPathTopology,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default = "one")]
    pub seed: u64,
    /// Simulated time at which the run stops (ps).
    pub duration_ps: u64,
    pub topology: Topology,
    #[serde(default)]
    pub switch: SwitchConfig,
    #[serde(default)]
    pub host: HostConfig,
    /// Default congestion control of every flow.
    pub cc: CcSpec,
    /// τ for the control laws (ps); default: the maximum base RTT over all host pairs.
    #[serde(default)]
    pub base_rtt_ps: Option<u64>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// End the run as soon as every finite flow has finished (`duration_ps` stays the cap);
    /// off by default. Never ends early when there is no finite flow.
    #[serde(default)]
    pub stop_when_done: bool,
    /// How the engine runs it (`[engine]`: the end-of-run checks).
    #[serde(default)]
    pub engine: EngineConfig,
}

fn one() -> u64 {
    1
}

/// Which controller, with its parameter table (fields documented per algorithm).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcSpec {
    pub algorithm: String,
    #[serde(default)]
    pub params: serde_json::Value,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: u32,
    pub dst: u32,
    /// Bytes to send; `None` = a long-lived flow that runs to the end.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    #[serde(default)]
    pub start_ps: u64,
    /// Overrides the scenario's default controller for this flow.
    #[serde(default)]
    pub cc: Option<CcSpec>,
    /// The previous message of the same connection (an earlier flow of the same sender; its
    /// destination may differ, as a rotating incast's): this flow starts when that one has
    /// finished (its start time is the message's arrival) and continues with that flow's
    /// congestion controller (`transport::Transport::join_connection`).
    #[serde(default)]
    pub follows: Option<u32>,
    /// Multipath: the connection's subflows (1 = single path), 1..=64 (transport/multipath.rs).
    #[serde(default = "one_u32")]
    pub subflows: u32,
    /// Earlier flows (scenario indices = connections) that must all complete before this one
    /// starts (at the later of that and `start_ps`); a new connection, unlike `follows`
    /// (`traffic::Deps`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<u32>,
    /// A closed-loop source: Pareto sizes, the next flow when one completes
    /// (`traffic::closed_loop`); `size_bytes` must be unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_loop: Option<ClosedLoop>,
}

impl FlowSpec {
    /// A single-path flow of `size_bytes` (None: long-lived) from `src` to `dst` at `start_ps`,
    /// with the scenario's controller; the other fields are set with struct update syntax.
    pub fn new(src: u32, dst: u32, size_bytes: Option<u64>, start_ps: u64) -> Self {
        FlowSpec { src, dst, size_bytes, start_ps, cc: None, follows: None, subflows: 1, after: vec![], closed_loop: None }
    }
}

fn one_u32() -> u32 {
    1
}

pub const MAX_SUBFLOWS: u32 = 64; // most subflows of one connection

/// Every section of the scenario schema (`schema::Section::describe`), for the front
/// (`_engine.scenario_schema()`), in the order a scenario file writes them.
pub fn sections() -> Vec<serde_json::Value> {
    let mut all = Topology::sections();
    all.extend([SwitchConfig::describe(), PfcConfig::describe()]);
    all.extend(Ecn::sections());
    all.extend([HostConfig::describe(), MetricsConfig::describe(), EngineConfig::describe()]);
    all
}

/// Read one section from its engine JSON (`section` is its schema name, e.g. `switch.pfc`) and
/// check its keys and rules; errors name `prefix.key`. The front validates each table of a
/// scenario with this, so a variant's override is named where it was written.
pub fn check_section(section: &str, json: &str, prefix: &str) -> Result<(), ConfigError> {
    fn read<T: Section>(json: &str, prefix: &str) -> Result<(), ConfigError> {
        let value: serde_json::Value = serde_json::from_str(json).map_err(|e| ConfigError::new(prefix, e.to_string()))?;
        match serde_json::from_value::<T>(value.clone()) {
            Ok(v) => v.check(prefix),
            Err(e) => Err(schema::unreadable_key::<T>(&value, prefix).unwrap_or_else(|| ConfigError::new(prefix, e.to_string()))),
        }
    }
    if let Some(kind) = section.strip_prefix("topology.") {
        // a topology kind is read and checked whole (its keys, rules and sub-sections)
        let value: serde_json::Value = serde_json::from_str(json).map_err(|e| ConfigError::new(prefix, e.to_string()))?;
        if let Some(t) = Topology::read_kind(kind, value, prefix) {
            return t?.check(prefix);
        }
    }
    match section {
        "topology.circuit" => read::<CircuitConfig>(json, prefix),
        "topology.link" => read::<LinkSpec>(json, prefix),
        "switch" => read::<SwitchConfig>(json, prefix),
        "switch.pfc" => read::<PfcConfig>(json, prefix),
        "switch.ecn.step" => read::<StepEcn>(json, prefix),
        "switch.ecn.red" => read::<RedEcn>(json, prefix),
        "switch.ecn.curve" => read::<CurveEcn>(json, prefix),
        "switch.ecn.red_by_rate" => read::<RedByRateEcn>(json, prefix),
        "switch.ecn.rule" => read::<RateRed>(json, prefix),
        "host" => read::<HostConfig>(json, prefix),
        "metrics" => read::<MetricsConfig>(json, prefix),
        "engine" => read::<EngineConfig>(json, prefix),
        _ => Err(ConfigError::new("section", format!("unknown section {section:?}"))),
    }
}

impl Config {
    pub fn from_json(s: &str) -> Result<Config, ConfigError> {
        let c: Config = serde_json::from_str(s).map_err(|e| ConfigError::new("scenario", e.to_string()))?;
        c.validate()?;
        Ok(c)
    }

    /// Field-level checks that do not need the built topology.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.duration_ps == 0 {
            return Err(ConfigError::new("duration", "must be > 0"));
        }
        self.topology.check("topology")?;
        if matches!(self.topology, Topology::Rdcn { .. }) && self.switch.pfc.is_some() {
            return Err(ConfigError::new("switch.pfc", "must be off on an rdcn topology (its VOQs are drop-tail)"));
        }
        self.switch.check("switch")?;
        if let Some(pfc) = &self.switch.pfc {
            pfc.check("switch.pfc")?;
        }
        self.switch.ecn.check("switch.ecn")?;
        self.host.check("host")?;
        self.metrics.check("metrics")?;
        self.engine.check("engine")?;
        for (i, f) in self.flows.iter().enumerate() {
            if f.size_bytes == Some(0) {
                return Err(ConfigError::new(&format!("flows[{i}].size"), "must be > 0 (omit it for a long flow)"));
            }
            if f.src == f.dst {
                return Err(ConfigError::new(&format!("flows[{i}].dst"), "must differ from src"));
            }
            if !(1..=MAX_SUBFLOWS).contains(&f.subflows) {
                return Err(ConfigError::new(&format!("flows[{i}].subflows"), format!("must be 1..={MAX_SUBFLOWS}, got {}", f.subflows)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{CurveEcn, Ecn};

    #[test]
    fn red_staircase_has_eight_equal_steps() {
        // TBTCP's fitted chip setting: Kmin 138 KB, Kmax 550 KB, Pmax 0.7 → step 51.5 KB
        let p = |q| Ecn::red_probability(138_000, 550_000, 0.7, 8, q);
        assert_eq!(p(138_000), 0.0);
        assert!((p(138_001) - 0.7 / 8.0).abs() < 1e-12); // first interval
        assert!((p(138_000 + 51_500) - 0.7 * 2.0 / 8.0).abs() < 1e-12); // second interval starts
        assert!((p(549_999) - 0.7).abs() < 1e-12); // last interval: Pmax
        assert_eq!(p(550_000), 1.0); // at Kmax and above: mark all
                                     // the linear form for comparison, halfway: Pmax/2
        assert!((Ecn::red_probability(0, 100, 0.4, 0, 50) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn curve_probability_is_q_over_bdp_plus_q_capped() {
        let bdp = 100_000;
        // ideal curve: p(q) = q / (BDP + q)
        assert_eq!(Ecn::curve_probability(bdp, 0, 0.5, 0), 0.0);
        assert!((Ecn::curve_probability(bdp, 0, 0.5, 25_000) - 0.2).abs() < 1e-12);
        // at q = BDP the curve reaches exactly the 0.5 cap
        assert!((Ecn::curve_probability(bdp, 0, 0.5, bdp) - 0.5).abs() < 1e-12);
        // beyond it the cap holds (uncapped would be 0.75 at q = 3·BDP)
        assert_eq!(Ecn::curve_probability(bdp, 0, 0.5, 3 * bdp), 0.5);
        assert!((Ecn::curve_probability(bdp, 0, 1.0, 3 * bdp) - 0.75).abs() < 1e-12);
        // tmin shifts the curve right: nothing below or at tmin, q − tmin above it
        assert_eq!(Ecn::curve_probability(bdp, 50_000, 0.5, 50_000), 0.0);
        assert!((Ecn::curve_probability(bdp, 50_000, 0.5, 75_000) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn curve_deserialises_with_defaults() {
        let e: Ecn = serde_json::from_str(r#"{"kind": "curve", "bdp_bytes": 1000}"#).unwrap();
        assert_eq!(e, Ecn::Curve(CurveEcn { bdp_bytes: 1000, tmin_bytes: 0, pmax: 0.5 }));
    }
}
