//! The partitioned schedule (`sim::partition`, docs/parallel.md) on every golden config: each
//! partition runs its whole window before the next one starts, and the digests must be the
//! one-queue engine's stored ones (golden/expected.json) — the canonical event order
//! (`sim::order`) makes the order of every entity's events independent of the cut.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dccsim_engine::config::Topology;
use dccsim_engine::sim::partition::{run_emulated, Plan, Profile};
use dccsim_engine::topo::Network;
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

/// One config at `parts` partitions, with the end-of-run invariants on: None when the
/// partitioned engine refuses it (naming the field).
fn run(path: &Path, parts: u32) -> Option<(Value, Profile)> {
    let mut cfg = Config::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    cfg.engine.check = true;
    match run_emulated(&cfg, parts, "engine.threads") {
        Ok((r, prof)) => Some((digest(&r), prof)),
        Err(e) => {
            assert_eq!(e.field, "engine.threads", "{}: {e}", path.display());
            None
        }
    }
}

#[test]
fn partitioned_schedules_give_the_one_queue_digests() {
    let (configs, expected) = golden();
    let mut report = Vec::new();
    let mut differ = Vec::new();
    let mut ran = BTreeMap::new();
    for parts in [1u32, 2, 3] {
        for path in &configs {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some((d, prof)) = run(path, parts) else {
                assert!(parts > 1, "{name}: one partition runs everything");
                continue;
            };
            assert_eq!(prof.late, 0, "{name}: an event handed over after it was due");
            *ran.entry(parts).or_insert(0) += 1;
            if d != expected[&name] {
                differ.push(format!("{parts} {name}"));
            }
            report.push(format!(
                "{parts} {name}: lookahead {} ps, {} handed over, {} windows",
                prof.lookahead_ps, prof.messages, prof.windows
            ));
        }
    }
    println!("{}\nruns per partition count: {ran:?}", report.join("\n"));
    assert!(differ.is_empty(), "{} partitioned runs differ from the golden digests:\n{}", differ.len(), differ.join("\n"));
    // the test must cut a good part of the catalog (FatTrees, multi-switch fabrics): a plan that
    // refused everything would pass vacuously
    assert_eq!(ran[&1], configs.len());
    assert!(ran[&2] >= 30 && ran[&3] >= 25, "too few configs cut: {ran:?}");
}

#[test]
fn the_plan_cuts_a_fattree_by_pods_and_the_cut_links_delay_is_the_lookahead() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/configs/bench-fattree-perm--powertcp.json");
    let cfg = Config::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    let Topology::Fattree { pods, tors_per_pod, agg_core_delay_ps, tor_agg_delay_ps, .. } = cfg.topology else { panic!("a FatTree") };
    let net = Network::build(&cfg.topology).unwrap();
    let h = net.n_hosts as usize;
    // two partitions: the first half of the pods (and their hosts) and the second; only
    // aggregation–core links are cut
    let plan = Plan::new(&net, 2, "engine.threads").unwrap();
    assert!(plan.of_node[..h / 2].iter().all(|&p| p == 0) && plan.of_node[h / 2..h].iter().all(|&p| p == 1));
    assert_eq!(plan.lookahead, agg_core_delay_ps);
    // one partition per ToR: ToR–aggregation links are cut too
    let plan = Plan::new(&net, pods * tors_per_pod, "engine.threads").unwrap();
    assert_eq!(plan.lookahead, agg_core_delay_ps.min(tor_agg_delay_ps));
    // more partitions than edge switches: refused, naming the field
    let e = Plan::new(&net, pods * tors_per_pod + 1, "engine.threads").unwrap_err();
    assert_eq!(e.field, "engine.threads");
    assert!(e.message.contains(&format!("1 to {}", pods * tors_per_pod)), "{}", e.message);
}

/// One config on `threads` OS threads (`[engine] threads`), invariants on, with the deep
/// look-ahead forced on if `deep` (it runs on every thread of a large fabric): None when refused
/// (the error must name `engine.threads`).
fn run_threads(path: &Path, threads: u32, deep: bool) -> Option<Value> {
    let mut cfg = Config::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    cfg.engine.check = true;
    cfg.engine.threads = threads;
    let run = |cfg: &Config| -> Result<_, dccsim_engine::Error> {
        let sim = dccsim_engine::sim::Simulator::new(cfg)?;
        Ok(if deep { sim.with_deep_lookahead() } else { sim }.run()?)
    };
    match run(&cfg) {
        Ok(r) => Some(digest(&r)),
        Err(e) => {
            assert_eq!(e.field, "engine.threads", "{}: {e}", path.display());
            assert!(!e.message.contains('\n'), "one line: {}", e.message);
            None
        }
    }
}

/// `DCCSIM_THREADS_ONLY=substring` limits the threaded test to the configs whose name has it
/// (a quick check while working; the full test runs every config). Two threads run with the deep
/// look-ahead forced on, three without.
#[test]
fn threaded_runs_give_the_one_thread_digests() {
    let (configs, expected) = golden();
    let only = std::env::var("DCCSIM_THREADS_ONLY").unwrap_or_default();
    let mut differ = Vec::new();
    let mut ran = BTreeMap::new();
    for threads in [2u32, 3] {
        for path in configs.iter().filter(|p| p.to_string_lossy().contains(&only)) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some(d) = run_threads(path, threads, threads == 2) else { continue };
            ran.entry(threads).or_insert_with(Vec::new).push(name.clone());
            if d != expected[&name] {
                differ.push(format!("{threads} {name}:\n  want {}\n  have {d}", expected[&name]));
            }
        }
    }
    println!("runs per thread count: {:?}", ran.iter().map(|(k, v)| (k, v.len())).collect::<Vec<_>>());
    assert!(differ.is_empty(), "{} threaded runs differ from the golden digests:\n{}", differ.len(), differ.join("\n"));
    if only.is_empty() {
        // the FatTrees and multi-switch fabrics must be cut: a refusal of everything would pass
        assert!(ran[&2].len() >= 30 && ran[&3].len() >= 25, "too few configs cut: {ran:?}");
    }
}

/// `bench-fattree-perm`'s 256-host FatTree with 600 finite flows of 1 KB–1 MB between random
/// hosts, started over the first 300 µs, and 8 long-lived flows, stopping when done: the last
/// completion falls inside a window, in one partition, while the others have flows finishing
/// around it.
fn stop_when_done_config() -> Config {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/configs/bench-fattree-perm--powertcp.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let mut flows = Vec::new();
    for i in 0..608 {
        let src = next(256);
        let dst = (src + 1 + next(255)) % 256;
        let size = if i < 8 { Value::Null } else { Value::from(1000 * (1 + next(1000))) };
        flows.push(serde_json::json!({"cc": null, "dst": dst, "src": src, "size_bytes": size, "start_ps": next(300_000_000)}));
    }
    v["flows"] = Value::Array(flows);
    v["stop_when_done"] = Value::Bool(true);
    v["duration_ps"] = Value::from(20_000_000_000u64);
    let mut cfg = Config::from_json(&v.to_string()).unwrap();
    cfg.engine.check = true;
    cfg
}

#[test]
fn a_run_that_stops_when_done_stops_at_the_same_event_on_every_cut_and_thread_count() {
    let cfg = stop_when_done_config();
    let one = dccsim_engine::run(&cfg).unwrap();
    // it stopped at its last completion, before the cap, with every finite flow done
    let last = *one.flows.end_ps.iter().max().unwrap() as u64;
    assert_eq!(one.summary.sim_time_ps, last);
    assert!(last < cfg.duration_ps);
    assert_eq!(one.summary.flows_completed, 600);
    let want = digest(&one);
    for parts in [2u32, 3, 8] {
        let (r, prof) = run_emulated(&cfg, parts, "engine.threads").unwrap();
        assert_eq!(prof.late, 0);
        assert_eq!(digest(&r), want, "{parts} partitions");
    }
    for threads in [2u32, 3, 8] {
        let mut c = cfg.clone();
        c.engine.threads = threads;
        assert_eq!(digest(&dccsim_engine::run(&c).unwrap()), want, "{threads} threads");
    }
}
