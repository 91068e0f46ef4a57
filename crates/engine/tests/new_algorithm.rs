//! "A new controller is one file" (docs/architecture.md): a copy of this crate with one file
//! added, src/cc/toy.rs, and nothing else of the crate changed, lists the toy algorithm, describes
//! and checks its parameter, and runs a simulation with it.
//!
//! The copy is built with cargo under the `dev-opt` profile in `<target>/toy-algorithm` (its
//! own target directory, kept between runs so the dependencies and unchanged sources are not
//! rebuilt; `CARGO_TARGET_DIR` moves it), offline, from this workspace's Cargo.lock.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The one new file: a controller with a fixed window, its parameter and its registration.
const TOY: &str = r#"//! A toy controller: a fixed window of `window_mss` packets.

use super::params::{cc_params, check, ParamSet, POS_MSS};
use super::{AckEvent, Algorithm, Caps, CongestionControl};
use crate::schema::Type;

cc_params! {
    /// The toy's parameters.
    pub struct Params {
        /// The fixed window (MSS).
        window_mss: f64 = 8.0, Type::Number, POS_MSS,
            unit "MSS", symbol "W", source "ours: a toy";
    }
    rules {}
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "toy",
    source: "a fixed window (crates/engine/tests/new_algorithm.rs)",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| {
        let p: Params = check("toy", p, at)?;
        Ok(Box::new(Toy { cwnd: p.window_mss * c.mss }))
    },
    caps: Caps::DEFAULT,
};

pub struct Toy {
    cwnd: f64,
}

impl CongestionControl for Toy {
    fn on_ack(&mut self, _ev: &AckEvent) {}
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn pacing_rate(&self) -> f64 {
        f64::INFINITY
    }
}
"#;

/// What the copy's own test asserts (test scaffolding, not part of adding the algorithm).
const CHECK: &str = r#"use dccsim_engine::cc;
use dccsim_engine::config::*;

#[test]
fn toy_is_listed_described_checked_and_runs() {
    assert!(cc::algorithms().contains(&"toy"), "{:?}", cc::algorithms());
    let toy = cc::describe().into_iter().find(|a| a.name == "toy").expect("described");
    assert_eq!(toy.params["window_mss"], 8.0);
    assert_eq!(toy.keys[0]["symbol"], "W");
    let e = cc::check("toy", &serde_json::json!({"window_mss": 0.0}), "cc").expect_err("out of range");
    assert_eq!(e.to_string(), "cc.window_mss: must be a number in (0, 1e+06], got 0.0");
    let cfg = Config {
        seed: 1,
        duration_ps: 2_000_000_000,
        topology: Topology::Star { hosts: 3, host_rate_bps: 10_000_000_000, host_delay_ps: 1_000_000 },
        switch: SwitchConfig::default(),
        host: HostConfig::default(),
        cc: CcSpec { algorithm: "toy".into(), params: serde_json::json!({"window_mss": 4.0}) },
        base_rtt_ps: None,
        stop_when_done: true,
        engine: Default::default(),
        flows: vec![FlowSpec::new(0, 2, Some(100_000), 0), FlowSpec::new(1, 2, Some(100_000), 0)],
        metrics: MetricsConfig::default(),
    };
    let r = dccsim_engine::run(&cfg).expect("runs");
    assert_eq!(r.summary.flows_completed, 2);
    println!("TOY-OK");
}
"#;

fn copy_if_changed(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy_if_changed(&e.path(), &to.join(e.file_name()));
        }
    } else {
        write_if_changed(to, &std::fs::read(from).unwrap());
    }
}

/// Unchanged content keeps its modification time, so cargo does not rebuild it.
fn write_if_changed(to: &Path, bytes: &[u8]) {
    if std::fs::read(to).ok().as_deref() != Some(bytes) {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
}

/// Remove what a previous run copied that the crate no longer has.
fn prune(copy: &Path, orig: &Path) {
    for e in std::fs::read_dir(copy).unwrap() {
        let e = e.unwrap();
        let o = orig.join(e.file_name());
        if !o.exists() && e.file_name() != "toy.rs" {
            let p = e.path();
            let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
        } else if o.is_dir() {
            prune(&e.path(), &o);
        }
    }
}

#[test]
fn a_new_algorithm_is_one_file() {
    let krate = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = krate.parent().unwrap().parent().unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let work = target.join("toy-algorithm");
    let copy = work.join("workspace");
    // the workspace: this one's manifest (its profiles) with the engine as its only member
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = manifest.lines().find(|l| l.starts_with("members")).expect("a members line");
    write_if_changed(&copy.join("Cargo.toml"), manifest.replace(members, r#"members = ["crates/engine"]"#).as_bytes());
    write_if_changed(&copy.join("Cargo.lock"), &std::fs::read(root.join("Cargo.lock")).unwrap());
    let engine = copy.join("crates/engine");
    // the crate as it is: its manifest, build script and sources
    for part in ["Cargo.toml", "build.rs", "src"] {
        copy_if_changed(&krate.join(part), &engine.join(part));
    }
    // and the test files its manifest names (`[[test]]`), which cargo looks for when it reads it
    let crate_manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    for name in crate_manifest.split("[[test]]").skip(1).filter_map(|t| t.lines().find_map(|l| l.strip_prefix("name = "))) {
        let file = format!("tests/{}.rs", name.trim_matches('"'));
        copy_if_changed(&krate.join(&file), &engine.join(&file));
    }
    prune(&engine.join("src"), &krate.join("src"));
    // the one new file
    write_if_changed(&engine.join("src/cc/toy.rs"), TOY.as_bytes());
    write_if_changed(&engine.join("tests/toy.rs"), CHECK.as_bytes());

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["test", "--offline", "--profile", "dev-opt", "--test", "toy", "--", "--nocapture"])
        .current_dir(&copy)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .output()
        .expect("cargo runs");
    let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("TOY-OK"), "{text}");
}
