//! One property per algorithm, each on a micro-scenario (a star or a fan-in with one bottleneck),
//! with packet conservation checked in every run. Run in release mode:
//! `cargo test --release -p dccsim-engine --test properties`.

mod common;
use dccsim_engine::config::*;
use dccsim_engine::time::{secs, MS, US};
use serde_json::json;

fn run(cfg: &Config) -> dccsim_engine::Results {
    let r = dccsim_engine::run(cfg).unwrap();
    common::assert_conserved(&r);
    r
}

/// Goodput (bits/s) of every flow over [from, to] from the sampled cumulative bytes_acked.
fn goodputs(r: &dccsim_engine::Results, from: u64, to: u64) -> Vec<f64> {
    let fs = &r.flow_series;
    let n = r.flows.flow_id.len();
    let (mut a, mut b) = (vec![None; n], vec![None; n]);
    for i in 0..fs.time_ps.len() {
        let f = fs.flow_id[i] as usize;
        if fs.time_ps[i] >= from && a[f].is_none() {
            a[f] = Some((fs.time_ps[i], fs.bytes_acked[i]));
        }
        if fs.time_ps[i] <= to {
            b[f] = Some((fs.time_ps[i], fs.bytes_acked[i]));
        }
    }
    (0..n)
        .map(|f| {
            let ((ta, ba), (tb, bb)) = (a[f].unwrap(), b[f].unwrap());
            (bb - ba) as f64 * 8.0 / secs(tb - ta)
        })
        .collect()
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Sampled queue of the first sampled port over [from, to).
fn queue_samples(r: &dccsim_engine::Results, from: u64, to: u64) -> Vec<f64> {
    let ps = &r.port_series;
    (0..ps.time_ps.len()).filter(|&i| ps.time_ps[i] >= from && ps.time_ps[i] < to).map(|i| ps.queue_bytes[i] as f64).collect()
}

fn star_with_pkts(n: u32, rate: u64, delay: u64, alg: &str, params: serde_json::Value, payload: u32, header: u32) -> Config {
    let mut cfg = common::star(n, rate, delay, alg, params);
    cfg.host = HostConfig { payload_bytes: payload, header_bytes: header, int_header_bytes: 0, ack_bytes: 40, ..HostConfig::default() };
    cfg.switch.int_enabled = false;
    cfg
}

/// Swift holds the delay it sees (the RTT) near its target. Two flows on a 100 Gb/s star
/// (1 µs links, base RTT ≈ 4.3 µs): each window is ≈ 150 packets, above fs_max_cwnd = 100, so
/// flow scaling is 0 and the target is base 25 µs + 1 hop · 1 µs = 26 µs. RTT = base RTT +
/// bottleneck queueing (the only queue). Tolerance ±10 % of the target on the time average over
/// [2, 4] ms: Swift's decrease happens once per RTT in proportion to the excess delay and its
/// increase is 1 packet per RTT per flow (≈ 0.1 µs of queue at 100 Gb/s), so the steady ripple
/// is a few per cent of 26 µs; 10 % leaves room for that and for the one-packet serialisation
/// terms the base RTT contains.
#[test]
fn swift_holds_the_delay_near_its_target() {
    let mut cfg = common::star(2, 100_000_000_000, US, "swift", json!({}));
    cfg.duration_ps = 4 * MS;
    let r = run(&cfg);
    let base = secs(r.flows.base_rtt_ps[0] as u64);
    let q = common::mean_queue(&r, 2 * MS, 4 * MS);
    let rtt = base + q * 8.0 / 100e9;
    let target = 26e-6;
    eprintln!("swift: mean RTT {:.2} µs, target {:.2} µs", rtt * 1e6, target * 1e6);
    assert!((rtt - target).abs() <= 0.10 * target, "mean RTT {:.2} µs vs target {:.2} µs", rtt * 1e6, target * 1e6);
    let g = goodputs(&r, 2 * MS, 4 * MS);
    assert!(g.iter().sum::<f64>() > 0.9 * 100e9 * 1000.0 / 1090.0, "utilisation: {g:?}");
}

/// Poseidon holds its MPD near T(rate). Four flows on a 100 Gb/s star: the fair rate is 25 Gb/s,
/// max_rate = host line rate 100 Gb/s, min_rate = 10 Mb/s, so T(25G) = 40·ln 4/ln 10⁴ + 2 =
/// 8.02 µs. With one congested hop the MPD equals that port's queueing delay, queue·8/rate.
/// Tolerance ±25 % on the mean over [2, 4] ms: T depends on each flow's instantaneous rate
/// (cwnd·MTU/RTT), which swings by several per cent around 25 G per RTT (m = 0.25 moves a quarter of
/// the log distance per RTT), and the slope dT/d ln(rate) = 40/9.21 = 4.3 µs makes a ±10 % rate
/// swing a ±0.4 µs target swing, plus the queue's packet-size steps (0.09 µs each).
#[test]
fn poseidon_holds_mpd_near_the_target_of_its_rate() {
    let mut cfg = common::star(4, 100_000_000_000, US, "poseidon", json!({}));
    cfg.duration_ps = 4 * MS;
    let r = run(&cfg);
    let mpd = common::mean_queue(&r, 2 * MS, 4 * MS) * 8.0 / 100e9;
    let t = (40.0 * (100e9f64 / 25e9).ln() / (1e4f64).ln() + 2.0) * 1e-6;
    eprintln!("poseidon: mean MPD {:.2} µs, T(25 Gb/s) {:.2} µs", mpd * 1e6, t * 1e6);
    assert!((mpd - t).abs() <= 0.25 * t, "mean MPD {:.2} µs vs T(25 Gb/s) {:.2} µs", mpd * 1e6, t * 1e6);
    let g = goodputs(&r, 2 * MS, 4 * MS);
    assert!(jain(&g) > 0.95, "{g:?}");
}

/// DCQCN converges to a fair share: 4 flows on a 25 Gb/s star with RED marking (Kmin 5 KB,
/// Kmax 200 KB, Pmax 1 %, the DCQCN paper's setting), 20 ms. Jain ≥ 0.95 over the last 10 ms
/// (each flow's goodput): DCQCN is rate-based, cuts at most once per 50 µs CNP interval and
/// increases on a 900 µs timer (PowerTCP's parameter set), so it needs ms to equalise; 0.95 means
/// no flow more than ≈ 20 % from the mean. Measured: Jain 1.000, but at 3.12 Gb/s each, i.e. half
/// the link: all four start at line rate, α = 1 halves them at every CNP, and the 900 µs timer
/// with R_AI = 50 Mb/s / R_HAI = 100 Mb/s climbs back by ~0.1 Gb/s per ms (equal, but slow).
#[test]
fn dcqcn_converges_to_a_fair_share() {
    assert_fair_share("dcqcn", Ecn::Red(RedEcn { kmin_bytes: 5_000, kmax_bytes: 200_000, pmax: 0.01, steps: 0 }));
}

/// TIMELY converges to a fair share: same 4-flow star, 20 ms, Jain ≥ 0.95 over the last 10 ms.
///
/// Does not hold, and not because of the code: `cc::timely` follows Algorithm 1 line by line
/// (unit tests in cc/timely.rs). Its increase is additive *per completion event*, and completion
/// events arrive in proportion to the flow's rate (here one per ACK; in the paper one per
/// 16–64 KB segment, equally rate-proportional), while its decrease is multiplicative on the
/// shared RTT gradient. Every allocation with a stable queue is then a fixed point: Zhu et al.
/// (CoNEXT'16, "ECN or Delay") prove TIMELY has infinitely many fixed points and no fairness
/// guarantee. Measured: seed 1, Jain 0.833 (5.2 / 7.9 / 8.1 / 1.7 Gb/s); with staggered starts
/// (37 µs·seed apart) Jain 0.73 / 0.26 / 0.50 for seeds 1 / 2 / 3, unchanged over [10, 20],
/// [20, 40] and [40, 60] ms, with flows parked near 0.1 Gb/s for 60 ms; powertcp-fairness shows
/// Jain down to 0.68 for TIMELY.
#[test]
#[ignore = "TIMELY has no unique fair fixed point (Zhu et al. CoNEXT'16): 4 flows on 25G settle at Jain 0.83 (seed 1), 0.26-0.73 with staggered starts, unchanged for 60 ms; see the doc comment"]
fn timely_converges_to_a_fair_share() {
    assert_fair_share("timely", Ecn::None);
}

/// 4 long flows of `alg` on a 25 Gb/s star for 20 ms: Jain ≥ 0.95 over the last 10 ms.
fn assert_fair_share(alg: &str, ecn: Ecn) {
    let mut cfg = common::star(4, 25_000_000_000, US, alg, json!({}));
    cfg.switch.ecn = ecn;
    cfg.duration_ps = 20 * MS;
    cfg.metrics.interval_ps = 10 * US;
    let r = run(&cfg);
    let g = goodputs(&r, 10 * MS, 20 * MS);
    eprintln!("{alg}: Jain {:.3}: {g:?}", jain(&g));
    assert!(jain(&g) >= 0.95, "Jain {:.3}: {g:?}", jain(&g));
}

/// TBTCP's steady queue ≈ α·N packets (TBTCP Fig. 4/5) for N = 50 and 100, α = 0.1, under the
/// ideal marking curve: the `tbtcp-queue` setup (40 Gb/s star, 40 µs links, 160 µs RTT,
/// BDP 800 KB, 1500-B packets). Shortened to 30 ms (the experiment runs 60 ms) with the queue
/// averaged over the last 15 ms, to stay within the test budget; the queue settles within
/// ~10 ms (slow start ends at the first mark). Tolerance as the experiment's: ±30 % of α·N plus
/// 2 packets (the curve marks by probability, so a few packets of ripple are inherent).
#[test]
fn tbtcp_steady_queue_is_alpha_times_n_packets() {
    for n in [50u32, 100] {
        let mut cfg = star_with_pkts(n, 40_000_000_000, 40 * US, "tbtcp", json!({ "rai_alpha": 0.1 }), 1460, 40);
        cfg.switch = SwitchConfig {
            buffer_bytes: 16 * 1024 * 1024,
            dt_alpha: 1.0,
            ecn: Ecn::Curve(CurveEcn { bdp_bytes: 800_000, tmin_bytes: 0, pmax: 0.5 }),
            ..cfg.switch
        };
        cfg.host.rto_ps = 10 * MS;
        cfg.duration_ps = 30 * MS;
        cfg.metrics.interval_ps = 10 * US;
        cfg.metrics.flows = false;
        let r = run(&cfg);
        let q = common::mean_queue(&r, 15 * MS, 30 * MS) / 1500.0;
        let want = 0.1 * n as f64;
        eprintln!("tbtcp N = {n}: mean queue {q:.1} packets, α·N = {want}");
        assert!((q - want).abs() <= 0.3 * want + 2.0, "N = {n}: mean queue {q:.1} packets vs α·N = {want}");
    }
}

/// DCTCP's queue oscillates around K: 10 long flows on a 10 Gb/s star (10 µs links), step
/// marking at K = 65 packets of 1500 B. Over [10, 20] ms the mean queue is within ±25 % of K
/// (DCTCP's sawtooth spans about ±(N·MSS)/2 around K here and its mean sits slightly above or
/// below K depending on α), and the queue is above K in 10–90 % of the samples (it crosses K
/// rather than sitting on one side).
#[test]
fn dctcp_queue_oscillates_around_k() {
    let k = 65.0 * 1500.0;
    let mut cfg = star_with_pkts(10, 10_000_000_000, 10 * US, "dctcp", json!({}), 1460, 40);
    cfg.switch.ecn = Ecn::Step(StepEcn { k_bytes: k as u64 });
    cfg.host.rto_ps = 10 * MS;
    cfg.duration_ps = 20 * MS;
    cfg.metrics.interval_ps = 10 * US;
    cfg.metrics.flows = false;
    let r = run(&cfg);
    let q = queue_samples(&r, 10 * MS, 20 * MS);
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    let above = q.iter().filter(|&&x| x > k).count() as f64 / q.len() as f64;
    eprintln!("dctcp: mean queue {:.1} packets (K = 65), above K in {:.0} % of samples", mean / 1500.0, above * 100.0);
    assert!((mean - k).abs() <= 0.25 * k, "mean queue {:.1} packets vs K = 65", mean / 1500.0);
    assert!((0.1..=0.9).contains(&above), "queue above K in {:.0} % of samples", above * 100.0);
}

/// TBTCP on a switch chip's 8-step RED fitted to the curve with scaling factor S (TBTCP §6,
/// Table 1: Kmin 138 KB, Kmax 550 KB for BDP 180 KB; S = 1 → Pmax 0.7, S = 4 → Pmax 0.2, and the
/// sender cuts S MSS per mark), 100 flows on 10 Gb/s with a 150 µs RTT as the paper's testbed.
/// Property: the staircase holds the queue inside its marking range [Kmin, Kmax] at full
/// throughput for both S (utilisation ≥ 99% over the second half: no underflow, no overflow).
/// The paper's testbed also reports 7.7 Gb/s at S = 1 rising with S; the simulator keeps the
/// link full at both (measured 100%), so that difference is not reproduced (docs/experiments.md).
#[test]
fn tbtcp_on_eight_step_red_keeps_the_queue_in_the_marking_range() {
    for (s, pmax) in [(1.0, 0.7), (4.0, 0.2)] {
        let mut cfg = star_with_pkts(100, 10_000_000_000, 37_500_000, "tbtcp", json!({ "rai_alpha": 0.1, "s": s }), 1460, 40);
        cfg.switch = SwitchConfig {
            buffer_bytes: 9 * 1024 * 1024,
            dt_alpha: 1.0,
            ecn: Ecn::Red(RedEcn { kmin_bytes: 138_000, kmax_bytes: 550_000, pmax, steps: 8 }),
            ..cfg.switch
        };
        cfg.host.rto_ps = 10 * MS;
        cfg.duration_ps = 60 * MS;
        cfg.metrics.interval_ps = 10 * US;
        cfg.metrics.flows = false;
        let r = run(&cfg);
        let ps = &r.port_series;
        let i0 = ps.time_ps.iter().position(|&t| t >= 30 * MS).unwrap();
        let i1 = ps.time_ps.len() - 1;
        let u = (ps.tx_bytes[i1] - ps.tx_bytes[i0]) as f64 * 8.0 / secs(ps.time_ps[i1] - ps.time_ps[i0]) / 10e9;
        let q = common::mean_queue(&r, 30 * MS, 60 * MS);
        eprintln!("tbtcp 8-step RED, S = {s}: utilisation {u:.3}, mean queue {q:.0} B");
        assert!(u >= 0.99, "S = {s}: utilisation {u:.3}");
        assert!((138_000.0..=550_000.0).contains(&q), "S = {s}: mean queue {q:.0} B outside [Kmin, Kmax]");
    }
}
