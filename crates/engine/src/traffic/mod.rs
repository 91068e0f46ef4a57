//! Flow sources: when each flow starts. The scenario's explicit flow list, each at its start
//! time; flows that start when others complete (`FlowSpec::after`: closed-loop jobs, the
//! successors of a closed-loop source, `closed_loop`); generated open-loop workloads (Poisson
//! arrivals from a size CDF, incast requests) come from the front end as explicit flows.

pub mod closed_loop;

use crate::config::{Config, ConfigError};
use crate::core::{Core, FlowId};
use crate::sim::EvKind;
use crate::time::Time;

/// Schedule a `FlowStart` for every flow at its start time, in flow order.
pub fn schedule_starts(core: &mut Core, starts: impl Iterator<Item = Time>) {
    for (i, t) in starts.enumerate() {
        core.sched.at(t, EvKind::FlowStart, i as FlowId, 0);
    }
}

/// `after` dependencies between connections (scenario flows; a multipath connection counts once,
/// however many subflows it has): a connection starts at the later of its start time and the
/// completion of every connection it is `after`. Empty (and never consulted per packet) when no
/// flow has `after`.
#[derive(Default)]
pub struct Deps {
    /// Per connection: connections of its `after` list not yet complete.
    pending: Vec<u32>,
    /// Per connection: its start time has come while it still waited.
    arrived: Vec<bool>,
    /// Dependents of connection c: `list[first[c]..first[c + 1]]` (CSR).
    first: Vec<u32>,
    list: Vec<u32>,
    /// Per connection: its first endpoint and endpoint count.
    endpoints: Vec<(FlowId, u32)>,
    /// Per connection: it has an `after` list.
    gated: Vec<bool>,
    /// Connections released by the last `completed` call (reused buffer).
    pub released: Vec<u32>,
}

impl Deps {
    /// `after[c]`: the connections c waits for (each < c); `endpoints[c]`: c's endpoints.
    pub fn new(after: &[Vec<u32>], endpoints: Vec<(FlowId, u32)>) -> Self {
        if after.iter().all(|a| a.is_empty()) {
            return Deps::default();
        }
        let n = after.len();
        let mut count = vec![0u32; n + 1];
        for a in after {
            for &p in a {
                count[p as usize + 1] += 1;
            }
        }
        for c in 0..n {
            count[c + 1] += count[c];
        }
        let mut fill = count.clone();
        let mut list = vec![0u32; count[n] as usize];
        for (c, a) in after.iter().enumerate() {
            for &p in a {
                list[fill[p as usize] as usize] = c as u32;
                fill[p as usize] += 1;
            }
        }
        Deps {
            pending: after.iter().map(|a| a.len() as u32).collect(),
            arrived: vec![false; n],
            first: count,
            list,
            endpoints,
            gated: after.iter().map(|a| !a.is_empty()).collect(),
            released: Vec::new(),
        }
    }

    /// The start event of a flow of connection `c` came: true when it may start now; false while
    /// it waits (it starts at the completion that releases it).
    #[inline]
    pub fn may_start(&mut self, c: u32) -> bool {
        match self.pending.get(c as usize) {
            Some(&p) if p > 0 => {
                self.arrived[c as usize] = true;
                false
            }
            _ => true,
        }
    }

    /// Connection `c` completed: `released` lists the connections that start now.
    pub fn completed(&mut self, c: u32) {
        if self.pending.is_empty() {
            return; // (`released` stays empty: no write, so threads may complete flows at once)
        }
        self.released.clear();
        let (a, b) = (self.first[c as usize] as usize, self.first[c as usize + 1] as usize);
        for &d in &self.list[a..b] {
            let p = &mut self.pending[d as usize];
            *p -= 1;
            if *p == 0 && self.arrived[d as usize] {
                self.released.push(d);
            }
        }
    }

    /// The endpoints of connection `c` (first, count).
    pub fn endpoints(&self, c: u32) -> (FlowId, u32) {
        self.endpoints[c as usize]
    }

    /// Connection `c` has an `after` list (its record's start is when it was released).
    pub fn gated(&self, c: u32) -> bool {
        self.gated.get(c as usize).copied().unwrap_or(false)
    }
}

/// Every flow's `after` and `closed_loop` (`check_flow`), and a closed-loop source's host has a
/// NIC (a build check, `build::CHECKS`).
pub fn check(cfg: &Config, net: &crate::topo::Network) -> Result<(), ConfigError> {
    for i in 0..cfg.flows.len() {
        check_flow(cfg, i)?;
    }
    for (i, f) in cfg.flows.iter().enumerate().filter(|(_, f)| f.closed_loop.is_some() && f.src < net.n_hosts) {
        if net.host_port(f.src).is_none() {
            return Err(ConfigError::new(&format!("flows[{i}].src"), "a closed-loop source needs a host with a NIC"));
        }
    }
    Ok(())
}

/// `after` and `closed_loop` of flow i (checked with the config): earlier finite flows, each
/// once, no `follows` beside them; a closed-loop source has no size of its own.
pub fn check_flow(cfg: &Config, i: usize) -> Result<(), ConfigError> {
    let f = &cfg.flows[i];
    if let Some(cl) = &f.closed_loop {
        let field = format!("flows[{i}].closed_loop");
        if f.size_bytes.is_some() || f.follows.is_some() {
            return Err(ConfigError::new(&field, "draws the flow's size: remove size and follows"));
        }
        if !(cl.shape > 1.0 && cl.shape.is_finite()) {
            return Err(ConfigError::new(&format!("{field}.shape"), format!("must be > 1 (a finite mean), got {}", cl.shape)));
        }
        if cl.mean_bytes == 0 {
            return Err(ConfigError::new(&format!("{field}.mean"), "must be > 0"));
        }
        let x_m = cl.mean_bytes as f64 * (cl.shape - 1.0) / cl.shape;
        if cl.max_bytes.is_some_and(|m| (m as f64) < x_m.ceil()) {
            return Err(ConfigError::new(
                &format!("{field}.max"),
                format!("must be at least the Pareto scale x_m = mean·(shape − 1)/shape = {} B", x_m.ceil()),
            ));
        }
    }
    let field = format!("flows[{i}].after");
    if !f.after.is_empty() && f.follows.is_some() {
        return Err(ConfigError::new(
            &field,
            "cannot be combined with follows (a message of a connection starts when its previous one ends)",
        ));
    }
    for (k, &p) in f.after.iter().enumerate() {
        let Some(prev) = cfg.flows.get(p as usize).filter(|_| (p as usize) < i) else {
            let allowed = if i == 0 {
                "flows[0] has no earlier flow to wait for".to_string()
            } else {
                format!("must name an earlier flow (0..={})", i - 1)
            };
            return Err(ConfigError::new(&format!("{field}[{k}]"), format!("{allowed}, got {p}")));
        };
        if prev.size_bytes.is_none() && prev.closed_loop.is_none() {
            return Err(ConfigError::new(&format!("{field}[{k}]"), format!("flow {p} is long-lived and never completes")));
        }
        if f.after[..k].contains(&p) {
            return Err(ConfigError::new(&format!("{field}[{k}]"), format!("flow {p} is listed twice")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_starts_when_all_of_its_list_completed() {
        // 0, 1 independent; 2 after both; 3 after 2
        let mut d = Deps::new(&[vec![], vec![], vec![0, 1], vec![2]], vec![(0, 1), (1, 1), (2, 4), (6, 1)]);
        assert!(d.may_start(0) && d.may_start(1));
        assert!(!d.may_start(2) && !d.may_start(3));
        d.completed(0);
        assert!(d.released.is_empty(), "2 still waits for 1");
        d.completed(1);
        assert_eq!(d.released, vec![2]);
        assert_eq!(d.endpoints(2), (2, 4));
        d.completed(2);
        assert_eq!(d.released, vec![3]);
    }

    #[test]
    fn a_connection_released_before_its_start_time_waits_for_it() {
        let mut d = Deps::new(&[vec![], vec![0]], vec![(0, 1), (1, 1)]);
        d.completed(0);
        assert!(d.released.is_empty(), "its start time has not come");
        assert!(d.may_start(1), "it starts at its own start time");
    }
}
