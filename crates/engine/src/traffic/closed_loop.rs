//! Closed-loop long-flow sources (AMP §5.3: "The flow size is determined by a Pareto
//! distribution with shape parameter of 1.5 and mean of 192MB. Once a long flow ends, a new one
//! begins immediately."). A scenario flow with `closed_loop` is the first flow of its sender's
//! source: its size is drawn from Pareto(shape, mean), and when it completes the same sender
//! starts the next one (a new connection: its own controller from the initial window, the same
//! subflow count and controller spec), to the same destination or to a new uniformly random one.
//!
//! The engine expands every source into a chain of flows before the run (`expand`): the
//! successors are appended after the scenario's flows, each `after` its predecessor
//! (`traffic::Deps` starts it the instant that one completes). Sizes come from one random stream
//! of the scenario seed, drawn source by source in flow order, so a run is the same for a seed.
//! The chain stops at the first flow that cannot complete before the end of the run: the sender's
//! NIC cannot send more than `rate · duration / 8` bytes (`chain_budget`), so every flow drawn
//! beyond the budget would never start. Nothing of this runs per packet.

use crate::config::{Config, ConfigError, FlowSpec, NextDestination};
use crate::rng::{mix, Rng};

/// Pareto(a, x_m) by inversion: P(X > x) = (x_m / x)^a for x ≥ x_m, so X = x_m · U^(−1/a) with U
/// uniform in (0, 1]. Mean a·x_m/(a − 1).
#[derive(Clone, Copy, Debug)]
pub struct Pareto {
    pub shape: f64,
    pub x_m: f64,
}

impl Pareto {
    pub fn with_mean(shape: f64, mean: f64) -> Self {
        Pareto { shape, x_m: mean * (shape - 1.0) / shape }
    }
    /// One size in bytes (≥ ⌈x_m⌉; capped at 2^62 so sums stay in u64).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let u = 1.0 - rng.uniform(); // (0, 1]
        let x = self.x_m * u.powf(-1.0 / self.shape);
        x.ceil().min((1u64 << 62) as f64) as u64
    }
    /// One size ≤ `max` (draws above it are rejected and drawn again; `max` ≥ x_m, checked by
    /// the config, so the loop ends with probability 1).
    pub fn sample_bounded(&self, rng: &mut Rng, max: Option<u64>) -> u64 {
        loop {
            let x = self.sample(rng);
            if max.is_none_or(|m| x <= m) {
                return x;
            }
        }
    }
}

/// Random stream of the closed-loop sources (independent of every other stream of the seed).
const STREAM: u64 = 0xC105_ED10_0750_u64;

/// Bytes a sender whose NIC runs at `rate_bps` can send in `duration_ps`: no flow of a chain can
/// start after its predecessors summed past this.
pub fn chain_budget(rate_bps: u64, duration_ps: u64) -> u128 {
    rate_bps as u128 * duration_ps as u128 / 8 / 1_000_000_000_000
}

/// `cfg` with every closed-loop source drawn: the first flow of each gets its size, the
/// successors are appended (flow order: scenario flows, then source by source). `nic_rate(h)`:
/// host h's NIC rate (bps); `hosts`: the host count; `rack`: hosts per rack (FatTree ToR), for
/// `other-rack`. Returns None when no flow is closed-loop.
pub fn expand(cfg: &Config, hosts: u32, rack: Option<u32>, nic_rate: impl Fn(u32) -> u64) -> Result<Option<Config>, ConfigError> {
    if cfg.flows.iter().all(|f| f.closed_loop.is_none()) {
        return Ok(None);
    }
    if cfg.stop_when_done {
        return Err(ConfigError::new("stop_when_done", "closed-loop flows never all finish; set it to false"));
    }
    let mut rng = Rng::new(mix(cfg.seed ^ STREAM));
    let mut out = cfg.clone();
    let n = cfg.flows.len();
    for i in 0..n {
        let Some(cl) = cfg.flows[i].closed_loop.clone() else { continue };
        let per_rack = match (cl.destination, rack) {
            (NextDestination::OtherRack, None) => {
                return Err(ConfigError::new(
                    &format!("flows[{i}].closed_loop.destination"),
                    "other-rack needs a fattree topology (its racks)",
                ))
            }
            (NextDestination::OtherRack, Some(r)) if r >= hosts => {
                return Err(ConfigError::new(&format!("flows[{i}].closed_loop.destination"), "other-rack needs at least two racks"))
            }
            (_, r) => r.unwrap_or(1),
        };
        let pareto = Pareto::with_mean(cl.shape, cl.mean_bytes as f64);
        let budget = chain_budget(nic_rate(cfg.flows[i].src), cfg.duration_ps);
        let first = out.flows[i].clone();
        let size = pareto.sample_bounded(&mut rng, cl.max_bytes);
        out.flows[i].size_bytes = Some(size);
        let mut sent = size as u128;
        let mut prev = i as u32;
        while sent <= budget {
            let dst = match cl.destination {
                NextDestination::Same => first.dst,
                NextDestination::Random => random_other(&mut rng, hosts, first.src),
                NextDestination::OtherRack => other_rack(&mut rng, hosts, per_rack, first.src),
            };
            let size = pareto.sample_bounded(&mut rng, cl.max_bytes);
            let f = FlowSpec { dst, size_bytes: Some(size), after: vec![prev], closed_loop: None, ..first.clone() };
            prev = out.flows.len() as u32;
            out.flows.push(f);
            sent += size as u128;
        }
    }
    Ok(Some(out))
}

/// A host uniform over 0..hosts without `not`.
fn random_other(rng: &mut Rng, hosts: u32, not: u32) -> u32 {
    let k = ((rng.uniform() * (hosts - 1) as f64) as u32).min(hosts - 2);
    if k >= not {
        k + 1
    } else {
        k
    }
}

/// A host uniform over the racks (of `per_rack` consecutive hosts) other than `src`'s.
fn other_rack(rng: &mut Rng, hosts: u32, per_rack: u32, src: u32) -> u32 {
    let first = src / per_rack * per_rack;
    let own = per_rack.min(hosts - first);
    let k = ((rng.uniform() * (hosts - own) as f64) as u32).min(hosts - own - 1);
    if k >= first {
        k + own
    } else {
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_minimum_is_x_m_and_mean_within_theory() {
        // AMP's Pareto(1.5, mean 192 MB): x_m = 192e6 · 0.5 / 1.5 = 64e6 B
        let p = Pareto::with_mean(1.5, 192e6);
        assert_eq!(p.x_m, 64e6);
        let mut rng = Rng::new(7);
        let n = 1_000_000;
        let xs: Vec<u64> = (0..n).map(|_| p.sample(&mut rng)).collect();
        let min = *xs.iter().min().unwrap();
        // the smallest of 10^6 draws: P(X > x_m(1 + ε)) = (1 + ε)^−1.5, so the minimum exceeds
        // x_m by more than 0.01 % with probability (1 + 1e-4)^−1.5e6 ≈ e^−150
        assert!(min >= 64_000_000 && (min as f64) < 64e6 * 1.0001, "min {min}");
        // the tail: P(X > 2 x_m) = 2^−1.5 = 0.3536; the binomial sd over 10^6 draws is 4.8e-4,
        // so ±0.003 (> 6 sd)
        let above = xs.iter().filter(|&&x| x as f64 > 128e6).count() as f64 / n as f64;
        assert!((above - 0.3536).abs() < 0.003, "P(X > 2 x_m) = {above}");
        // the mean: the variance is infinite at a = 1.5, so no CLT bound; truncate at c = 100 x_m
        // where the truncated mean is known exactly, E[X; X ≤ c] = a x_m/(a−1)·(1 − (x_m/c)^(a−1))
        // = 192e6·(1 − 0.1) = 172.8e6, with a finite sd of the draws ≤ sqrt(E[X²; X ≤ c])
        // = sqrt(a x_m² (c/x_m)^(2−a) / (2−a)) = sqrt(3·10)·x_m ≈ 350e6, so the sample mean's sd is
        // 0.35e6: ±2.5e6 is > 7 sd.
        let c = 100.0 * 64e6;
        let trunc: f64 = xs.iter().map(|&x| if (x as f64) <= c { x as f64 } else { 0.0 }).sum::<f64>() / n as f64;
        assert!((trunc - 172.8e6).abs() < 2.5e6, "truncated mean {trunc}");
    }

    #[test]
    fn random_destination_is_uniform_over_the_other_hosts() {
        let mut rng = Rng::new(3);
        let mut seen = [0u32; 8];
        for _ in 0..80_000 {
            seen[random_other(&mut rng, 8, 5) as usize] += 1;
        }
        assert_eq!(seen[5], 0);
        for (h, &k) in seen.iter().enumerate().filter(|(h, _)| *h != 5) {
            // expected 80 000 / 7 = 11 429, binomial sd 99: ±600 is 6 sd
            assert!((k as i64 - 11_429).abs() < 600, "host {h}: {k}");
        }
    }

    #[test]
    fn other_rack_destinations_avoid_the_senders_rack_uniformly() {
        let mut rng = Rng::new(5);
        let mut seen = [0u32; 16];
        for _ in 0..120_000 {
            seen[other_rack(&mut rng, 16, 4, 6) as usize] += 1;
        }
        assert!(seen[4..8].iter().all(|&k| k == 0), "rack 1 (h4..h7) is the sender's: {seen:?}");
        for h in (0..4).chain(8..16) {
            // expected 120 000 / 12 = 10 000, binomial sd 96: ±600 is > 6 sd
            assert!((seen[h] as i64 - 10_000).abs() < 600, "h{h}: {}", seen[h]);
        }
    }

    #[test]
    fn a_bounded_pareto_redraws_above_its_bound() {
        // a bound at 8 x_m as in the authors' code (8 × 96 MiB with x_m = 2/3 × 96 MiB is 12 x_m;
        // the law is the same): P(X > 8 x_m) = 8^−1.5 = 4.4 % of the draws are redrawn
        let p = Pareto { shape: 1.5, x_m: 1000.0 };
        let mut rng = Rng::new(9);
        let xs: Vec<u64> = (0..100_000).map(|_| p.sample_bounded(&mut rng, Some(8000))).collect();
        assert!(xs.iter().all(|&x| (1000..=8000).contains(&x)));
        // rejection keeps the shape below the bound: P(X ≤ 2000 | X ≤ 8000) = (1 − 2^−1.5)/(1 − 8^−1.5)
        // = 0.6464/0.9558 = 0.6763; binomial sd 0.0015, ±0.01 is > 6 sd
        let f = xs.iter().filter(|&&x| x <= 2000).count() as f64 / xs.len() as f64;
        assert!((f - 0.6763).abs() < 0.01, "{f}");
    }

    #[test]
    fn budget_is_the_nic_bytes_of_the_run() {
        // 10 Gbps for 30 ms = 37.5 MB: below AMP's minimum size, so a 30 ms run never restarts
        assert_eq!(chain_budget(10_000_000_000, 30_000_000_000), 37_500_000);
    }
}
