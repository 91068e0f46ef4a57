//! The shared congestion-control test vectors (tests/vectors/cc_vectors.json, format in
//! docs/testbed.md "Test vectors") against the simulator's controllers.
//!
//! The same file checks the Linux testbed's fixed-point arithmetic (bpf/test/test_cc_math.c), so
//! passing both means the simulator and the kernel run the same laws. The vectors encode the
//! Linux controllers' law, so every algorithm is built with `law = "linux"` (the paper's law
//! is the default and is not what the vectors describe); its parameters come from the case.
//!
//! Mapping of a vector step onto the engine's per-packet `AckEvent`s:
//! - Sequence numbers are shifted by `SEQ_SHIFT` (2^32): some cases start with snd_una below zero
//!   (the initial flight is larger than the initial snd_nxt), and the engine's sequence space is
//!   u64. Only differences and comparisons matter, so the shift changes nothing else.
//! - The case's initial snd_una/snd_nxt reach the controller through `on_start` (Linux's `init`
//!   reads them from the socket; the engine's own flows start at 0/0).
//! - Times: seconds → ps, rounded. INT fields are passed at full width (the vectors' `tx_bytes`
//!   and timestamps cross 2^32 in one case; the engine's counters are 64-bit).
//! - TBTCP: a step acknowledging k packets of which m > 0 were CE-marked becomes m ECE events
//!   (the step's bytes on the first). Under the law a marked ACK never grows the window, and m
//!   successive one-MSS cuts give exactly the one m-MSS cut of the vector law (the floor test
//!   `cwnd > f + cut` composes). An unmarked step is one event.
//!
//! Tolerances are the file's own (relative 1e-3 + 1 byte on windows, 1e-3 + 1e-5 on the smoothed
//! power, 1e-4 on α): they were set for the fixed-point C code. The controllers here are f64 and
//! land far inside them (the worst errors are printed), but the file is the contract both
//! implementations are held to, so it is what the test enforces.

use dccsim_engine::cc::{build, AckEvent, CcContext, CongestionControl};
use dccsim_engine::packet::IntHop;
use dccsim_engine::time::Time;
use serde_json::{json, Value};

const SEQ_SHIFT: f64 = 4_294_967_296.0;

struct Tol {
    cwnd_rel: f64,
    cwnd_abs: f64,
    power_rel: f64,
    power_abs: f64,
    alpha_abs: f64,
}

#[derive(Default)]
struct Tally {
    checks: usize,
    failures: Vec<String>,
    worst_cwnd_rel: f64,
    worst_power: f64,
    worst_alpha: f64,
}

impl Tally {
    fn check(&mut self, what: &str, at: &str, got: f64, want: f64, rel: f64, abs: f64) {
        self.checks += 1;
        let err = (got - want).abs();
        match what {
            "cwnd" if want > 0.0 => self.worst_cwnd_rel = self.worst_cwnd_rel.max(err / want),
            "smoothed_power" => self.worst_power = self.worst_power.max(err),
            "alpha" => self.worst_alpha = self.worst_alpha.max(err),
            _ => {}
        }
        if !(err <= rel * want.abs() + abs) {
            self.failures.push(format!("{at}: {what} = {got}, expected {want}"));
        }
    }
}

/// A controller's context on the Linux testbed: TCP segments of `mss` plus 66 B of headers (TCP/IP
/// with timestamps and Ethernet), τ = the path's RTT, a bytes-sent INT counter.
fn testbed_ctx(host_rate_bps: f64, tau: f64, mss: f64) -> CcContext {
    CcContext {
        host_rate_bps,
        base_rtt: tau,
        path_rtt: tau,
        mss,
        wire_bytes: mss + 66.0,
        int_bytes: dccsim_engine::config::IntBytesMode::Tx,
    }
}

fn vectors() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/cc_vectors.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["format"], 1, "unknown vector format");
    doc
}

fn tolerance(doc: &Value) -> Tol {
    let t = &doc["tolerance"];
    let f = |k: &str| t[k].as_f64().unwrap_or_else(|| panic!("tolerance.{k} missing"));
    Tol {
        cwnd_rel: f("cwnd_rel"),
        cwnd_abs: f("cwnd_abs_bytes"),
        power_rel: f("power_rel"),
        power_abs: f("power_abs"),
        alpha_abs: f("alpha_abs"),
    }
}

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("field '{k}' missing in {v}"))
}

fn seq(v: &Value, k: &str) -> u64 {
    let s = num(v, k) + SEQ_SHIFT;
    assert!(s >= 0.0 && s.fract() == 0.0, "sequence number {k} = {} does not map", num(v, k));
    s as u64
}

fn ps(seconds: f64) -> Time {
    (seconds * 1e12).round() as Time
}

fn event<'a>(now: Time, acked: u64, una: u64, nxt: u64, rtt: Time, ecn: bool, int: &'a [IntHop]) -> AckEvent<'a> {
    AckEvent {
        now,
        acked_bytes: acked,
        seq: una,
        snd_una: una,
        snd_nxt: nxt,
        rtt,
        ecn,
        int,
        max_hop_delay: 0,
        hops: int.len() as u8,
        cwnd_limited: true,
    }
}

/// All cases of one algorithm; returns the tally.
fn run_algorithm(alg: &str) -> Tally {
    let doc = vectors();
    let tol = tolerance(&doc);
    let cases = doc["algorithms"][alg].as_array().unwrap_or_else(|| panic!("no '{alg}' cases in the vectors"));
    assert!(!cases.is_empty());
    let mut t = Tally::default();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let (p, init, steps) = (&case["params"], &case["init"], case["steps"].as_array().unwrap());
        let mss = num(p, "mss_bytes");
        let mut cc: Box<dyn CongestionControl>;
        match alg {
            "powertcp" | "theta-powertcp" => {
                let (tau, bdp) = (num(p, "tau_s"), num(p, "host_bdp_bytes"));
                let ctx = testbed_ctx(bdp * 8.0 / tau, tau, mss);
                let params = json!({"law": "linux", "gamma": num(p, "gamma"), "beta_bytes": num(p, "beta_bytes"),
                                    "power_floor": num(p, "power_floor"), "init_cwnd_bytes": num(init, "cwnd_bytes")});
                cc = build(alg, &params, &ctx).unwrap();
                // PowerTCP's state starts from snd_nxt only; the initial snd_una is not part of it.
                let nxt = seq(init, "snd_nxt");
                cc.on_start(nxt, nxt);
                assert_eq!(cc.probe("smoothed_power"), Some(num(init, "smoothed_power")), "{alg}/{name}: initial power");
            }
            "dctcp" => {
                let ctx = testbed_ctx(1e9, 100e-6, mss);
                assert_eq!(num(p, "min_cwnd_bytes"), 2.0 * mss, "the engine's DCTCP floor is 2 MSS");
                let params = json!({"law": "linux", "g": num(p, "g"), "init_alpha": num(init, "alpha"),
                                    "init_cwnd_mss": num(init, "cwnd_bytes") / mss});
                cc = build(alg, &params, &ctx).unwrap();
                cc.on_start(seq(init, "snd_una"), seq(init, "snd_nxt"));
            }
            "tbtcp" => {
                let ctx = testbed_ctx(1e9, 100e-6, mss);
                let params = json!({"law": "linux", "s": num(p, "scale"), "rai_alpha": num(p, "alpha"),
                                    "qcd_min_cwnd_mss": num(p, "min_cwnd_bytes") / mss,
                                    "init_cwnd_mss": num(init, "cwnd_bytes") / mss});
                cc = build(alg, &params, &ctx).unwrap();
                // the vector's flow starts with nothing acknowledged: snd_una = 0 before the shift
                cc.on_start(SEQ_SHIFT as u64, seq(init, "snd_nxt"));
            }
            other => panic!("unknown algorithm '{other}' in the vectors"),
        }
        assert!((cc.cwnd() - num(init, "cwnd_bytes")).abs() < 1e-6, "{alg}/{name}: initial window {}", cc.cwnd());
        for (i, s) in steps.iter().enumerate() {
            let at = format!("{alg}/{name} step {i}");
            let (una, nxt) = (seq(s, "una"), seq(s, "nxt"));
            match alg {
                "powertcp" => {
                    let hops: Vec<IntHop> = s["hops"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|h| IntHop {
                            qlen: num(h, "qlen_bytes") as u64,
                            tx_bytes: num(h, "tx_bytes") as u64,
                            ts: ps(num(h, "ts_s")),
                            rate_bps: num(h, "rate_bps") as u64,
                        })
                        .collect();
                    let now = hops.iter().map(|h| h.ts).max().unwrap_or(0);
                    cc.on_ack(&event(now, mss as u64, una, nxt, 0, false, &hops));
                }
                "theta-powertcp" => {
                    cc.on_ack(&event(ps(num(s, "now_s")), mss as u64, una, nxt, ps(num(s, "rtt_s")), false, &[]));
                }
                "dctcp" => {
                    let ece = s["ece"].as_bool().unwrap();
                    cc.on_ack(&event(0, num(s, "acked_bytes") as u64, una, nxt, 0, ece, &[]));
                }
                _ => {
                    let (acked, marked) = (num(s, "acked_bytes") as u64, num(s, "marked_packets") as u64);
                    if marked == 0 {
                        cc.on_ack(&event(0, acked, una, nxt, 0, false, &[]));
                    }
                    for k in 0..marked {
                        cc.on_ack(&event(0, if k == 0 { acked } else { 0 }, una, nxt, 0, true, &[]));
                    }
                }
            }
            t.check("cwnd", &at, cc.cwnd(), num(s, "expect_cwnd_bytes"), tol.cwnd_rel, tol.cwnd_abs);
            if let Some(want) = s["expect_smoothed_power"].as_f64() {
                let got = cc.probe("smoothed_power").expect("controller exposes smoothed_power");
                t.check("smoothed_power", &at, got, want, tol.power_rel, tol.power_abs);
            }
            if let Some(want) = s["expect_alpha"].as_f64() {
                let got = cc.probe("alpha").expect("controller exposes alpha");
                t.check("alpha", &at, got, want, 0.0, tol.alpha_abs);
            }
        }
    }
    eprintln!(
        "{alg}: {} cases, {} checks, worst cwnd error {:.1e} relative, worst power error {:.1e}, worst alpha error {:.1e}",
        cases.len(),
        t.checks,
        t.worst_cwnd_rel,
        t.worst_power,
        t.worst_alpha
    );
    t
}

fn assert_all_match(alg: &str) {
    let t = run_algorithm(alg);
    assert!(t.checks > 0);
    assert!(t.failures.is_empty(), "{} of {} checks failed:\n{}", t.failures.len(), t.checks, t.failures.join("\n"));
}

#[test]
fn powertcp_matches_the_vectors() {
    assert_all_match("powertcp");
}

#[test]
fn theta_powertcp_matches_the_vectors() {
    assert_all_match("theta-powertcp");
}

#[test]
fn dctcp_matches_the_vectors() {
    assert_all_match("dctcp");
}

#[test]
fn tbtcp_matches_the_vectors() {
    assert_all_match("tbtcp");
}

#[test]
fn every_algorithm_in_the_file_is_tested() {
    let doc = vectors();
    let mut algs: Vec<&str> = doc["algorithms"].as_object().unwrap().keys().map(|k| k.as_str()).collect();
    algs.sort();
    assert_eq!(algs, ["dctcp", "powertcp", "tbtcp", "theta-powertcp"]);
}

/// The test has teeth: the paper's law (the default variant) differs from the Linux law the
/// vectors encode, and a 0.5% change of the expected windows is caught.
#[test]
fn a_wrong_law_or_a_perturbed_window_fails() {
    let doc = vectors();
    let tol = tolerance(&doc);
    let case = &doc["algorithms"]["tbtcp"][3]; // burst-of-marks-50pct-floor: the round floor matters
    let (p, init) = (&case["params"], &case["init"]);
    let mss = num(p, "mss_bytes");
    let ctx = testbed_ctx(1e9, 100e-6, mss);
    let mut fails = [0usize; 2];
    for (which, variant) in ["paper", "linux"].iter().enumerate() {
        let params = json!({"law": variant, "s": num(p, "scale"), "rai_alpha": num(p, "alpha"),
                            "init_cwnd_mss": num(init, "cwnd_bytes") / mss});
        let mut cc = build("tbtcp", &params, &ctx).unwrap();
        cc.on_start(SEQ_SHIFT as u64, seq(init, "snd_nxt"));
        for s in case["steps"].as_array().unwrap() {
            let (una, nxt) = (seq(s, "una"), seq(s, "nxt"));
            let (acked, marked) = (num(s, "acked_bytes") as u64, num(s, "marked_packets") as u64);
            if marked == 0 {
                cc.on_ack(&event(0, acked, una, nxt, 0, false, &[]));
            }
            for k in 0..marked {
                cc.on_ack(&event(0, if k == 0 { acked } else { 0 }, una, nxt, 0, true, &[]));
            }
            let want = num(s, "expect_cwnd_bytes");
            let err = (cc.cwnd() - want).abs();
            if err > tol.cwnd_rel * want + tol.cwnd_abs {
                fails[which] += 1;
            }
            // the same window against a 0.5% larger expectation
            if which == 1 {
                let want = want * 1.005;
                assert!((cc.cwnd() - want).abs() > tol.cwnd_rel * want + tol.cwnd_abs);
            }
        }
    }
    assert!(fails[0] > 0, "the paper's QCD must not pass the Linux vectors");
    assert_eq!(fails[1], 0);
}
