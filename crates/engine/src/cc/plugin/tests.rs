//! Loader tests on objects compiled from restricted C by clang (skipped, saying so, where clang
//! is missing; CI installs it).

use super::vm::Ctx;
use super::*;
use crate::cc::{test_ctx, AckEvent};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compile C source to a BPF object in a temp dir; None when clang is missing.
fn compile(name: &str, src: &str) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("dccsim-plugin-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // tests run in parallel threads: each compile writes its own files and renames the object
    // into place whole
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let c = dir.join(format!("{name}-{n}.bpf.c"));
    let tmp = dir.join(format!("{name}-{n}.o"));
    let o = dir.join(format!("{name}.o"));
    std::fs::write(&c, src).unwrap();
    let inc = repo().join("bpf");
    let st = std::process::Command::new("clang")
        .args(["-O2", "-target", "bpf", "-mcpu=v3", "-I"])
        .arg(&inc)
        .arg("-c")
        .arg(&c)
        .arg("-o")
        .arg(&tmp)
        .status();
    match st {
        Ok(s) if s.success() => {
            std::fs::rename(&tmp, &o).unwrap();
            Some(o)
        }
        Ok(s) => panic!("clang failed on {name}: {s}"),
        Err(_) => {
            eprintln!("SKIPPED: clang is not installed (.ci/testbed-deps.sh installs it)");
            None
        }
    }
}

fn example() -> Option<PathBuf> {
    let src = std::fs::read_to_string(repo().join("examples/delay_aimd.bpf.c")).unwrap();
    compile("delay_aimd", &src)
}

fn ack(now: u64, rtt: u64, una: u64, nxt: u64) -> AckEvent<'static> {
    AckEvent {
        now,
        acked_bytes: 1000,
        seq: una.saturating_sub(1000),
        snd_una: una,
        snd_nxt: nxt,
        rtt,
        ecn: false,
        int: &[],
        max_hop_delay: 0,
        hops: 2,
        cwnd_limited: true,
    }
}

#[test]
fn example_plugin_follows_its_law_and_matches_the_interpreter() {
    let Some(o) = example() else { return };
    let p = Plugin::load(o.to_str().unwrap()).unwrap();
    assert_eq!(p.params.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["target_us", "ai_mss", "md", "init_cwnd_mss"]);
    let ctx = test_ctx(20e-6, 1048.0);
    let mut cc = PluginCc::new(p.clone(), &p.param_values(&serde_json::Value::Null, "cc").unwrap(), &ctx);
    assert_eq!(cc.cwnd(), 10_000.0); // init_cwnd_mss = 10 of 1000 B
    assert_eq!(cc.pacing_rate(), f64::INFINITY);
    // below target: + ai_mss * mss * acked / cwnd = 1000 * 1000 / 10000 = 100 B per ACK
    cc.on_ack(&ack(1_000_000, 21_000_000, 1000, 11_000));
    assert_eq!(cc.cwnd(), 10_100.0);
    assert_eq!(cc.probe("qdelay_ns"), Some(1000.0));
    // RTT 60 us, 30 us above the target 20 + 10 us → cut md · (60 − 30)/60 = 0.5 · 0.5 = 0.25
    cc.on_ack(&ack(2_000_000, 60_000_000, 12_000, 22_000));
    assert_eq!(cc.cwnd(), 10_100.0 * 0.75);
    assert_eq!(cc.probe("cuts"), Some(1.0));
    // no second cut inside the same window (snd_una < recover = 22000)
    cc.on_ack(&ack(3_000_000, 60_000_000, 13_000, 23_000));
    assert_eq!(cc.probe("cuts"), Some(1.0));
    cc.on_nack(4_000_000);
    assert_eq!(cc.cwnd(), (10_100.0f64 * 0.75 / 2.0).floor());
    cc.on_timeout(5_000_000);
    assert_eq!(cc.cwnd(), 1000.0);

    // the JIT and the bounds-checked interpreter agree over a run of ACKs
    let mut a = Ctx([0; layout::CTX_SIZE]);
    let mut seed = 12345u64;
    for i in 0..2000u64 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        a.put64(layout::RTT_NS, 20_000 + (seed >> 33) % 40_000);
        a.put64(layout::ACKED_BYTES, 1000 * (seed >> 60));
        a.put32(layout::SND_UNA, (i * 1000) as u32);
        a.put32(layout::SND_NXT, (i * 1000 + 20_000) as u32);
        a.put32(layout::CWND_LIMITED, 1);
        a.put32(layout::MSS, 1000);
        a.put64(layout::BASE_RTT_NS, 20_000);
        a.put64(layout::PARAM, 10);
        a.put64(layout::PARAM + 8, 1024);
        a.put64(layout::PARAM + 16, 512);
        let mut b = Ctx(a.0);
        p.progs[1].as_ref().unwrap().run(&mut a);
        p.progs[1].as_ref().unwrap().run_interpreted(&mut b).unwrap();
        assert_eq!(a.0, b.0, "ACK {i}");
    }
}

#[test]
fn parameters_are_checked_against_the_declarations() {
    let Some(o) = example() else { return };
    let p = Plugin::load(o.to_str().unwrap()).unwrap();
    let raw = p.param_values(&serde_json::json!({"md": 0.25, "target_us": 5}), "cc").unwrap();
    assert_eq!(&raw[..4], &[5, 1024, 256, 10]);
    let e = p.param_values(&serde_json::json!({"md": 2}), "cc").unwrap_err();
    assert_eq!(e.to_string(), "cc.md: must be a number in [0, 1], got 2");
    let e = p.param_values(&serde_json::json!({"target_us": 0}), "cc").unwrap_err();
    assert_eq!(e.to_string(), "cc.target_us: must be a number in [1, 100000] us, got 0");
    let e = p.param_values(&serde_json::json!({"gamma": 1}), "cc").unwrap_err();
    assert!(e.to_string().starts_with("cc.gamma: unknown parameter of plugin"), "{e}");
    assert!(e.to_string().ends_with("declared: target_us, ai_mss, md, init_cwnd_mss"), "{e}");
    let e = p.param_values(&serde_json::json!({"md": "big"}), "cc").unwrap_err();
    assert!(e.to_string().starts_with("cc.md: must be a number"), "{e}");
}

const BAD_HEAD: &str = "#include \"plugin_api.h\"\nstruct st { __u64 x; };\n#define TR(T) T(x, x, 0)\nDCCSIM_STATE(struct st, TR)\n";

#[test]
fn unsafe_plugins_are_one_line_errors_naming_the_file() {
    let cases = [
        ("loop", "static __always_inline void f(struct dccsim_ctx *c) { volatile __u64 n = c->rtt_ns; while (n) n = n * 3 + 1; c->cwnd_bytes = n; }", "jumps backwards"),
        ("oob", "static __always_inline void f(struct dccsim_ctx *c) { c->state[20] = 1; }", "accesses context bytes 536..544 outside its 480 bytes"),
        ("varidx", "static __always_inline void f(struct dccsim_ctx *c) { c->state[c->nhops & 7] = 1; }", "variable offset"),
        ("call", "__attribute__((noinline)) static void g(struct dccsim_ctx *c) { c->cwnd_bytes = c->rtt_ns; }\nstatic __always_inline void f(struct dccsim_ctx *c) { g(c); }", "CALL is not allowed"),
        ("global", "__u64 counter;\nstatic __always_inline void f(struct dccsim_ctx *c) { counter++; c->cwnd_bytes = counter; }", "global variable"),
    ];
    for (name, body, want) in cases {
        let src = format!("{BAD_HEAD}{body}\nDCCSIM_ENTRY(on_ack, f)\n");
        let Some(o) = compile(name, &src) else { return };
        let path = o.to_str().unwrap();
        let e = Plugin::load(path).unwrap_err();
        assert_eq!(e.field, "cc.plugin");
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("cc.plugin: {path}: ")) && msg.contains(want) && !msg.contains('\n'), "{name}: {msg}");
    }
    let junk = std::env::temp_dir().join(format!("dccsim-plugin-junk-{}.o", std::process::id()));
    std::fs::write(&junk, b"not an object").unwrap();
    let e = Plugin::load(junk.to_str().unwrap()).unwrap_err().to_string();
    assert!(e.contains("not an ELF object"), "{e}");
    let e = Plugin::load("/nonexistent/x.o").unwrap_err().to_string();
    assert!(e.starts_with("cc.plugin: /nonexistent/x.o: cannot read"), "{e}");
}

#[test]
fn every_context_field_reaches_the_plugin_at_its_offset() {
    // a plugin that copies every event and flow field into the state: the host's offsets and the
    // header's agree
    let src = format!(
        "{BAD_HEAD}static __always_inline void f(struct dccsim_ctx *c) {{
            c->state[0] = c->now_ns; c->state[1] = c->rtt_ns; c->state[2] = c->acked_bytes;
            c->state[3] = ((__u64)c->snd_una << 32) | c->snd_nxt; c->state[4] = ((__u64)c->seq << 32) | c->ecn;
            c->state[5] = ((__u64)c->cwnd_limited << 32) | c->nhops; c->state[6] = ((__u64)c->path_hops << 32) | c->event;
            c->state[7] = c->max_hop_delay_ns; c->state[8] = ((__u64)c->hop[1].qlen << 32) | c->hop[1].rate_mbps;
            c->state[9] = c->line_rate_bps ^ c->base_rtt_ns ^ (c->path_rtt_ns << 40); c->state[10] = ((__u64)c->mss << 32) | c->abi;
            c->state[11] = c->param[15]; c->state[12] = c->hop[1].ts_ns; c->cwnd_bytes = 7777; c->pacing_bps = 1000000; c->timer_ns = 99; }}
        DCCSIM_ENTRY(on_ack, f)\n"
    );
    let Some(o) = compile("fields", &src) else { return };
    let p = Plugin::load(o.to_str().unwrap()).unwrap();
    let mut raw = [0i64; layout::MAX_PARAMS];
    raw[15] = -3;
    let mut cc = PluginCc::new(p, &raw, &test_ctx(20e-6, 1048.0));
    let hops = [
        crate::packet::IntHop { qlen: 1, tx_bytes: 2, ts: 3000, rate_bps: 4_000_000 },
        crate::packet::IntHop { qlen: 5, tx_bytes: 6, ts: 7_000_000, rate_bps: 8_000_000 },
    ];
    let ev = AckEvent { int: &hops, max_hop_delay: 9000, ecn: true, ..ack(1_000_000, 30_000, (1 << 32) + 5, 6) };
    cc.on_ack(&ev);
    let s = |i: usize| cc.ctx.get64(layout::STATE + 8 * i);
    assert_eq!((s(0), s(1), s(2)), (1000, 30, 1000));
    assert_eq!(s(3), (5 << 32) | 6);
    assert_eq!(s(4), ((((1u64 << 32) + 5 - 1000) as u32 as u64) << 32) | 1);
    assert_eq!((s(5), s(6), s(7)), ((1 << 32) | 2, (2 << 32) | 1, 9));
    assert_eq!((s(8), s(12)), ((5 << 32) | 8, 7000));
    assert_eq!(s(9), 25_000_000_000 ^ 20_000 ^ (20_000 << 40));
    assert_eq!((s(10), s(11) as i64), ((1000 << 32) | 1, -3));
    assert_eq!((cc.cwnd(), cc.pacing_rate(), cc.timer()), (7777.0, 1e6, Some(99_000)));
}

/// Per-ACK cost of a law as a plugin against the native Rust controller (docs/benchmarks.md):
/// `cargo test --profile dev-opt -p dccsim-engine plugin_per_ack_cost -- --ignored --nocapture`
#[test]
#[ignore]
fn plugin_per_ack_cost() {
    use crate::cc::dctcp::{Dctcp, DctcpParams, Law};
    let src = std::fs::read_to_string(repo().join("bpf/laws/dctcp.bpf.c")).unwrap();
    let Some(o) = compile("dctcp", &src) else { return };
    let p = Plugin::load(o.to_str().unwrap()).unwrap();
    let ctx = test_ctx(20e-6, 1048.0);
    let raw = p.param_values(&serde_json::json!({"law": 1}), "cc").unwrap(); // Linux's reading, as below
    // fewer ACKs for an instruction count under valgrind (docs/benchmarks.md, "Plugins")
    let n: u64 = std::env::var("DCCSIM_PER_ACK_N").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000_000);
    let events: Vec<AckEvent> = (0..4096u64).map(|i| AckEvent { ecn: i % 7 == 0, ..ack(i * 1000, 25_000_000, 0, 0) }).collect();
    let run = |cc: &mut dyn CongestionControl| {
        let t = std::time::Instant::now();
        let mut sum = 0.0;
        for i in 0..n {
            let mut ev = events[(i % 4096) as usize];
            ev.snd_una = i * 1000;
            ev.snd_nxt = i * 1000 + 40_000;
            cc.on_ack(&ev);
            sum += cc.cwnd();
        }
        (t.elapsed().as_secs_f64() * 1e9 / n as f64, sum)
    };
    let mut native = Dctcp::new(DctcpParams { law: Law::Linux, ..Default::default() }, &ctx);
    let mut plugin = PluginCc::new(p, &raw, &ctx);
    let (a, sa) = run(&mut native);
    let (b, sb) = run(&mut plugin);
    let (a2, _) = run(&mut native);
    let (b2, _) = run(&mut plugin);
    eprintln!("per ACK: native dctcp {:.1} / {:.1} ns, plugin dctcp {:.1} / {:.1} ns (checksums {sa:.3e} {sb:.3e})", a, a2, b, b2);
}

#[test]
fn a_plugin_timer_is_requested_fired_and_spent() {
    // on_ack asks for a call 5 us later; on_timer counts and halves the window
    let src = format!(
        "{BAD_HEAD}static __always_inline void a(struct dccsim_ctx *c) {{ c->timer_ns = c->now_ns + 5000; c->cwnd_bytes = 64000; }}
        static __always_inline void t(struct dccsim_ctx *c) {{ STATE(c)->x++; c->cwnd_bytes = 32000; }}
        DCCSIM_ENTRY(on_ack, a)\nDCCSIM_ENTRY(on_timer, t)\n"
    );
    let Some(o) = compile("timer", &src) else { return };
    let p = Plugin::load(o.to_str().unwrap()).unwrap();
    let mut cc = PluginCc::new(p, &[0; layout::MAX_PARAMS], &test_ctx(20e-6, 1048.0));
    assert_eq!(cc.timer(), None);
    cc.on_ack(&ack(2_000_000, 30_000_000, 0, 0)); // now = 2 us
    assert_eq!((cc.timer(), cc.cwnd()), (Some(7_000_000), 64_000.0));
    cc.on_timer(7_000_000);
    assert_eq!((cc.timer(), cc.cwnd(), cc.probe("x")), (None, 32_000.0, Some(1.0)));
}

#[test]
fn an_entry_too_large_for_the_jit_runs_in_the_interpreter() {
    // 200 unrolled updates: more machine code than rbpf's one-page JIT buffer holds
    let src = format!(
        "{BAD_HEAD}static __always_inline void f(struct dccsim_ctx *c) {{
            __u64 x = c->rtt_ns;
            #pragma unroll
            for (int i = 0; i < 200; i++) x = (x * 2654435761ULL + (__u64)i) / (c->acked_bytes | 1);
            c->cwnd_bytes = x; }}
        DCCSIM_ENTRY(on_ack, f)\n"
    );
    let Some(o) = compile("large", &src) else { return };
    let p = Plugin::load(o.to_str().unwrap()).unwrap();
    assert!(!p.progs[1].as_ref().unwrap().jit);
    assert_eq!(p.describe()["interpreted"], serde_json::json!(["on_ack"]));
    let mut cc = PluginCc::new(p, &[0; layout::MAX_PARAMS], &test_ctx(20e-6, 1048.0));
    let ev = ack(1_000_000, 30_000_000, 0, 0);
    cc.on_ack(&ev);
    let mut x: u64 = 30_000;
    for i in 0..200u64 {
        x = x.wrapping_mul(2654435761).wrapping_add(i) / (1000 | 1);
    }
    assert_eq!(cc.cwnd(), (x as f64).max(1000.0));
}
