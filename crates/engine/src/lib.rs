//! dccsim-engine: a deterministic packet-level simulator of datacenter fabrics.
//!
//! `run(&config)` builds the topology, runs the event loop until `duration_ps` and returns
//! columnar results. Same config and seed → identical results, bit for bit.

pub mod build;
pub mod cc;
pub mod config;
pub mod core;
pub mod fabric;
pub mod footprint;
pub mod huge_pages;
pub mod invariants;
pub mod nic;
pub mod packet;
pub mod prefetch;
pub mod results;
pub mod rng;
pub mod sched;
pub mod schema;
pub mod sim;
pub mod telemetry;
pub mod time;
pub mod topo;
pub mod traffic;
pub mod transport;

pub use config::{Config, ConfigError};

/// Every Rust allocation of a process that links the engine goes through `HugePageAlloc`: the
/// system allocator, with blocks of 2 MiB and more advised onto huge pages (`huge_pages`).
#[global_allocator]
static ALLOC: huge_pages::HugePageAlloc = huge_pages::HugePageAlloc;
pub use invariants::Violation;
pub use results::Results;

/// Why a run gave no results: its input (`field` names the scenario key, `message` says what is
/// wrong and what is allowed), or a broken end-of-run invariant (`violation`; an engine bug, not
/// bad input: `field` is "invariant").
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub field: String,
    pub message: String,
    pub violation: Option<Violation>,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.violation {
            Some(v) => v.fmt(f),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error { field: e.field, message: e.message, violation: None }
    }
}

impl From<Violation> for Error {
    fn from(v: Violation) -> Self {
        Error { field: "invariant".into(), message: v.to_string(), violation: Some(v) }
    }
}

/// Validate `cfg`, simulate it and return the results.
pub fn run(cfg: &Config) -> Result<Results, Error> {
    Ok(sim::Simulator::new(cfg)?.run()?)
}

/// Same as `run`, but `stop(now)` is called every `sim::POLL_EVENTS` events with the simulated
/// time (progress) and ends the run early when it returns true (Ctrl-C). Returns the results so
/// far and whether the run completed.
pub fn run_polled(cfg: &Config, stop: &mut dyn FnMut(time::Time) -> bool) -> Result<(Results, bool), Error> {
    Ok(sim::Simulator::new(cfg)?.run_polled(stop)?)
}

/// Wall-clock seconds of a run's two phases (for benchmarks; never part of the results).
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseTimes {
    /// Checks, topology, routes, flow setup (`Simulator::new`).
    pub build_s: f64,
    /// The event loop and the collection of the results.
    pub simulate_s: f64,
    /// Bytes the engine's structures held at the end of the run.
    pub memory: footprint::Footprint,
}

/// `run_polled`, also returning how long the build and the simulation took.
pub fn run_polled_timed(cfg: &Config, stop: &mut dyn FnMut(time::Time) -> bool) -> Result<(Results, bool, PhaseTimes), Error> {
    let t0 = std::time::Instant::now();
    let sim = sim::Simulator::new(cfg)?;
    let build_s = t0.elapsed().as_secs_f64();
    let t1 = std::time::Instant::now();
    let (r, done, memory) = sim.run_measured(stop)?;
    Ok((r, done, PhaseTimes { build_s, simulate_s: t1.elapsed().as_secs_f64(), memory }))
}

/// Same as `run`, from the engine's JSON input.
pub fn run_json(json: &str) -> Result<Results, Error> {
    run(&Config::from_json(json)?)
}
