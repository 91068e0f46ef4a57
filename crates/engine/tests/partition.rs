//! The partitioned schedule (`sim::partition`, docs/parallel.md) on every golden config: the
//! schedule a conservative parallel engine would execute, run on one core, compared with the
//! sequential engine's stored digests (golden/expected.json).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dccsim_engine::sim::partition::run_emulated;
use dccsim_engine::Config;
use serde_json::Value;

#[path = "common/digest.rs"]
mod digest;
use digest::digest;

fn golden() -> (Vec<PathBuf>, BTreeMap<String, Value>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden");
    let mut configs: Vec<PathBuf> = std::fs::read_dir(dir.join("configs"))
        .expect("golden configs")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    configs.sort();
    let expected = serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    (configs, expected)
}

/// One config at `parts` partitions: None when the partitioned engine refuses it.
fn run(path: &Path, parts: u32) -> Option<(Value, dccsim_engine::sim::partition::Profile)> {
    let cfg = Config::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    match run_emulated(&cfg, parts, "engine.threads") {
        Ok((r, prof)) => Some((digest(&r), prof)),
        Err(e) => {
            assert_eq!(e.field, "engine.threads", "{}: {e:?}", path.display());
            None
        }
    }
}

#[test]
fn one_partition_is_the_sequential_engine() {
    let (configs, expected) = golden();
    for path in &configs {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (d, prof) = run(path, 1).expect("one partition runs everything");
        assert_eq!(prof.messages, 0);
        assert_eq!(&d, &expected[&name], "{name}");
    }
}

#[test]
fn partitioned_schedules_against_the_sequential_digests() {
    let (configs, expected) = golden();
    let mut report = Vec::new();
    for parts in [2u32, 3] {
        for path in &configs {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some((d, prof)) = run(path, parts) else {
                report.push(format!("{parts} {name}: refused"));
                continue;
            };
            let same = d == expected[&name];
            report.push(format!(
                "{parts} {name}: {} (lookahead {} ps, {} messages, {} windows, violations {})",
                if same { "same" } else { "DIFFERS" },
                prof.lookahead_ps,
                prof.messages,
                prof.windows,
                prof.violations
            ));
        }
    }
    println!("{}", report.join("\n"));
}

#[test]
#[ignore]
fn debug_one() {
    let path = std::env::var("CFG").unwrap();
    let parts: u32 = std::env::var("PARTS").unwrap().parse().unwrap();
    let (_, expected) = golden();
    let name = Path::new(&path).file_name().unwrap().to_string_lossy().into_owned();
    let r = run(Path::new(&path), parts).expect("runs");
    println!("same: {} {:?}", r.0 == expected[&name], r.1);
    println!("have {}\nwant {}", r.0, expected[&name]);
}

#[test]
#[ignore]
fn debug_series() {
    let path = std::env::var("CFG").unwrap();
    let parts: u32 = std::env::var("PARTS").unwrap().parse().unwrap();
    let cfg = Config::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let a = dccsim_engine::run(&cfg).unwrap();
    let (b, _) = run_emulated(&cfg, parts, "x").unwrap();
    let (x, y) = (&a.flow_series, &b.flow_series);
    println!("len {} {}", x.time_ps.len(), y.time_ps.len());
    for i in 0..x.time_ps.len().min(y.time_ps.len()) {
        let r1 = (x.time_ps[i], x.flow_id[i], x.cwnd_bytes[i], x.rate_bps[i], x.bytes_acked[i]);
        let r2 = (y.time_ps[i], y.flow_id[i], y.cwnd_bytes[i], y.rate_bps[i], y.bytes_acked[i]);
        if r1 != r2 {
            println!("row {i}: seq {r1:?} part {r2:?}");
            break;
        }
    }
}
