//! The scaling model of the partitioned engine (docs/parallel.md): run an engine config once on the
//! sequential engine (timed: the cost of an event) and once on the partitioned schedule per
//! partition count (`sim::partition::run_emulated`: per-window work of every partition, barriers,
//! messages), measure a barrier between two threads on this machine, and print the modelled
//! speed-up. It is a model from measured counts, not a parallel measurement.
//!
//! cargo run --release -p dccsim-engine --example partition_model -- CONFIG.json 2 4 8 16 32 64

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use dccsim_engine::sim::partition::run_emulated;
use dccsim_engine::{run, Config};

/// Cost of one crossing of a spinning barrier by two threads (ns, the minimum of 5 blocks of
/// 20 000 crossings: the machine is shared, so the minimum is the least disturbed).
fn barrier_ns() -> f64 {
    let gen = Arc::new(AtomicU64::new(0));
    let g2 = gen.clone();
    const N: u64 = 100_000;
    let other = std::thread::spawn(move || {
        for i in 0..N {
            while g2.load(Ordering::Acquire) != 2 * i + 1 {
                std::hint::spin_loop();
            }
            g2.store(2 * i + 2, Ordering::Release);
        }
    });
    let mut best = f64::MAX;
    let mut t = Instant::now();
    for i in 0..N {
        gen.store(2 * i + 1, Ordering::Release);
        while gen.load(Ordering::Acquire) != 2 * i + 2 {
            std::hint::spin_loop();
        }
        if (i + 1) % 20_000 == 0 {
            best = best.min(t.elapsed().as_nanos() as f64 / 20_000.0);
            t = Instant::now();
        }
    }
    other.join().unwrap();
    best
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: partition_model CONFIG.json [PARTS ...]");
        std::process::exit(2);
    };
    let parts: Vec<u32> = args[1..].iter().map(|a| a.parse().expect("a partition count")).collect();
    let text = std::fs::read_to_string(path).expect("readable config");
    let cfg = Config::from_json(&text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let t = Instant::now();
    let seq = run(&cfg).expect("valid config");
    let secs = t.elapsed().as_secs_f64();
    let events = seq.summary.events as f64;
    let event_ns = secs * 1e9 / events;
    let bar = barrier_ns();
    println!("# sequential: {:.3} s engine, {} events, {event_ns:.1} ns/event; measured 2-thread barrier {bar:.0} ns", secs, events);
    println!("# modelled speed-up (event cost = sequential mean; message = one event at its receiver)");
    println!("parts lookahead_us cut_links windows messages critical/total same_results late  S(b=measured) S(b=1us)");
    for p in parts {
        match run_emulated(&cfg, p, "parts") {
            Err(e) => println!("{p:>5} refused: {e}"),
            Ok((r, prof)) => {
                let total: u64 = prof.events.iter().sum::<u64>() + prof.global_events;
                let same = r.summary.events == seq.summary.events
                    && r.flows.end_ps == seq.flows.end_ps
                    && r.flows.bytes_acked == seq.flows.bytes_acked;
                println!(
                    "{p:>5} {:>12.3} {:>9} {:>7} {:>8} {:>14.3} {:>12} {:>4} {:>14.2} {:>8.2}",
                    prof.lookahead_ps as f64 / 1e6,
                    prof.cut_links,
                    prof.windows,
                    prof.messages,
                    (prof.critical_events + prof.global_events) as f64 / total as f64,
                    same,
                    prof.late,
                    prof.model(event_ns, bar, event_ns),
                    prof.model(event_ns, 1000.0, event_ns),
                );
            }
        }
    }
}
