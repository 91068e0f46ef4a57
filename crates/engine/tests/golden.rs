//! Golden results: every variant of every catalog experiment (configs written by
//! tests/golden_configs.py) must give exactly the stored summary counters and the stored digest of
//! every result column. A refactor that changes any event order changes some digest. Every run
//! also checks the end-of-run invariants (`[engine] check`, invariants.rs).
//!
//! After an intentional change of results: `DCCSIM_UPDATE_GOLDEN=1 cargo test --release -p
//! dccsim-engine --test golden` rewrites `golden/expected.json`; say why in the commit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "common/digest.rs"]
mod digest;
use digest::digest;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

fn configs() -> Vec<PathBuf> {
    let mut configs: Vec<PathBuf> = std::fs::read_dir(dir().join("configs"))
        .expect("golden configs (python tests/golden_configs.py)")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    configs.sort();
    assert!(configs.len() >= 70, "expected every catalog variant, found {}", configs.len());
    configs
}

/// Every golden config run by `run` (with the end-of-run invariants on), by file name.
fn digests(run: impl Fn(&dccsim_engine::Config) -> Result<dccsim_engine::Results, dccsim_engine::Error>) -> BTreeMap<String, Value> {
    let mut got = BTreeMap::new();
    for path in &configs() {
        let text = std::fs::read_to_string(path).unwrap();
        let mut cfg = dccsim_engine::Config::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        cfg.engine.check = true; // every catalog variant keeps the end-of-run invariants, in any profile
        let r = run(&cfg).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        got.insert(path.file_name().unwrap().to_string_lossy().into_owned(), digest(&r));
    }
    got
}

fn expected() -> BTreeMap<String, Value> {
    serde_json::from_str(&std::fs::read_to_string(dir().join("expected.json")).expect("golden/expected.json")).unwrap()
}

#[test]
fn every_catalog_experiment_gives_its_golden_results() {
    let got = digests(dccsim_engine::run);
    if std::env::var_os("DCCSIM_UPDATE_GOLDEN").is_some() {
        std::fs::write(dir().join("expected.json"), serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
        return;
    }
    compare(&got, &expected());
}

/// The deep look-ahead (`sim/lookahead.rs`, on by itself only on fabrics of 4096 ports or more)
/// prefetches and nothing else: forced on every catalog config it must give the same digests.
#[test]
fn the_deep_lookahead_changes_no_result() {
    let got = digests(|cfg| Ok(dccsim_engine::sim::Simulator::new(cfg)?.with_deep_lookahead().run()?));
    compare(&got, &expected());
}

fn compare(got: &BTreeMap<String, Value>, expected: &BTreeMap<String, Value>) {
    let mut differ = Vec::new();
    for (name, want) in expected {
        match got.get(name) {
            None => differ.push(format!("{name}: no config")),
            Some(have) if have != want => differ.push(format!("{name}:\n  want {want}\n  have {have}")),
            _ => {}
        }
    }
    for name in got.keys().filter(|k| !expected.contains_key(*k)) {
        differ.push(format!("{name}: not in expected.json"));
    }
    assert!(differ.is_empty(), "{} of {} golden runs differ:\n{}", differ.len(), got.len(), differ.join("\n"));
}
