//! Property/fuzz target on the engine's JSON input (issue 27): any text handed to the engine
//! either is refused with one line naming a field, or runs — within an event budget, so never a
//! hang — and passes the end-of-run invariants (`invariants.rs`, forced on here in every build).
//! Never a panic.
//!
//! Inputs come from the engine's own schema: a small valid scenario of every topology kind, then
//! keys of every scenario section (`config::sections()`) and of the chosen algorithm
//! (`cc::describe()`) set to values drawn from each key's type and range — the default, a bound,
//! a value inside, just outside, far outside, of the wrong type — then structural mutations of
//! the JSON tree (a value replaced by a number out of every integer type, a string, null, a
//! nesting deeper than the parser allows; a key removed; an unknown key added), and sometimes of
//! the text itself (cut short, a byte changed, NaN/Infinity, random bytes).
//!
//! proptest drives a "tape" of random words that the generator reads its decisions from; a tape
//! of zeros is the plain valid scenario, so a failure shrinks towards the smallest departure from
//! it, and the failing JSON is printed. CI runs a fixed-seed slice (`cargo test`); more:
//!
//!     PROPTEST_CASES=20000 cargo test --release -p dccsim-engine --test fuzz_config -- --nocapture
//!
//! (`PROPTEST_RNG_SEED=N` picks another seed; docs/engine-api.md.)

use std::panic::{catch_unwind, AssertUnwindSafe};

use dccsim_engine::config::Config;
use proptest::collection::vec;
use proptest::prelude::any;
use proptest::test_runner::{Config as RunnerConfig, RngSeed, TestCaseError, TestError, TestRunner};
use serde_json::{json, Map, Value};

/// Cases in `cargo test` when PROPTEST_CASES is not set: about 10 s in the test profile.
const CI_CASES: u32 = 400;
/// The seed of the CI slice when PROPTEST_RNG_SEED is not set.
const CI_SEED: u64 = 27;
/// Event budget of one run: polls of `POLL_EVENTS` (65 536) events each.
const MAX_POLLS: u32 = 4;

/// The generator's decisions, read from proptest's random words (0 once they run out).
struct Tape<'a> {
    words: &'a [u64],
    at: usize,
}

impl Tape<'_> {
    fn word(&mut self) -> u64 {
        let w = self.words.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        w
    }
    /// 0..n (0 when the tape is exhausted).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.word() % n
        }
    }
    /// True with probability `percent` % (false on an exhausted tape: the plain scenario).
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) >= 100 - percent
    }
    fn pick<'v, T>(&mut self, v: &'v [T]) -> &'v T {
        &v[self.below(v.len() as u64) as usize]
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

const US: u64 = 1_000_000;
const G: u64 = 1_000_000_000;

/// A small valid topology of each kind (hosts, its JSON).
fn topology(t: &mut Tape) -> (u64, Value) {
    let rate = *t.pick(&[25 * G, 10 * G, 100 * G, G]);
    let delay = *t.pick(&[US, 0, 100_000, 5 * US]);
    match t.below(6) {
        0 => {
            let hosts = t.range(2, 8);
            (hosts, json!({"kind": "star", "hosts": hosts, "host_rate_bps": rate, "host_delay_ps": delay}))
        }
        1 => {
            let (left, right) = (t.range(1, 4), t.range(1, 4));
            let v = json!({"kind": "dumbbell", "left": left, "right": right, "host_rate_bps": rate, "host_delay_ps": delay,
                "bottleneck_rate_bps": *t.pick(&[10 * G, rate, 40 * G]), "bottleneck_delay_ps": delay});
            (left + right, v)
        }
        2 => {
            let (pods, tors, aggs, spt) = (t.range(1, 2), t.range(1, 2), t.range(1, 2), t.range(1, 3));
            let v = json!({"kind": "fattree", "pods": pods, "tors_per_pod": tors, "aggs_per_pod": aggs, "cores": aggs * t.range(1, 2),
                "servers_per_tor": spt, "host_rate_bps": rate, "host_delay_ps": delay, "tor_agg_rate_bps": rate,
                "tor_agg_delay_ps": delay, "agg_core_rate_bps": rate, "agg_core_delay_ps": delay});
            (pods * tors * spt, v)
        }
        3 => {
            let (s, r) = (t.range(1, 3), t.range(1, 3));
            let v = json!({"kind": "two-path", "senders": s, "receivers": r, "host_rate_bps": rate, "host_delay_ps": delay,
                "path0_rate_bps": rate, "path0_delay_ps": delay, "path1_rate_bps": *t.pick(&[rate, 10 * G]), "path1_delay_ps": 2 * delay});
            (s + r + 2, v)
        }
        4 => {
            let hosts = t.range(2, 4);
            let mut links: Vec<Value> =
                (0..hosts).map(|h| json!({"a": format!("h{h}"), "b": "s0", "rate_bps": rate, "delay_ps": delay})).collect();
            if t.chance(30) {
                links.push(json!({"a": "s0", "b": "s1", "rate_bps": rate, "delay_ps": delay}));
                // a dangling switch
            }
            (hosts, json!({"kind": "custom", "hosts": hosts, "switches": 2, "links": links}))
        }
        _ => {
            let (tors, spt) = (t.range(2, 3), t.range(1, 2));
            let v = json!({"kind": "rdcn", "tors": tors, "servers_per_tor": spt, "host_rate_bps": rate, "host_delay_ps": delay,
                "packet_rate_bps": rate, "packet_delay_ps": delay,
                "circuit": {"rate_bps": rate, "delay_ps": delay, "day_ps": *t.pick(&[20 * US, 5 * US]), "night_ps": US,
                    "policy": *t.pick(&["exclusive", "both"]), "voq_bytes": *t.pick(&[100_000u64, 2_000, 10_000_000])}});
            (tors * spt, v)
        }
    }
}

/// A value for a schema key (`{"type", "min", "max", "choices", "default", ...}`): usually in
/// range, sometimes a bound, just outside, far outside or of the wrong type.
fn value_for(t: &mut Tape, key: &Value) -> Value {
    let ty = key["type"].as_str().unwrap_or("number");
    let lo = key["min"].as_f64();
    let hi = key["max"].as_f64();
    let integer = matches!(ty, "size" | "time" | "rate" | "count");
    let number = |x: f64| if integer { json!(x.max(0.0).round() as u64) } else { json!(x) };
    let inside = |t: &mut Tape| {
        let (a, b) = (lo.unwrap_or(0.0), hi.unwrap_or(1e12).min(1e15));
        let u = t.below(1 << 20) as f64 / (1u64 << 20) as f64;
        if a > 0.0 && b / a > 1e3 {
            a * (b / a).powf(u) // log-uniform over a wide span
        } else {
            a + (b - a) * u
        }
    };
    match ty {
        "bool" => json!(t.chance(50)),
        "choice" => match key["choices"].as_array() {
            Some(c) if !t.chance(10) => t.pick(c).clone(),
            _ => json!("no-such-choice"),
        },
        "names" => json!([*t.pick(&["*", "sw0->h0", "h0->sw0", "tor0->h0", "nowhere", "s0"])]),
        "numbers" => {
            let n = t.below(4);
            let mut xs: Vec<f64> = (0..n).map(|_| inside(t)).collect();
            if !t.chance(20) {
                xs.sort_by(f64::total_cmp);
            }
            json!(xs)
        }
        "table" | "tables" => Value::Null,
        _ => match t.below(10) {
            0 => lo.map_or(Value::Null, number),
            1 => hi.map_or(Value::Null, number),
            2 => json!(lo.unwrap_or(0.0) - 1.0), // just below (negative for a count: refused)
            3 => hi.map_or(json!(u64::MAX), |h| number(h * 1.5 + 1.0)),
            4 => json!("12us"), // a TOML unit string where the engine takes a number
            _ => number(inside(t)),
        },
    }
}

/// Some keys of a section object set from the schema.
fn fill_section(t: &mut Tape, keys: &[Value], obj: &mut Map<String, Value>, percent: u64) {
    for k in keys {
        let field = k["field"].as_str().or(k["key"].as_str()).unwrap_or_default();
        if t.chance(percent) {
            let v = value_for(t, k);
            if !v.is_null() {
                obj.insert(field.to_string(), v);
            }
        }
    }
}

/// A scenario from the schema: valid on a tape of zeros.
fn scenario(t: &mut Tape) -> Value {
    let (hosts, topo) = topology(t);
    let sections = dccsim_engine::config::sections();
    let section = |name: &str| -> Vec<Value> {
        sections.iter().find(|s| s["name"] == name).and_then(|s| s["keys"].as_array().cloned()).unwrap_or_default()
    };
    let algorithms = dccsim_engine::cc::describe();
    let alg = t.pick(&algorithms);
    let mut params = Map::new();
    fill_section(t, alg.keys.as_array().map_or(&[][..], |v| v.as_slice()), &mut params, 8);
    let mut switch = Map::new();
    fill_section(t, &section("switch"), &mut switch, 8);
    if t.chance(25) {
        let mut pfc = Map::new();
        fill_section(t, &section("switch.pfc"), &mut pfc, 15);
        switch.insert("pfc".into(), Value::Object(pfc));
    }
    if t.chance(30) {
        let kinds: Vec<&str> =
            sections.iter().filter_map(|s| s["name"].as_str()?.strip_prefix("switch.ecn.")).filter(|k| *k != "rule").collect();
        let kind = *t.pick(&kinds);
        let mut ecn = Map::new();
        ecn.insert("kind".into(), json!(kind));
        fill_section(t, &section(&format!("switch.ecn.{kind}")), &mut ecn, 40);
        if kind == "red_by_rate" {
            let mut rule = Map::new();
            fill_section(t, &section("switch.ecn.rule"), &mut rule, 90);
            ecn.insert("rules".into(), json!([rule]));
        }
        switch.insert("ecn".into(), Value::Object(ecn));
    }
    let mut host = Map::new();
    fill_section(t, &section("host"), &mut host, 6);
    let mut metrics = Map::new();
    fill_section(t, &section("metrics"), &mut metrics, 6);
    let n_flows = 1 + t.below(6);
    let flows: Vec<Value> = (0..n_flows)
        .map(|i| {
            let src = t.below(hosts);
            let dst = if t.chance(3) { src } else { (src + 1 + t.below(hosts - 1)) % hosts };
            let mut f = json!({"src": src, "dst": dst, "start_ps": *t.pick(&[0, US, 30 * US])});
            let size = *t.pick(&[Some(100_000u64), Some(1), Some(1_000), Some(20_000), None, Some(3_000_000)]);
            if let Some(s) = size {
                f["size_bytes"] = json!(s);
            }
            if t.chance(8) {
                f["subflows"] = json!(t.range(1, 4));
            }
            if i > 0 && t.chance(8) {
                f["follows"] = json!(t.below(i));
            }
            if i > 0 && t.chance(8) {
                f["after"] = json!([t.below(i)]);
            }
            if t.chance(4) {
                f["closed_loop"] = json!({"shape": 1.05, "mean_bytes": 10_000, "destination": *t.pick(&["same", "random", "other-rack"])});
                f.as_object_mut().unwrap().remove("size_bytes");
            }
            if t.chance(5) {
                let other = t.pick(&algorithms);
                f["cc"] = json!({"algorithm": other.name, "params": {}});
            }
            f
        })
        .collect();
    json!({
        "seed": t.word(),
        "duration_ps": *t.pick(&[500 * US, 100 * US, 2_000 * US, 1]),
        "topology": topo,
        "switch": switch,
        "host": host,
        "cc": {"algorithm": alg.name, "params": params},
        "flows": flows,
        "metrics": metrics,
        "stop_when_done": t.chance(30),
    })
}

/// Every path to a value of the tree (object keys and array indices).
fn paths(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                at.push(json!(k));
                paths(x, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(json!(i));
                paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'v>(v: &'v mut Value, path: &[Value]) -> &'v mut Value {
    path.iter().fold(v, |v, p| match p {
        Value::String(k) => &mut v[k.as_str()],
        _ => &mut v[p.as_u64().unwrap() as usize],
    })
}

/// A value no field expects: every integer type's edges, a fraction, huge, a string, deep nesting.
fn odd_value(t: &mut Tape) -> Value {
    match t.below(14) {
        0 => json!(-1),
        1 => json!(0),
        2 => json!(0.5),
        3 => json!(1e300),
        4 => json!(u64::MAX),
        5 => json!(u32::MAX as u64 + 1),
        6 => json!(i64::MIN),
        7 => json!("x"),
        8 => Value::Null,
        9 => json!(true),
        10 => json!([]),
        11 => json!({}),
        12 => (0..t.range(1, 200)).fold(json!(1), |v, _| json!([v])), // up to 200 levels deep
        _ => json!(u32::MAX),
    }
}

/// Change the tree: replace a value, remove a key, add an unknown key.
fn mutate(t: &mut Tape, v: &mut Value) {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let path = t.pick(&all).clone();
    match t.below(3) {
        0 => *at_path(v, &path) = odd_value(t),
        1 => {
            if let Some((last, parent)) = path.split_last() {
                match (at_path(v, parent), last) {
                    (Value::Object(m), Value::String(k)) => {
                        m.remove(k);
                    }
                    (Value::Array(a), i) => {
                        a.remove(i.as_u64().unwrap() as usize);
                    }
                    _ => {}
                }
            }
        }
        _ => {
            if let Value::Object(m) = at_path(v, &path) {
                m.insert("no_such_key".into(), json!(1));
            }
        }
    }
}

/// Change the text: cut it short, change a byte, a non-JSON number, random bytes.
fn mutate_text(t: &mut Tape, s: String) -> String {
    let mut b = s.into_bytes();
    match t.below(4) {
        0 => b.truncate(t.below(b.len() as u64) as usize),
        1 => {
            let i = t.below(b.len() as u64) as usize;
            b[i] = t.word() as u8;
        }
        2 => {
            let s = String::from_utf8_lossy(&b).into_owned();
            return s.replacen("000", *t.pick(&["NaN", "Infinity", "-Infinity", "1e999"]), 1);
        }
        _ => b = (0..t.below(64)).map(|_| t.word() as u8).collect(),
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// The JSON text of one case.
fn input(words: &[u64]) -> String {
    let mut t = Tape { words, at: 0 };
    let mut v = scenario(&mut t);
    if t.chance(35) {
        for _ in 0..1 + t.below(3) {
            mutate(&mut t, &mut v);
        }
    }
    let text = serde_json::to_string(&v).expect("a JSON value serialises");
    if t.chance(5) {
        mutate_text(&mut t, text)
    } else {
        text
    }
}

#[derive(Default, Debug)]
struct Outcomes {
    refused_reading: u64,
    refused_building: u64,
    ran_to_the_end: u64,
    stopped_by_budget: u64,
}

/// One case: refused with one line naming a field, or run within the budget with the
/// invariants checked. Err: what went wrong.
fn one(text: &str, seen: &mut Outcomes) -> Result<(), String> {
    let one_line = |e: &dyn std::fmt::Display, field: &str| {
        let s = e.to_string();
        if field.is_empty() || s.contains('\n') {
            Err(format!("not one line naming a field: {s:?}"))
        } else {
            Ok(())
        }
    };
    let mut cfg = match Config::from_json(text) {
        Ok(c) => c,
        Err(e) => {
            seen.refused_reading += 1;
            return one_line(&e, &e.field);
        }
    };
    cfg.engine.check = true; // in release too
    let mut polls = 0;
    match dccsim_engine::run_polled(&cfg, &mut |_| {
        polls += 1;
        polls >= MAX_POLLS
    }) {
        Ok((_, complete)) => {
            if complete {
                seen.ran_to_the_end += 1;
            } else {
                seen.stopped_by_budget += 1;
            }
            Ok(())
        }
        Err(e) if e.violation.is_some() => Err(e.to_string()),
        Err(e) => {
            seen.refused_building += 1;
            one_line(&e, &e.field)
        }
    }
}

#[test]
fn any_json_config_is_refused_in_one_line_or_runs_and_keeps_the_invariants() {
    let mut config = RunnerConfig::default(); // reads PROPTEST_CASES and PROPTEST_RNG_SEED
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = CI_CASES;
    }
    if config.rng_seed == RngSeed::Random {
        config.rng_seed = RngSeed::Fixed(CI_SEED);
    }
    config.failure_persistence = None;
    let cases = config.cases;
    let seed = config.rng_seed;
    let mut runner = TestRunner::new(config);
    let seen = std::cell::RefCell::new(Outcomes::default());
    let outcome = runner.run(&vec(any::<u64>(), 0..160), |words| {
        let text = input(&words);
        let mut s = seen.borrow_mut();
        match catch_unwind(AssertUnwindSafe(|| one(&text, &mut s))) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(why)) => Err(TestCaseError::fail(format!("{why}\ninput: {text}"))),
            Err(p) => {
                let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                Err(TestCaseError::fail(format!("panic: {}\ninput: {text}", msg.unwrap_or_default())))
            }
        }
    });
    let s = seen.into_inner();
    eprintln!("fuzz_config: {cases} cases, seed {seed}: {s:?} (shrinking steps included)");
    if let Err(e) = outcome {
        match e {
            TestError::Fail(why, _) => panic!("minimal failing case: {why}"),
            TestError::Abort(why) => panic!("aborted: {why}"),
        }
    }
    // the generator reaches both sides: it is no use if everything is refused or everything runs
    let total = s.refused_reading + s.refused_building + s.ran_to_the_end + s.stopped_by_budget;
    assert!(s.ran_to_the_end + s.stopped_by_budget > total / 5, "too few inputs ran: {s:?}");
    assert!(s.refused_reading + s.refused_building > total / 10, "too few inputs refused: {s:?}");
}
