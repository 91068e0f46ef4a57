//! The partitioned schedule (`sim::partition`, docs/parallel.md) on every golden config: the
//! schedule a conservative parallel engine would execute, run on one core, compared with the
//! sequential engine's stored digests (golden/expected.json).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dccsim_engine::config::Topology;
use dccsim_engine::sim::partition::{run_emulated, Plan};
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

/// Partitioned runs known to differ from the sequential digests: powertcp-incast-255 at 2
/// partitions differs in its flow series only (first at 706 us, flow 75); unexplained, see
/// docs/parallel.md. Any other difference fails, and so does this one disappearing (update the
/// list and the document).
fn known_different(parts: u32, name: &str) -> bool {
    parts == 2 && name.starts_with("powertcp-incast-255--")
}

#[test]
fn partitioned_schedules_give_the_sequential_digests() {
    let (configs, expected) = golden();
    let mut report = Vec::new();
    let mut unexpected = Vec::new();
    let (mut same_n, mut refused_n) = (0, 0);
    for parts in [2u32, 3] {
        for path in &configs {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some((d, prof)) = run(path, parts) else {
                refused_n += 1;
                continue;
            };
            assert_eq!(prof.violations, 0, "{name}: an interaction between partitions sooner than the lookahead");
            let same = d == expected[&name];
            same_n += same as u32;
            if same == known_different(parts, &name) {
                unexpected.push(format!("{parts} {name}: same = {same}"));
            }
            report.push(format!(
                "{parts} {name}: {} (lookahead {} ps, {} messages, {} windows)",
                if same { "same" } else { "DIFFERS" },
                prof.lookahead_ps,
                prof.messages,
                prof.windows
            ));
        }
    }
    println!("{}\n{same_n} same, {} differ, {refused_n} refused", report.join("\n"), report.len() as u32 - same_n);
    assert!(unexpected.is_empty(), "unexpected:\n{}", unexpected.join("\n"));
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
