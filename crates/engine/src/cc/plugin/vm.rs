//! Running a checked plugin: the compiled program of each entry (`Program`) and the controller
//! that drives them (`PluginCc`): it writes an event into the flow's context, runs the entry,
//! and reads the window, pacing rate and timer back. No allocation per event.

use std::sync::Arc;

use super::layout as L;
use super::Plugin;
use crate::cc::{AckEvent, CcContext, CongestionControl, Header};
use crate::time::{Time, NS};

/// One entry's code, compiled by rbpf's x86-64 JIT (interpreted elsewhere).
pub struct Program {
    vm: rbpf::EbpfVmRaw<'static>,
    /// Compiled by the JIT (else run by rbpf's interpreter, which checks every access).
    pub jit: bool,
}

// SAFETY: after `compile` the VM is only read: running it calls the generated code, which touches
// nothing but the context it is given and its own stack frame (`check` proved it), so sharing
// one compiled program between flows and threads is sound.
unsafe impl Send for Program {}
unsafe impl Sync for Program {}

impl Program {
    /// Compile checked instructions. The instruction bytes live as long as the process (the
    /// loader caches every plugin for the process's life anyway).
    pub fn compile(code: &[u8]) -> Result<Program, String> {
        let code: &'static [u8] = Box::leak(code.to_vec().into_boxed_slice());
        #[allow(unused_mut)]
        let mut vm = rbpf::EbpfVmRaw::new(Some(code)).map_err(|e| e.to_string())?;
        #[cfg(target_arch = "x86_64")]
        let jit = jit_or_interpret(&mut vm)?;
        #[cfg(not(target_arch = "x86_64"))]
        let jit = false;
        Ok(Program { vm, jit })
    }

    /// Run on a context.
    #[inline]
    pub fn run(&self, ctx: &mut Ctx) {
        // SAFETY (x86-64): `check` proved every access of the program lies inside the context's
        // CTX_SIZE bytes or its stack frame and that it ends; the slice's lifetime is only
        // widened for rbpf's signature, the code keeps no reference.
        let mem: &'static mut [u8] = unsafe { std::slice::from_raw_parts_mut(ctx.0.as_mut_ptr(), L::CTX_SIZE) };
        #[cfg(target_arch = "x86_64")]
        let r = if self.jit { unsafe { self.vm.execute_program_jit(mem) } } else { self.vm.execute_program(mem) };
        #[cfg(not(target_arch = "x86_64"))]
        let r = self.vm.execute_program(mem);
        r.expect("a checked plugin runs to its end");
    }

    /// Run in rbpf's interpreter, which checks every access at run time (tests compare it with
    /// the JIT).
    #[cfg(test)]
    pub fn run_interpreted(&self, ctx: &mut Ctx) -> Result<u64, String> {
        let mem: &'static mut [u8] = unsafe { std::slice::from_raw_parts_mut(ctx.0.as_mut_ptr(), L::CTX_SIZE) };
        self.vm.execute_program(mem).map_err(|e| e.to_string())
    }
}

/// JIT-compile `vm`; false when the machine code does not fit rbpf's JIT buffer (one 4 KiB page,
/// a few hundred BPF instructions), which rbpf reports by panicking: that panic is caught
/// (silently: the hook is swapped for the call) and the entry runs in the interpreter instead.
#[cfg(target_arch = "x86_64")]
fn jit_or_interpret(vm: &mut rbpf::EbpfVmRaw<'static>) -> Result<bool, String> {
    static HOOK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = HOOK.lock().unwrap_or_else(|p| p.into_inner());
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| vm.jit_compile()));
    std::panic::set_hook(hook);
    match r {
        Ok(Ok(())) => Ok(true),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Ok(false),
    }
}

/// A flow's context (`struct dccsim_ctx`), 8-byte aligned.
#[repr(C, align(8))]
pub struct Ctx(pub [u8; L::CTX_SIZE]);

impl Ctx {
    #[inline]
    pub fn put64(&mut self, off: usize, v: u64) {
        self.0[off..off + 8].copy_from_slice(&v.to_le_bytes());
    }
    #[inline]
    pub fn put32(&mut self, off: usize, v: u32) {
        self.0[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
    #[inline]
    pub fn get64(&self, off: usize) -> u64 {
        u64::from_le_bytes(self.0[off..off + 8].try_into().unwrap())
    }
    #[inline]
    pub fn get32(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.0[off..off + 4].try_into().unwrap())
    }
}

/// A controller whose law is a plugin.
pub struct PluginCc {
    plugin: Arc<Plugin>,
    pub(super) ctx: Box<Ctx>,
    cwnd: f64,
    pacing: f64,
    timer: Option<Time>,
    mss: f64,
}

impl PluginCc {
    /// A flow's controller: its context filled with the flow's facts and parameters, then `init`.
    pub fn new(plugin: Arc<Plugin>, params: &[i64; L::MAX_PARAMS], cc: &CcContext) -> PluginCc {
        let mut ctx = Box::new(Ctx([0; L::CTX_SIZE]));
        ctx.put64(L::LINE_RATE_BPS, cc.host_rate_bps as u64);
        ctx.put64(L::BASE_RTT_NS, (cc.base_rtt * 1e9).round() as u64);
        ctx.put64(L::PATH_RTT_NS, (cc.path_rtt * 1e9).round() as u64);
        ctx.put32(L::MSS, cc.mss as u32);
        ctx.put32(L::ABI, L::ABI_VERSION);
        for (i, p) in params.iter().enumerate() {
            ctx.put64(L::PARAM + 8 * i, *p as u64);
        }
        // before init: ten segments, unpaced (RFC 6928), as if the plugin left them unset
        ctx.put64(L::CWND_BYTES, 10 * cc.mss as u64);
        let mut me = PluginCc { plugin, ctx, cwnd: 0.0, pacing: f64::INFINITY, timer: None, mss: cc.mss.max(1.0) };
        me.call(0, L::EV_INIT);
        me
    }

    #[inline]
    fn call(&mut self, entry: usize, event: u32) {
        self.ctx.put32(L::EVENT, event);
        if let Some(p) = &self.plugin.progs[entry] {
            p.run(&mut self.ctx);
        }
        self.cwnd = (self.ctx.get64(L::CWND_BYTES) as f64).max(self.mss);
        let pace = self.ctx.get64(L::PACING_BPS);
        self.pacing = if pace == 0 { f64::INFINITY } else { pace as f64 };
        let t = self.ctx.get64(L::TIMER_NS);
        self.timer = if t == 0 { None } else { Some(t.saturating_mul(NS)) };
    }

    #[inline]
    fn set_now(&mut self, now: Time) {
        self.ctx.put64(L::NOW_NS, now / NS);
    }
}

impl CongestionControl for PluginCc {
    fn on_ack(&mut self, ev: &AckEvent) {
        let c = &mut self.ctx;
        c.put64(L::NOW_NS, ev.now / NS);
        c.put64(L::RTT_NS, ev.rtt / NS);
        c.put64(L::ACKED_BYTES, ev.acked_bytes);
        c.put32(L::SND_UNA, ev.snd_una as u32);
        c.put32(L::SND_NXT, ev.snd_nxt as u32);
        c.put32(L::SEQ, ev.seq as u32);
        c.put32(L::ECN, ev.ecn as u32);
        c.put32(L::CWND_LIMITED, ev.cwnd_limited as u32);
        let n = ev.int.len().min(L::MAX_HOPS);
        c.put32(L::NHOPS, n as u32);
        c.put32(L::PATH_HOPS, ev.hops as u32);
        c.put64(L::MAX_HOP_DELAY_NS, ev.max_hop_delay / NS);
        for (i, h) in ev.int[..n].iter().enumerate() {
            let o = L::HOP + 16 * i;
            c.put32(o, h.qlen.min(u32::MAX as u64) as u32);
            c.put32(o + 4, h.tx_bytes as u32);
            c.put32(o + 8, (h.ts / NS) as u32);
            c.put32(o + 12, (h.rate_bps / 1_000_000) as u32);
        }
        self.call(1, L::EV_ACK);
    }
    fn on_nack(&mut self, now: Time) {
        self.set_now(now);
        self.call(2, L::EV_LOSS);
    }
    fn on_timeout(&mut self, now: Time) {
        self.set_now(now);
        self.call(3, L::EV_TIMEOUT);
    }
    /// A flow that starts mid-stream (the shared vectors): `init` again, from a zero state, with
    /// these sequence numbers (the engine's own flows start at 0/0, as `new` assumed).
    fn on_start(&mut self, snd_una: u64, snd_nxt: u64) {
        self.ctx.0[L::STATE..].fill(0);
        self.ctx.put32(L::SND_UNA, snd_una as u32);
        self.ctx.put32(L::SND_NXT, snd_nxt as u32);
        self.call(0, L::EV_INIT);
    }
    fn timer(&self) -> Option<Time> {
        self.timer
    }
    fn on_timer(&mut self, now: Time) {
        self.set_now(now);
        self.ctx.put64(L::TIMER_NS, 0); // the request is spent; the plugin may ask again
        self.call(4, L::EV_TIMER);
    }
    fn header(&self) -> Header {
        if self.plugin.flags & super::FLAG_NEEDS_INT != 0 {
            Header::Int
        } else if self.plugin.flags & super::FLAG_TIMESTAMP != 0 {
            Header::Timestamp
        } else {
            Header::None
        }
    }
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn pacing_rate(&self) -> f64 {
        self.pacing
    }
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        for t in &self.plugin.trace {
            let off = L::STATE + t.offset as usize;
            let raw = match (t.size, t.signed) {
                (8, false) => self.ctx.get64(off) as f64,
                (8, true) => self.ctx.get64(off) as i64 as f64,
                (_, false) => self.ctx.get32(off) as f64,
                (_, true) => self.ctx.get32(off) as i32 as f64,
            };
            out(t.name, raw / (1u64 << t.shift) as f64);
        }
    }
}
