//! Congestion control: one small trait, one file per algorithm.
//!
//! A file is the whole algorithm: its parameters (`params::cc_params!`), its registration
//! (`pub const ALGORITHM: Algorithm`: name, source, factory, `Caps`) and its law; nothing else
//! names it (docs/architecture.md "A new controller is one file").
//!
//! An algorithm is a pure state machine. The engine (transport) owns sequence numbers, RTT
//! samples, loss detection and timers; it hands the algorithm an event record and reads back a
//! window (bytes) and a pacing rate (bits/s). No algorithm reaches into engine internals, so every
//! control law can be unit-tested with hand-built events against its paper's equations.

use crate::config::{ConfigError, IntBytesMode};
use crate::packet::IntHop;
use crate::time::Time;

// Every file of this directory is a module, and every `pub const ALGORITHM…: Algorithm` in one is
// registered: crates/engine/build.rs writes the `mod` lines and `REGISTERED`.
include!(concat!(env!("OUT_DIR"), "/cc_registry.rs"));

/// Everything a controller may look at when an acknowledgment arrives.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent<'a> {
    /// Arrival time of the ACK at the sender (ps).
    pub now: Time,
    /// Bytes newly acknowledged by this ACK (0 for a duplicate).
    pub acked_bytes: u64,
    /// Sequence number (first byte) of the data packet this ACK answers.
    pub seq: u64,
    /// Cumulative acknowledgment after this ACK (snd_una).
    pub snd_una: u64,
    /// Next sequence number the sender will transmit (snd_nxt).
    pub snd_nxt: u64,
    /// RTT sample: now minus the echoed send timestamp of the data packet (ps).
    pub rtt: Time,
    /// The data packet carried a CE mark (ECN echo).
    pub ecn: bool,
    /// INT records pushed by each switch egress on the forward path, in path order.
    pub int: &'a [IntHop],
    /// Maximum per-hop queueing delay on the forward path (ps), where switches stamp it.
    pub max_hop_delay: Time,
    /// Number of switch hops of the forward path (from the topology, as a receiver reads it off
    /// the TTL; it does not depend on INT).
    pub hops: u8,
    /// The window was the limit at the flow's last transmission (its bytes in flight then came
    /// within one MSS of cwnd), as Linux's tcp_is_cwnd_limited: a flow held back by its NIC or
    /// its pacing must not grow its window (RFC 7661).
    pub cwnd_limited: bool,
}

/// What a multipath controller sees of one subflow of its connection (transport/multipath.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SubflowView {
    /// Congestion window (bytes).
    pub cwnd: f64,
    /// Smoothed RTT (seconds; 0 before the first sample).
    pub srtt: f64,
    /// The subflow may take new data (false while AMP suppresses it).
    pub active: bool,
}

/// Every subflow of the connection, read-only, and which one the event is for.
#[derive(Clone, Copy, Debug)]
pub struct Siblings<'a> {
    pub me: usize,
    pub all: &'a [SubflowView],
}

/// Static facts about the flow a controller is created for.
#[derive(Clone, Copy, Debug)]
pub struct CcContext {
    /// Sender NIC rate (bits/s).
    pub host_rate_bps: f64,
    /// τ: base RTT used by the control law (seconds); by default the topology's maximum base RTT.
    pub base_rtt: f64,
    /// Base RTT of this flow's own path (seconds).
    pub path_rtt: f64,
    /// Payload bytes per data packet (MSS).
    pub mss: f64,
    /// Bytes on the wire of a full data packet (payload + headers).
    pub wire_bytes: f64,
    /// What an INT record's byte counter counts (`switch.int_bytes`): the laws read it through
    /// `int_history::bytes_sent` / `bytes_arrived`, which give the same rates either way.
    pub int_bytes: IntBytesMode,
}

/// The context of the unit tests: a 25 Gb/s host, τ = the path's RTT, 1000-B payload, a
/// bytes-sent INT counter.
#[cfg(test)]
pub(crate) fn test_ctx(base_rtt: f64, wire_bytes: f64) -> CcContext {
    CcContext { host_rate_bps: 25e9, base_rtt, path_rtt: base_rtt, mss: 1000.0, wire_bytes, int_bytes: IntBytesMode::Tx }
}

/// The per-packet header a controller needs on its flow's data packets (`CongestionControl::
/// header`). The study's simulator sizes its IntHeader by CC mode the same way
/// (powertcp-evaluation-burst.cc, `IntHeader::mode`: NORMAL for HPCC/PowerTCP/θ-PowerTCP (CC mode
/// 3), TS for TIMELY (7), NONE for DCQCN (1) and DCTCP (8); int-header.cc `GetStaticSize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// No extra header (window/ECN laws, Homa).
    None,
    /// A send timestamp the receiver echoes: `host.ts_header` bytes.
    Timestamp,
    /// INT hop records: `host.int_header` bytes (when INT is on).
    Int,
}

/// A congestion-control algorithm: owns only its own state. The methods here are what every
/// controller has or may have at no cost; behaviour only some laws have is a small trait of its
/// own (`Coupled`, `ReceiverDriven`, `CircuitAware`) that a controller offers through the
/// matching accessor, and static facts (INT, the study NIC's treatment) are flags of its
/// registration (`Caps`).
pub trait CongestionControl: Send {
    /// Called for every ACK (including duplicates, with `acked_bytes == 0`).
    fn on_ack(&mut self, ev: &AckEvent);
    /// The retransmission timer fired (the transport goes back to snd_una).
    fn on_timeout(&mut self, _now: Time) {}
    /// A loss was detected: a NACK arrived (go-back-N recovery: the transport goes back N), or
    /// SACK recovery entered fast recovery (once per episode, after that ACK's `on_ack`;
    /// transport/sack.rs). The controller makes its loss reduction.
    fn on_nack(&mut self, _now: Time) {}
    /// A data packet of `bytes` payload left the NIC (for byte counters such as DCQCN's).
    fn on_send(&mut self, _now: Time, _bytes: u64) {}
    /// Absolute time at which the algorithm wants `on_timer` called (None = no timer). The engine
    /// reads this after every callback; a changed value replaces the previous timer.
    fn timer(&self) -> Option<Time> {
        None
    }
    /// The time returned by `timer()` has come.
    fn on_timer(&mut self, _now: Time) {}
    /// The connection's next message goes to another destination (a rotating incast's): per-hop
    /// state learnt on the old path (INT records) no longer describes the new one.
    fn on_new_path(&mut self) {}
    /// Switch priority (0 = highest) of the data packet starting at byte `seq`.
    fn priority(&self, _seq: u64) -> u8 {
        0
    }
    /// What the flow's data packets carry for this law besides payload and base header: an INT
    /// header (`host.int_header`) for a law that reads INT, a send timestamp (`host.ts_header`)
    /// for a delay law that reads one, none otherwise.
    fn header(&self) -> Header {
        Header::None
    }
    /// Congestion window in bytes. `f64::INFINITY` for purely rate-based algorithms.
    fn cwnd(&self) -> f64;
    /// In slow start (cwnd < ssthresh), for the window laws with one: Linux lets slow start grow
    /// below twice the flight of the last window (`host.linux_window`, transport/host_queue.rs).
    fn in_slow_start(&self) -> bool {
        false
    }
    /// Pacing rate in bits/s. `f64::INFINITY` means "send at line rate".
    fn pacing_rate(&self) -> f64;
    /// The flow's sequence state when the controller takes over, as Linux's `init` callback reads
    /// `snd_una`/`snd_nxt` from the socket. The engine's flows start at 0/0, which every
    /// controller's initial state already assumes, so the engine never calls this; it lets a
    /// controller start mid-stream (the shared test vectors, tests/vectors, do).
    fn on_start(&mut self, _snd_una: u64, _snd_nxt: u64) {}
    /// The controller's internal variables, each reported once as `out(name, value)` (e.g.
    /// `"smoothed_power"`, `"alpha"`): what `[metrics] trace` records over time and `probe`
    /// reads. The names are the declaration: a controller reports the same names every call.
    fn trace(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
    /// One variable of `trace`, read-only, for tests and diagnostics; None when the controller
    /// reports no such variable.
    fn probe(&self, name: &str) -> Option<f64> {
        let mut got = None;
        self.trace(&mut |n, v| {
            if n == name {
                got = Some(v);
            }
        });
        got
    }
    /// A multipath law coupled across its connection's subflows (transport/multipath.rs).
    fn coupled(&mut self) -> Option<&mut dyn Coupled> {
        None
    }
    /// A receiver-driven law: the receiver grants (transport/homa.rs).
    fn receiver_driven(&mut self) -> Option<&mut dyn ReceiverDriven> {
        None
    }
    /// A law that reacts to the circuit state of a reconfigurable DCN (fabric/circuit.rs).
    fn circuit_aware(&mut self) -> Option<&mut dyn CircuitAware> {
        None
    }
}

/// A multipath law coupled across the subflows of its connection (MPTCP-LIA, DCM, XMP, AMP).
pub trait Coupled {
    /// An ACK of a subflow, with every subflow's state (the transport calls this instead of
    /// `on_ack` for a subflow of a multipath connection).
    fn on_subflow_ack(&mut self, ev: &AckEvent, siblings: &Siblings);
    /// The controller of a connection's initial subflow asks to suppress (true) or release
    /// (false) the other subflows (AMP's SSR). None: no opinion.
    fn suppress_siblings(&self) -> Option<bool> {
        None
    }
}

/// A receiver-driven law (Homa): the transport's receiver grants by the policy; the sender side
/// is told of the flow's size and of each grant.
pub trait ReceiverDriven {
    /// How the receiver grants this flow.
    fn grant_policy(&self) -> GrantPolicy;
    /// The flow starts; `size` is its length in bytes (None = long-lived).
    fn on_flow_start(&mut self, size: Option<u64>);
    /// The receiver granted bytes up to `offset`, to be sent at priority `prio`.
    fn on_grant(&mut self, offset: u64, prio: u8);
}

/// A law told when the circuit from its flow's rack to its destination's rack comes up (`true`)
/// or goes down (reTCP; the source ToR notifies, fabric/circuit.rs).
pub trait CircuitAware {
    fn on_circuit(&mut self, now: Time, up: bool);
}

/// How a receiver grants a receiver-driven flow (Homa): the first `rtt_bytes` are sent
/// unscheduled; beyond that the receiver grants to at most `overcommit` incoming messages with
/// the fewest remaining bytes (SRPT), keeping `rtt_bytes` granted ahead of what has arrived, at
/// priorities `first_sched_prio` + rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrantPolicy {
    pub rtt_bytes: u64,
    pub overcommit: u32,
    pub first_sched_prio: u8,
}

/// One algorithm, registered in its own file as `pub const ALGORITHM: Algorithm` (build.rs
/// collects it).
pub struct Algorithm {
    /// The name a scenario gives (`cc.algorithm`).
    pub name: &'static str,
    /// The paper (or RFC) the control law follows.
    pub source: &'static str,
    /// Its parameters: `ParamSet::of::<Params>()` of its `cc_params!` struct.
    pub params: params::ParamSet,
    /// Builds a controller from its parameter table (`null`: none given), checked and read with
    /// `params::check(name, table, prefix)`, and the flow's facts.
    pub build: fn(&serde_json::Value, &str, &CcContext) -> Result<Box<dyn CongestionControl>, ConfigError>,
    pub caps: Caps,
}

/// Static facts about an algorithm that the engine and the front act on.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Caps {
    /// The law reads INT records or the switch-stamped per-hop delay: the engine and the front
    /// refuse to run it with INT off.
    pub needs_int: bool,
    /// How the PowerTCP study's RDMA NIC (`host.nic = "rdma-study"`) runs it: the header it sizes
    /// by the algorithm's CC mode and whether it caps the window at one BDP.
    pub study_nic: StudyNic,
    /// A loss-based law as Linux runs it: on the `tcp` NIC its window counts the bytes a Linux
    /// host would queue before its NIC as in flight when deciding whether the window is the limit
    /// (`transport::host_queue`, Linux's `tcp_is_cwnd_limited`).
    pub linux_host_queue: bool,
    /// Linux reduces its window in fast recovery by proportional rate reduction
    /// (`tcp_cwnd_reduction`, as for every congestion control without its own `cong_control`):
    /// under SACK recovery the transport does too (`transport::prr`, `host.prr`).
    pub prr: bool,
}

/// The study's NIC by CC mode (powertcp-evaluation-burst.cc, `IntHeader::mode`; rdma-hw.cc):
/// HPCC's INT header for CC mode 3 (HPCC, PowerTCP, θ-PowerTCP), the TS header for TIMELY (7),
/// none for DCQCN (1) and DCTCP (8); the window cap (`maxBdp`) for all but DCQCN and TIMELY.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct StudyNic {
    pub header: Header,
    pub window_cap: bool,
}

impl Caps {
    /// No INT; on the study's NIC no extra header and the window cap.
    pub const DEFAULT: Caps =
        Caps { needs_int: false, study_nic: StudyNic { header: Header::None, window_cap: true }, linux_host_queue: false, prr: false };
    /// A loss-based TCP law of Linux (Reno, CUBIC, MPTCP's LIA): the defaults, the host queue and PRR.
    pub const LINUX_LOSS_BASED: Caps = Caps { linux_host_queue: true, prr: true, ..Caps::DEFAULT };
}

impl serde::Serialize for Header {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Header::None => "none",
            Header::Timestamp => "timestamp",
            Header::Int => "int",
        })
    }
}

/// The registered algorithms, sorted by name.
fn registry() -> &'static [&'static Algorithm] {
    static SORTED: std::sync::OnceLock<Vec<&'static Algorithm>> = std::sync::OnceLock::new();
    SORTED.get_or_init(|| {
        let mut all = REGISTERED.to_vec();
        all.sort_by_key(|a| a.name);
        all
    })
}

/// The algorithm named `name`.
pub fn find(name: &str) -> Option<&'static Algorithm> {
    registry().iter().copied().find(|a| a.name == name)
}

/// Names of the algorithms this build knows, sorted.
pub fn algorithms() -> Vec<&'static str> {
    registry().iter().map(|a| a.name).collect()
}

fn unknown(algorithm: &str) -> ConfigError {
    ConfigError::new("cc.algorithm", format!("unknown algorithm '{algorithm}'; allowed: {}", algorithms().join(", ")))
}

/// Build the controller named `algorithm` with parameters `params` (a JSON object whose fields are
/// the algorithm's documented parameters, `null` for none). Errors name `cc.<key>`.
pub fn build(algorithm: &str, params: &serde_json::Value, ctx: &CcContext) -> Result<Box<dyn CongestionControl>, ConfigError> {
    if let Some(path) = algorithm.strip_prefix("plugin:") {
        return plugin::build(path, params, ctx); // a BPF object loaded at run time (cc/plugin)
    }
    let a = find(algorithm).ok_or_else(|| unknown(algorithm))?;
    (a.build)(params, "cc", ctx)
}

/// Check `algorithm`'s parameter table as `build` would, errors named `prefix.<key>`.
pub fn check(algorithm: &str, params: &serde_json::Value, prefix: &str) -> Result<(), ConfigError> {
    let a = find(algorithm).ok_or_else(|| ConfigError::new(&schema_dotted(prefix, "algorithm"), unknown(algorithm).message))?;
    (a.params.check)(algorithm, params, prefix)
}

fn schema_dotted(prefix: &str, key: &str) -> String {
    crate::schema::dotted(prefix, key)
}

/// The static facts of `algorithm` (`Caps::DEFAULT` for a name no file registers).
pub fn caps(algorithm: &str) -> Caps {
    if let Some(path) = algorithm.strip_prefix("plugin:") {
        return plugin::caps(path);
    }
    find(algorithm).map_or(Caps::DEFAULT, |a| a.caps)
}

/// What `describe` tells about one algorithm.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AlgorithmInfo {
    pub name: &'static str,
    /// The paper (or RFC) the control law follows.
    pub source: &'static str,
    /// Every parameter with its default (`null`: derived from the flow's context at start).
    pub params: serde_json::Value,
    /// Parameters that take one of a fixed set of names (e.g. `law`) → the allowed names.
    pub choices: serde_json::Map<String, serde_json::Value>,
    /// Every parameter: key, type, unit, range, default, symbol, description, source.
    pub keys: serde_json::Value,
    /// The cross-field rules: the key each names and its message.
    pub rules: serde_json::Value,
    pub caps: Caps,
}

/// Every algorithm of `algorithms()`, from its registration and its parameters' declaration.
pub fn describe() -> Vec<AlgorithmInfo> {
    registry()
        .iter()
        .map(|a| {
            let d = (a.params.describe)();
            let mut params = serde_json::Map::new();
            let mut choices = serde_json::Map::new();
            for k in d["keys"].as_array().into_iter().flatten() {
                let key = k["key"].as_str().expect("a key has a name").to_string();
                params.insert(key.clone(), k["default"].clone());
                if let Some(c) = k.get("choices") {
                    choices.insert(key, c.clone());
                }
            }
            AlgorithmInfo {
                name: a.name,
                source: a.source,
                params: params.into(),
                choices,
                keys: d["keys"].clone(),
                rules: d["rules"].clone(),
                caps: a.caps,
            }
        })
        .collect()
}

/// Clamp helper shared by the window-based laws.
#[inline]
pub fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

#[cfg(test)]
mod registry_tests {
    use super::reno::tests::ctx;
    use super::*;

    #[test]
    fn every_registered_name_builds_with_defaults_and_rejects_unknown_fields() {
        let names = algorithms();
        assert!(!names.is_empty() && names.windows(2).all(|w| w[0] < w[1]), "sorted, no name twice: {names:?}");
        assert_eq!(names.len(), REGISTERED.len());
        for name in names {
            let cc = build(name, &serde_json::Value::Null, &ctx()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(cc.cwnd() > 0.0 && cc.pacing_rate() > 0.0, "{name}");
            let e = build(name, &serde_json::json!({"bogus_field": 1}), &ctx()).err().unwrap();
            assert_eq!(e.field, "cc.bogus_field");
            assert!(e.message.starts_with(&format!("unknown parameter of {name}; allowed: ")), "{name}: {}", e.message);
        }
        let e = build("powertcpp", &serde_json::Value::Null, &ctx()).err().unwrap();
        assert_eq!(e.field, "cc.algorithm");
        assert!(e.message.contains("allowed: amp, cubic, dcm"), "{}", e.message);
    }
}

#[cfg(test)]
mod param_check_tests {
    use super::reno::tests::ctx;
    use super::*;

    #[test]
    fn out_of_range_parameters_are_refused_with_their_field_and_range() {
        let e = build("powertcp", &serde_json::json!({"gamma": -5.0}), &ctx()).err().expect("refused");
        assert_eq!(e.to_string(), "cc.gamma: must be a number in (0, 1], got -5.0");
        let e = build("homa", &serde_json::json!({"unsched_cutoffs_bytes": [1.0, -2.0]}), &ctx()).err().expect("refused");
        assert_eq!(e.to_string(), "cc.unsched_cutoffs_bytes[1]: must be a number in (0, 1e+12], got -2.0");
        let e = build("homa", &serde_json::json!({"unsched_cutoffs_bytes": [2.0, 1.0]}), &ctx()).err().expect("refused");
        assert_eq!(e.to_string(), "cc.unsched_cutoffs_bytes: must be strictly ascending, got [2.0,1.0]");
        let e = check("powertcp", &serde_json::json!({"gamma": "0.9"}), "experiment.variants[1].cc").err().expect("refused");
        assert_eq!(e.to_string(), "experiment.variants[1].cc.gamma: expected a number in (0, 1], got str '0.9'");
        let e = check("hpcc", &serde_json::json!({"max_stage": 1.5}), "cc").err().expect("refused");
        assert_eq!(e.to_string(), "cc.max_stage: must be an integer in [0, 4294967295], got 1.5");
        let e = check("dctcp", &serde_json::json!({"law": "Linux"}), "cc").err().expect("refused");
        assert_eq!(e.to_string(), "cc.law: unknown value 'Linux'; allowed: rfc, linux");
        assert!(build("powertcp", &serde_json::json!({"gamma": 0.9}), &ctx()).is_ok());
    }

    #[test]
    fn contradicting_parameters_are_refused_naming_the_first() {
        for (alg, params, field) in [
            ("timely", serde_json::json!({"t_low_us": 600.0}), "cc.t_low_us"),
            ("swift", serde_json::json!({"fs_min_cwnd": 200.0}), "cc.fs_min_cwnd"),
            ("poseidon", serde_json::json!({"min_rate_bps": 2e9, "max_rate_bps": 1e9}), "cc.min_rate_bps"),
            ("reno", serde_json::json!({"init_cwnd_mss": 20.0, "max_cwnd_mss": 10.0}), "cc.init_cwnd_mss"),
            ("cubic", serde_json::json!({"init_cwnd_mss": 20.0, "max_cwnd_mss": 10.0}), "cc.init_cwnd_mss"),
            ("tbtcp", serde_json::json!({"qcd_min_cwnd_mss": 20.0, "max_cwnd_mss": 10.0}), "cc.qcd_min_cwnd_mss"),
            ("retcp", serde_json::json!({"init_cwnd_mss": 20.0, "max_cwnd_mss": 10.0}), "cc.init_cwnd_mss"),
            ("dcqcn", serde_json::json!({"law": "paper", "cnp_interval_us": 60.0, "alpha_timer_us": 55.0}), "cc.alpha_timer_us"),
            ("swift", serde_json::json!({"min_cwnd": 5.0, "max_cwnd": 2.0}), "cc.min_cwnd"),
        ] {
            let e = check(alg, &params, "cc").err().unwrap_or_else(|| panic!("{alg} {params} accepted"));
            assert_eq!(e.field, field, "{alg}: {e}");
        }
        // 0 = unbounded: no contradiction
        assert!(check("reno", &serde_json::json!({"init_cwnd_mss": 20.0, "max_cwnd_mss": 0.0}), "cc").is_ok());
    }

    #[test]
    fn the_old_spelling_variant_is_read_as_law() {
        let a = check("dctcp", &serde_json::json!({"variant": "linux"}), "cc");
        assert!(a.is_ok(), "{a:?}");
        let e = check("dctcp", &serde_json::json!({"variant": "nope"}), "cc").err().expect("refused");
        assert_eq!(e.field, "cc.variant");
        let e = check("dctcp", &serde_json::json!({"variant": "rfc", "law": "linux"}), "cc").err().expect("refused");
        assert_eq!(e.to_string(), "cc.variant: is the old name of law; give only law");
    }
}

/// Test helper: `a` equals `b` up to floating-point rounding (relative 1e-9): the expected
/// values are the same formulas evaluated by hand, so only rounding may differ.
#[cfg(test)]
#[track_caller]
pub fn assert_close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

#[cfg(test)]
mod describe_tests {
    use super::*;

    #[test]
    fn describe_lists_every_algorithm_and_its_defaults_build() {
        let all = describe();
        let names: Vec<&str> = all.iter().map(|a| a.name).collect();
        assert_eq!(names, algorithms());
        let ctx = test_ctx(20e-6, 1048.0);
        for a in &all {
            assert!(a.params.is_object() && !a.source.is_empty(), "{}", a.name);
            // the dumped defaults are accepted back unchanged (nulls dropped: "derived")
            let given: serde_json::Map<String, serde_json::Value> =
                a.params.as_object().unwrap().iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
            assert!(build(a.name, &given.into(), &ctx).is_ok(), "{} rejects its own defaults", a.name);
            // every key has a description and the source of its default
            let undocumented: Vec<String> = a
                .keys
                .as_array()
                .unwrap()
                .iter()
                .filter(|k| k["doc"].as_str().unwrap().is_empty() || k["source"].as_str().unwrap().is_empty())
                .map(|k| format!("{}.{}", a.name, k["key"]))
                .collect();
            assert!(undocumented.is_empty(), "{undocumented:?}");
        }
        let p = all.iter().find(|a| a.name == "powertcp").unwrap();
        let laws = p.choices["law"].as_array().unwrap();
        assert!(laws.len() >= 2 && laws.contains(&p.params["law"]), "{laws:?}");
    }

    /// A choice's declared names are ones serde reads.
    #[test]
    fn declared_choices_are_what_serde_reads() {
        let ctx = test_ctx(20e-6, 1048.0);
        for a in describe() {
            for (key, names) in &a.choices {
                for n in names.as_array().unwrap() {
                    assert!(build(a.name, &serde_json::json!({ key.as_str(): n }), &ctx).is_ok(), "{}.{key} = {n}", a.name);
                }
            }
        }
    }
}
