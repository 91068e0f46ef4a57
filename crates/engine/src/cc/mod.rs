//! Congestion control: one small trait, one module per algorithm.
//!
//! An algorithm is a pure state machine. The engine (transport) owns sequence numbers, RTT
//! samples, loss detection and timers; it hands the algorithm an event record and reads back a
//! window (bytes) and a pacing rate (bits/s). No algorithm reaches into engine internals, so every
//! control law can be unit-tested with hand-built events against its paper's equations.

use crate::config::{ConfigError, IntBytesMode};
use crate::packet::IntHop;
use crate::time::Time;

pub mod amp;
pub mod coupled;
pub mod cubic;
pub mod dcm;
pub mod dcqcn;
pub mod dctcp;
pub mod dctcp_rdma;
pub mod homa;
pub mod hpcc;
pub mod int_history;
pub mod mptcp_lia;
pub mod plugin;
pub mod poseidon;
pub mod power_meter;
pub mod powertcp;
pub mod reno;
pub mod retcp;
pub mod swift;
pub mod tbtcp;
pub mod theta_powertcp;
pub mod timely;
pub mod xmp;

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
/// telemetry`). The study's simulator sizes its IntHeader by CC mode the same way
/// (powertcp-evaluation-burst.cc, `IntHeader::mode`: NORMAL for HPCC/PowerTCP/θ-PowerTCP (CC mode
/// 3), TS for TIMELY (7), NONE for DCQCN (1) and DCTCP (8); int-header.cc `GetStaticSize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Telemetry {
    /// No extra header (window/ECN laws, Homa).
    None,
    /// A send timestamp the receiver echoes: `host.ts_header` bytes.
    Timestamp,
    /// INT hop records: `host.int_header` bytes (when INT is on).
    Int,
}

/// A congestion-control algorithm: owns only its own state.
pub trait CongestionControl: Send {
    /// Called for every ACK (including duplicates, with `acked_bytes == 0`).
    fn on_ack(&mut self, ev: &AckEvent);
    /// An ACK of a subflow of a multipath connection, with every subflow's state: coupled laws
    /// override this; an uncoupled (single-path) law ignores the siblings.
    fn on_subflow_ack(&mut self, ev: &AckEvent, _siblings: &Siblings) {
        self.on_ack(ev)
    }
    /// Multipath: the controller of a connection's initial subflow asks to suppress (true) or
    /// release (false) the other subflows (AMP's SSR). None: no opinion.
    fn suppress_siblings(&self) -> Option<bool> {
        None
    }
    /// The retransmission timer fired (the transport goes back to snd_una).
    fn on_timeout(&mut self, _now: Time) {}
    /// A NACK (out-of-order arrival at the receiver) arrived; the transport goes back N.
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
    /// Reconfigurable DCN: the source ToR notifies that the circuit from the flow's rack to its
    /// destination's rack came up (`true`) or went down (fabric/circuit.rs; reTCP reacts).
    fn on_circuit(&mut self, _now: Time, _up: bool) {}
    /// The flow starts; `size` is its length in bytes (None = long-lived).
    fn on_flow_start(&mut self, _size: Option<u64>) {}
    /// The connection's next message goes to another destination (a rotating incast's): per-hop
    /// state learnt on the old path (INT records) no longer describes the new one.
    fn on_new_path(&mut self) {}
    /// Switch priority (0 = highest) of the data packet starting at byte `seq`.
    fn priority(&self, _seq: u64) -> u8 {
        0
    }
    /// The law reads INT records or the switch-stamped per-hop delay (PowerTCP, HPCC, Poseidon):
    /// the engine refuses to run it with INT off.
    fn needs_int(&self) -> bool {
        false
    }
    /// What the flow's data packets carry for this law besides payload and base header: an INT
    /// header (`host.int_header`) for a law that reads INT, none otherwise. Delay-based laws
    /// that read a send timestamp say `Timestamp` (`host.ts_header`).
    fn telemetry(&self) -> Telemetry {
        if self.needs_int() {
            Telemetry::Int
        } else {
            Telemetry::None
        }
    }
    /// For a receiver-driven transport (Homa): how the receiver grants. None = sender-driven.
    fn grant_policy(&self) -> Option<GrantPolicy> {
        None
    }
    /// The receiver granted bytes up to `offset`, to be sent at priority `prio`.
    fn on_grant(&mut self, _offset: u64, _prio: u8) {}
    /// Congestion window in bytes. `f64::INFINITY` for purely rate-based algorithms.
    fn cwnd(&self) -> f64;
    /// Pacing rate in bits/s. `f64::INFINITY` means "send at line rate".
    fn pacing_rate(&self) -> f64;
    /// The flow's sequence state when the controller takes over, as Linux's `init` callback reads
    /// `snd_una`/`snd_nxt` from the socket. The engine's flows start at 0/0, which every
    /// controller's initial state already assumes, so the engine never calls this; it lets a
    /// controller start mid-stream (the shared test vectors, tests/vectors, do).
    fn on_start(&mut self, _snd_una: u64, _snd_nxt: u64) {}
    /// A named internal quantity, read-only, for tests and diagnostics (e.g. `"smoothed_power"`,
    /// `"alpha"`). None when the controller has no such quantity.
    fn probe(&self, _name: &str) -> Option<f64> {
        None
    }
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

/// Builds a controller from its name (for error paths), its parameter object and the flow's facts.
type Factory = fn(&str, serde_json::Value, &CcContext) -> Result<Box<dyn CongestionControl>, ConfigError>;

/// The algorithms this build knows: adding one is its module plus one line here.
const REGISTRY: &[(&str, Factory)] = &[
    ("powertcp", |n, p, c| Ok(Box::new(powertcp::PowerTcp::new(parse(n, p)?, c)))),
    ("theta-powertcp", |n, p, c| Ok(Box::new(theta_powertcp::ThetaPowerTcp::new(parse(n, p)?, c)))),
    ("hpcc", |n, p, c| Ok(Box::new(hpcc::Hpcc::new(parse(n, p)?, c)))),
    ("homa", |n, p, c| Ok(Box::new(homa::Homa::new(parse(n, p)?, c)?))),
    ("reno", |n, p, c| Ok(Box::new(reno::Reno::new(parse(n, p)?, c)))),
    ("dctcp", |n, p, c| Ok(Box::new(dctcp::Dctcp::new(parse(n, p)?, c)))),
    ("dctcp-rdma", |n, p, c| Ok(Box::new(dctcp_rdma::DctcpRdma::new(parse(n, p)?, c)))),
    ("dctcp-rai", |n, p, c| Ok(Box::new(tbtcp::dctcp_rai(parse(n, p)?, c)))),
    ("tbtcp", |n, p, c| Ok(Box::new(tbtcp::Tbtcp::new(parse(n, p)?, c)))),
    ("cubic", |n, p, c| Ok(Box::new(cubic::Cubic::new(parse(n, p)?, c)))),
    ("dcqcn", |n, p, c| Ok(Box::new(dcqcn::Dcqcn::new(parse(n, p)?, c)?))),
    ("timely", |n, p, c| Ok(Box::new(timely::Timely::new(parse(n, p)?, c)?))),
    ("swift", |n, p, c| Ok(Box::new(swift::Swift::new(parse(n, p)?, c)))),
    ("poseidon", |n, p, c| Ok(Box::new(poseidon::Poseidon::new(parse(n, p)?, c)))),
    ("retcp", |n, p, c| Ok(Box::new(retcp::Retcp::new(parse(n, p)?, c)))),
    ("mptcp-lia", |n, p, c| Ok(Box::new(mptcp_lia::MptcpLia::new(parse(n, p)?, c)))),
    ("dcm", |n, p, c| Ok(Box::new(dcm::Dcm::new(parse(n, p)?, c)))),
    ("xmp", |n, p, c| Ok(Box::new(xmp::Xmp::new(parse(n, p)?, c)))),
    ("amp", |n, p, c| Ok(Box::new(amp::Amp::new(parse(n, p)?, c)))),
];

/// Names of the algorithms this build knows, in registry order.
pub fn algorithms() -> Vec<&'static str> {
    REGISTRY.iter().map(|(name, _)| *name).collect()
}

/// Build the controller named `algorithm` with parameters `params` (a JSON object whose fields are
/// the algorithm's documented parameters; unknown fields are an error naming the field).
pub fn build(algorithm: &str, params: &serde_json::Value, ctx: &CcContext) -> Result<Box<dyn CongestionControl>, ConfigError> {
    if let Some(path) = algorithm.strip_prefix("plugin:") {
        return plugin::build(path, params, ctx); // a BPF object loaded at run time (cc/plugin)
    }
    let params = if params.is_null() { serde_json::json!({}) } else { params.clone() };
    check_non_negative(algorithm, &params)?;
    match REGISTRY.iter().find(|(name, _)| *name == algorithm) {
        Some((name, make)) => make(name, params, ctx),
        None => Err(ConfigError::new("cc.algorithm", format!("unknown algorithm '{algorithm}'; allowed: {}", algorithms().join(", ")))),
    }
}

/// What `describe` tells about one algorithm.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AlgorithmInfo {
    pub name: &'static str,
    /// The paper (or RFC) the control law follows.
    pub source: &'static str,
    /// Every parameter with its default (`null`: derived from the flow's context at start).
    pub params: serde_json::Value,
    /// Parameters that take one of a fixed set of names (e.g. `variant`) → the allowed names.
    pub choices: serde_json::Map<String, serde_json::Value>,
}

/// Every algorithm of `algorithms()` with its parameters, their defaults and its source, taken from
/// the algorithms' own parameter types (their `Default` and `Serialize`), so the listing cannot
/// drift from what `build` accepts.
pub fn describe() -> Vec<AlgorithmInfo> {
    fn info<T: Default + serde::Serialize + serde::de::DeserializeOwned>(name: &'static str, source: &'static str) -> AlgorithmInfo {
        let params = serde_json::to_value(T::default()).expect("parameter defaults serialise");
        let mut choices = serde_json::Map::new();
        for (key, value) in params.as_object().into_iter().flatten() {
            if value.is_string() {
                // serde names the allowed values in its "unknown variant" error; ask it with a
                // value no parameter accepts rather than keeping a second list here.
                let err = serde_json::from_value::<T>(serde_json::json!({ key.as_str(): "\u{1}" })).err();
                let text = err.map(|e| e.to_string()).unwrap_or_default();
                if let Some(list) = text.split("expected ").nth(1) {
                    let names: Vec<serde_json::Value> = list.split('`').skip(1).step_by(2).map(|s| s.into()).collect();
                    choices.insert(key.clone(), names.into());
                }
            }
        }
        AlgorithmInfo { name, source, params, choices }
    }
    let all = vec![
        info::<powertcp::Params>("powertcp", "PowerTCP: Addanki et al., NSDI'22, §3.3 Algorithm 1"),
        info::<theta_powertcp::Params>("theta-powertcp", "θ-PowerTCP: Addanki et al., NSDI'22, §3.5 Algorithm 2"),
        info::<hpcc::Params>("hpcc", "HPCC: Li et al., SIGCOMM'19, Algorithm 1"),
        info::<homa::Params>("homa", "Homa: Montazeri et al., SIGCOMM'18 (sender side; receiver grants in the transport)"),
        info::<reno::RenoParams>("reno", "TCP NewReno: RFC 5681, RFC 6582"),
        info::<dctcp::DctcpParams>("dctcp", "DCTCP: RFC 8257"),
        info::<dctcp_rdma::Params>(
            "dctcp-rdma",
            "rate-based DCTCP of the PowerTCP/HPCC ns-3 RDMA NIC: rdma-hw.cc HandleAckDctcp (CC mode 8)",
        ),
        info::<tbtcp::DctcpRaiParams>("dctcp-rai", "DCTCP with RAI: TBTCP paper §5"),
        info::<tbtcp::TbtcpParams>("tbtcp", "TBTCP (tiny-buffer TCP): §3, §4.3, §6"),
        info::<cubic::CubicParams>("cubic", "CUBIC: RFC 9438"),
        info::<dcqcn::DcqcnParams>(
            "dcqcn",
            "DCQCN: HPCC ns-3 rdma-hw.cc Mellanox reaction point (variant mlx); Zhu et al., SIGCOMM'15, §3.1 (variant paper)",
        ),
        info::<timely::TimelyParams>("timely", "TIMELY: Mittal et al., SIGCOMM'15, Algorithm 1"),
        info::<swift::SwiftParams>("swift", "Swift: Kumar et al., SIGCOMM'20, Algorithm 1"),
        info::<poseidon::PoseidonParams>("poseidon", "Poseidon: Wang et al., NSDI'23, Algorithms 1–2"),
        info::<retcp::RetcpParams>("retcp", "reTCP: Mukerjee et al., NSDI'20, §4 (circuit-state window jumps)"),
        info::<mptcp_lia::Params>("mptcp-lia", "MPTCP Linked Increases: RFC 6356 §3 (ECN as loss, RFC 3168; β option)"),
        info::<dcm::Params>("dcm", "DCM: AMP paper (Kheirkhah et al., IFIP Networking'19) §2, Table 1: LIA increase, DCTCP decrease"),
        info::<xmp::Params>("xmp", "XMP: Cao et al., CoNEXT'13, as AMP paper §2 Eq. (3)"),
        info::<amp::Params>(
            "amp",
            "AMP: Kheirkhah et al., IFIP Networking'19, §4.2 Algorithm 1 (defaults paper; code = mkheirkhah/amp mp-tcp-socket-base.cc)",
        ),
    ];
    debug_assert!(all.iter().map(|a| a.name).eq(algorithms()));
    all
}

/// Every parameter of every algorithm is a non-negative quantity (gain, rate, window, time,
/// count); refuse a negative number anywhere in the table, naming it. (JSON has no NaN or
/// infinity, so finite is given; the front also checks each parameter's range.)
fn check_non_negative(algorithm: &str, params: &serde_json::Value) -> Result<(), ConfigError> {
    fn walk(v: &serde_json::Value, path: &str) -> Result<(), ConfigError> {
        match v {
            serde_json::Value::Number(n) if n.as_f64().is_some_and(|x| x < 0.0) => {
                Err(ConfigError::new(path, format!("must be >= 0, got {n}")))
            }
            serde_json::Value::Array(a) => a.iter().enumerate().try_for_each(|(i, x)| walk(x, &format!("{path}[{i}]"))),
            serde_json::Value::Object(o) => o.iter().try_for_each(|(k, x)| walk(x, &format!("{path}.{k}"))),
            _ => Ok(()),
        }
    }
    walk(params, &format!("cc.{algorithm}"))
}

/// Parse an algorithm's parameter table, naming the offending field on error.
pub fn parse<T: serde::de::DeserializeOwned>(algorithm: &str, params: serde_json::Value) -> Result<T, ConfigError> {
    serde_json::from_value(params).map_err(|e| ConfigError::new(&format!("cc.{algorithm}"), e.to_string()))
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
        assert_eq!(algorithms().len(), 19);
        for name in algorithms() {
            let cc = build(name, &serde_json::Value::Null, &ctx()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(cc.cwnd() > 0.0 && cc.pacing_rate() > 0.0, "{name}");
            let e = build(name, &serde_json::json!({"bogus_field": 1}), &ctx()).err().unwrap();
            assert_eq!(e.field, format!("cc.{name}"));
            assert!(e.message.contains("bogus_field"), "{name}: {}", e.message);
        }
        let e = build("powertcpp", &serde_json::Value::Null, &ctx()).err().unwrap();
        assert_eq!(e.field, "cc.algorithm");
        assert!(e.message.contains("allowed: powertcp, theta-powertcp"), "{}", e.message);
    }
}

#[cfg(test)]
mod param_check_tests {
    use super::reno::tests::ctx;
    use super::*;

    #[test]
    fn negative_parameters_are_refused_with_their_field() {
        let e = build("powertcp", &serde_json::json!({"gamma": -5.0}), &ctx()).err().expect("refused");
        assert_eq!(e.to_string(), "cc.powertcp.gamma: must be >= 0, got -5.0");
        let e = build("homa", &serde_json::json!({"unsched_cutoffs_bytes": [1.0, -2.0]}), &ctx()).err().expect("refused");
        assert!(e.to_string().starts_with("cc.homa.unsched_cutoffs_bytes[1]: must be >= 0"), "{e}");
        assert!(build("powertcp", &serde_json::json!({"gamma": 0.9}), &ctx()).is_ok());
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
        }
        let p = all.iter().find(|a| a.name == "powertcp").unwrap();
        let variants = p.choices["variant"].as_array().unwrap();
        assert!(variants.len() >= 2 && variants.contains(&p.params["variant"]), "{variants:?}");
    }
}
