//! What a run records: sampled time series of chosen ports and of every active flow, and the
//! flow records and counters assembled into `Results` at the end.

pub mod capture;
pub mod log;
pub mod log_events;
pub mod trace;

use crate::core::{Core, FlowId, PortId};
use crate::fabric::Fabric;
use crate::results::Results;
use crate::sim::EvKind;
use crate::time::Time;
use crate::transport::Transport;

pub struct Telemetry {
    /// Ports whose queue and transmitted bytes are sampled.
    monitored: Vec<PortId>,
    interval: Time,
    start: Time,
    end: Time,
    flows: bool,
    out: Results,
    /// Ports of a PFC deadlock cycle, if the watchdog found one.
    deadlock: Vec<PortId>,
    /// Controllers' variables to record at every sample (`[metrics] trace`; None = off).
    pub tracer: Option<trace::Tracer>,
    /// The debug log (`[metrics] log`; empty = off).
    pub log: log::Log,
}

impl Telemetry {
    pub fn new(fabric: &Fabric, monitored: Vec<PortId>, interval: Time, start: Time, end: Time, flows: bool) -> Self {
        let mut out = Results::default();
        for &p in &monitored {
            let info = &fabric.net.ports[p as usize];
            out.ports.port.push(p);
            out.ports.name.push(info.name.clone());
            out.ports.rate_bps.push(info.rate_bps);
        }
        Telemetry { monitored, interval, start, end, flows, out, deadlock: Vec::new(), tracer: None, log: log::Log::default() }
    }

    /// Schedule the first sample, if there is anything to sample (listed ports, flows, traced
    /// variables): the interval has a default, so an unmonitored run must not pay for samples.
    pub fn arm(&self, core: &mut Core) {
        let anything = !self.monitored.is_empty() || self.flows || self.tracer.is_some();
        if self.interval > 0 && anything {
            core.sched.at(self.start, EvKind::Sample, 0, 0);
        }
    }

    pub fn sample(&mut self, core: &mut Core, fabric: &Fabric, tp: &Transport) {
        let now = core.sched.now;
        let ps = &mut self.out.port_series;
        for (i, &p) in self.monitored.iter().enumerate() {
            let st = &fabric.ports[p as usize];
            ps.time_ps.push(now);
            ps.port.push(self.out.ports.port[i]);
            ps.queue_bytes.push(st.queue_bytes);
            ps.tx_bytes.push(st.tx_bytes);
        }
        if self.flows {
            let fs = &mut self.out.flow_series;
            for (id, f) in tp.flows.iter().enumerate() {
                if f.stats.started && !f.stats.done {
                    fs.time_ps.push(now);
                    fs.flow_id.push(id as u32);
                    fs.cwnd_bytes.push(f.tx.cwnd);
                    fs.rate_bps.push(f.tx.rate);
                    fs.bytes_acked.push(f.tx.snd_una);
                }
            }
        }
        if let Some(tracer) = &self.tracer {
            for (id, f) in tp.flows.iter().enumerate().filter(|(_, f)| f.stats.started && !f.stats.done) {
                tracer.sample(now, id as FlowId, f.tx.cc.as_ref(), &mut self.out.trace);
            }
        }
        let next = now.saturating_add(self.interval);
        if next <= self.end {
            core.sched.at(next, EvKind::Sample, 0, 0);
        }
    }

    /// The PFC watchdog found a deadlock among `cycle` at `now`.
    pub fn deadlock(&mut self, now: Time, cycle: Vec<PortId>) {
        self.out.summary.pfc_deadlock_at_ps = now;
        self.deadlock = cycle;
    }

    /// The results of a run that ended at `until`: counters, flow records and the series.
    pub fn finish(mut self, core: &Core, fabric: &Fabric, tp: &Transport, until: Time, base_rtt: Time) -> Results {
        let deadlock_at = self.out.summary.pfc_deadlock_at_ps;
        let s = &mut self.out.summary;
        *s = core.stats.clone();
        s.base_rtt_ps = base_rtt;
        s.sim_time_ps = until;
        s.events = core.sched.processed;
        s.packets_in_flight = core.pool.live() as u64;
        s.pfc_deadlock_at_ps = deadlock_at;
        s.pfc_overflow_drops = fabric.pfc.as_ref().map_or(0, |p| p.overflow_drops.load(std::sync::atomic::Ordering::Relaxed));
        let pfc = &mut self.out.pfc;
        for (i, p) in fabric.ports.iter().enumerate() {
            let paused = p.pfc.paused_ps + if p.paused != 0 { until - p.paused_since.min(until) } else { 0 };
            if p.pfc.pauses_sent + p.pfc.resumes_sent + paused == 0 && p.paused == 0 {
                continue;
            }
            pfc.port.push(i as u32);
            pfc.name.push(fabric.net.ports[i].name.clone());
            pfc.pauses_sent.push(p.pfc.pauses_sent);
            pfc.resumes_sent.push(p.pfc.resumes_sent);
            pfc.paused_ps.push(paused);
            s.pfc_pause_frames += p.pfc.pauses_sent;
            s.pfc_resume_frames += p.pfc.resumes_sent;
            s.pfc_paused_ps += paused;
        }
        if let Some(c) = &fabric.capture {
            self.out.packets = c.table.clone();
            self.out.packet_int = c.int.clone();
            self.out.summary.capture_overflow = c.overflow;
        }
        self.out.pfc_deadlock = self.deadlock.iter().map(|&p| fabric.net.ports[p as usize].name.clone()).collect();
        if let Some(c) = &fabric.circuit {
            self.out.voq = c.counters;
            self.out.voq.queued_bytes = c.voq_bytes.iter().sum();
        }
        let t = &mut self.out.flows;
        for (i, f) in tp.flows.iter().enumerate() {
            let conn = tp.conns.get(f.conn as usize);
            let size = conn.map_or(f.info.size, |c| c.size);
            let long = size == u64::MAX;
            t.flow_id.push(i as u32);
            t.src.push(f.info.src);
            t.dst.push(f.info.dst);
            t.size_bytes.push(if long { -1 } else { size as i64 });
            t.connection.push(f.info.connection);
            t.subflow.push(f.subflow);
            t.delivered_bytes.push(conn.map_or(f.rx.rcv_nxt, |c| c.rx.rcv_nxt));
            t.suppressions.push(if f.subflow == 0 { conn.map_or(0, |c| c.episodes) } else { 0 });
            // a connection still waiting for its `after` list at the end never started: −1
            let waiting = !f.stats.started && tp.deps.gated(f.info.connection);
            t.start_ps.push(if waiting { -1 } else { f.info.start as i64 });
            t.end_ps.push(if f.stats.done { f.stats.end as i64 } else { -1 });
            t.bytes_acked.push(f.tx.snd_una);
            t.base_rtt_ps.push(f.info.base_rtt as i64);
            t.ideal_fct_ps.push(if long { -1 } else { f.info.ideal_fct as i64 });
            t.ideal_fct_artifact_ps.push(if long { -1 } else { f.info.ideal_fct_artifact as i64 });
            t.retransmits.push(f.stats.retransmits);
            t.timeouts.push(f.stats.timeouts);
        }
        self.out.log = self.log.take();
        self.out
    }
}
