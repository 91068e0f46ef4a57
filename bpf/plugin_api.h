/* SPDX-License-Identifier: MIT */
/*
 * The dccsim congestion-control plugin ABI (docs/plugins.md).
 *
 * A plugin is one restricted-C file compiled once with `clang -O2 -target bpf -mcpu=v3 -c`.  The
 * simulator loads the object's `?dccsim/<entry>` sections, checks every instruction and runs them
 * in a userspace eBPF VM (rbpf's x86-64 JIT).  Each entry takes one argument, a pointer to
 * `struct dccsim_ctx`: the host writes the event and the flow's facts into it before a call and
 * reads the outputs (window, pacing rate, timer) after it; the plugin's own state lives in it
 * between calls.
 *
 * Rules the loader enforces (a broken rule is one error line naming the plugin):
 *   - no helper calls, no BPF-to-BPF calls: mark every function `static __always_inline`;
 *   - no loops that jump backwards: bound them with a constant and `#pragma unroll`;
 *   - every memory access at a constant offset inside the context or the 512-byte stack, and no
 *     stack byte read before it is written;
 *   - no maps, no global variables (no relocations).
 * Arithmetic is integer/fixed point (as bpf/cc_math.h): x / 0 is 0 and x % 0 is x, as the BPF ISA
 * says, in the simulator and in the kernel alike.
 *
 * Units: times ns, rates bit/s, sizes bytes; sequence numbers are 32-bit and compared modulo 2^32
 * (dccsim_seq_ge).
 */
#ifndef DCCSIM_PLUGIN_API_H
#define DCCSIM_PLUGIN_API_H

#ifndef DCCSIM_KERNEL /* vmlinux.h has them */
typedef unsigned long long __u64;
typedef long long __s64;
typedef unsigned int __u32;
typedef int __s32;
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define DCCSIM_ABI_VERSION 1
#define DCCSIM_MAX_HOPS 8
#define DCCSIM_MAX_PARAMS 16
#define DCCSIM_STATE_BYTES 104 /* the kernel's icsk_ca_priv */

/* what the current call is for (ctx->event) */
#define DCCSIM_EV_INIT 0
#define DCCSIM_EV_ACK 1
#define DCCSIM_EV_LOSS 2    /* a loss was detected (NACK / fast retransmit) */
#define DCCSIM_EV_TIMEOUT 3 /* the retransmission timer fired */
#define DCCSIM_EV_TIMER 4   /* the time the plugin asked for (ctx->timer_ns) has come */

/* one INT record, as the wire carries it (bpf/cc_math.h struct ccm_hop) */
struct dccsim_hop {
	__u32 qlen;      /* egress queue bytes after the packet left */
	__u32 tx_bytes;  /* bytes the egress has transmitted, modulo 2^32 */
	__u32 ts_ns;     /* when the packet left the egress, ns modulo 2^32 */
	__u32 rate_mbps; /* egress link rate, Mbit/s */
};

struct dccsim_ctx {
	/* ---- the event: written by the host before every call (offset 0) */
	__u64 now_ns;           /* 0: time of the event */
	__u64 rtt_ns;           /* 8: RTT sample of this ACK */
	__u64 acked_bytes;      /* 16: bytes newly acknowledged (0: duplicate) */
	__u32 snd_una;          /* 24: cumulative ACK after this ACK, modulo 2^32 */
	__u32 snd_nxt;          /* 28: next sequence number to send, modulo 2^32 */
	__u32 seq;              /* 32: first byte of the data packet this ACK answers */
	__u32 ecn;              /* 36: 1 when the data packet was CE-marked */
	__u32 cwnd_limited;     /* 40: 1 when the window limited the last transmission */
	__u32 nhops;            /* 44: INT records in hop[] (0 without INT) */
	__u32 path_hops;        /* 48: switch hops of the forward path */
	__u32 event;            /* 52: DCCSIM_EV_* */
	__u64 max_hop_delay_ns; /* 56: largest per-hop queueing delay (where switches stamp it) */
	struct dccsim_hop hop[DCCSIM_MAX_HOPS]; /* 64: INT records, in path order */
	/* ---- the flow: fixed for its life (offset 192) */
	__u64 line_rate_bps;    /* 192: sender NIC rate */
	__u64 base_rtt_ns;      /* 200: tau, the base RTT the law uses */
	__u64 path_rtt_ns;      /* 208: this flow's own base RTT */
	__u32 mss;              /* 216: payload bytes per packet */
	__u32 abi;              /* 220: DCCSIM_ABI_VERSION */
	__s64 param[DCCSIM_MAX_PARAMS]; /* 224: parameters, declaration order, raw (see shift) */
	/* ---- outputs: read by the host after every call (offset 352) */
	__u64 cwnd_bytes;       /* 352: congestion window (at least one MSS is used) */
	__u64 pacing_bps;       /* 360: pacing rate, 0 = unpaced (line rate) */
	__u64 timer_ns;         /* 368: absolute time of the next on_timer call, 0 = none */
	/* ---- the plugin's own state, zero at init, kept between calls (offset 376) */
	__u64 state[DCCSIM_STATE_BYTES / 8];
};
_Static_assert(sizeof(struct dccsim_ctx) == 480, "dccsim_ctx layout is the ABI");

/* ---------------------------------------------------------------- declarations
 *
 * Parameters: an X-macro list of P(name, default, min, max, shift, unit, description); default,
 * min and max are in the user's units (what the scenario's [cc] table gives), the plugin reads
 * round-down(value * 2^shift) as ctx->param[i] (PARAM(c, name)).  shift = 0 for integers.
 *
 *   #define MY_PARAMS(P) P(target_us, 10, 1, 100000, 0, "us", "queueing delay target")
 *   DCCSIM_PARAMS(MY_PARAMS)
 *
 * Traceable internal variables: a list of T(name, field, shift) over the state struct; the host
 * reads field / 2^shift (probe, traces).
 */
struct dccsim_param_meta {
	char name[32];
	char unit[16];
	char desc[112];
	__s64 def, min, max;
	__u32 shift;
	__u32 _pad;
};

struct dccsim_trace_meta {
	char name[32];
	__u32 offset; /* in the state area */
	__u32 size;   /* 4 or 8 */
	__u32 shift;
	__u32 is_signed;
};

#define DCCSIM_FX(v, shift) ((__s64)((v) * (double)(1LL << (shift))))
#define DCCSIM_P_ENUM_(name, def, lo, hi, shift, unit, desc) DCCSIM_P_##name,
#define DCCSIM_P_META_(name, def, lo, hi, shift, unit, desc) \
	{#name, unit, desc, DCCSIM_FX(def, shift), DCCSIM_FX(lo, shift), DCCSIM_FX(hi, shift), shift, 0},
#define DCCSIM_PARAMS(LIST)                                                             \
	enum { LIST(DCCSIM_P_ENUM_) DCCSIM_NPARAMS };                                   \
	_Static_assert(DCCSIM_NPARAMS <= DCCSIM_MAX_PARAMS, "at most 16 parameters");     \
	static const struct dccsim_param_meta dccsim_params_[]                         \
		__attribute__((section(".dccsim.params"), used)) = {LIST(DCCSIM_P_META_)};
#define PARAM(c, name) ((c)->param[DCCSIM_P_##name])

#define DCCSIM_T_META_(name, field, shift)                                                  \
	{#name, __builtin_offsetof(DCCSIM_STATE_T_, field), sizeof(((DCCSIM_STATE_T_ *)0)->field), \
	 shift, (__typeof__(((DCCSIM_STATE_T_ *)0)->field))-1 < 0},
/* The state struct (<= 104 bytes) and its traceable fields; defines STATE(c). */
#define DCCSIM_STATE(T, LIST)                                                           \
	_Static_assert(sizeof(T) <= DCCSIM_STATE_BYTES, "plugin state is at most 104 bytes"); \
	typedef T DCCSIM_STATE_T_;                                                      \
	static const struct dccsim_trace_meta dccsim_trace_[]                           \
		__attribute__((section(".dccsim.trace"), used)) = {LIST(DCCSIM_T_META_)};    \
	static __always_inline T *STATE(struct dccsim_ctx *c) { return (T *)c->state; }

/* What the plugin's packets carry: DCCSIM_FLAGS(DCCSIM_NEEDS_INT) for a law that reads ctx->hop[]
 * (the simulator then puts an INT header on its packets and refuses to run with INT off),
 * DCCSIM_FLAGS(DCCSIM_TIMESTAMP) for one that wants the timestamp header's size accounted. */
#define DCCSIM_NEEDS_INT 1
#define DCCSIM_TIMESTAMP 2
#define DCCSIM_FLAGS(f) \
	static const __u32 dccsim_flags_ __attribute__((section(".dccsim.flags"), used)) = (f);

/* An entry point: `fn` is a static __always_inline void fn(struct dccsim_ctx *c).  The section
 * name starts with '?' so that libbpf does not load it on its own.  Built for the kernel
 * (bpf/plugin_kernel.bpf.c defines DCCSIM_KERNEL), an entry is only an inline function that the
 * struct_ops wrapper calls. */
#ifdef DCCSIM_KERNEL
#define DCCSIM_ENTRY(entry, fn) \
	static __always_inline void dccsim_k_##entry(struct dccsim_ctx *c) { fn(c); }
#else
#define DCCSIM_ENTRY(entry, fn)                                                         \
	__attribute__((section("?dccsim/" #entry), used)) int dccsim_##entry(struct dccsim_ctx *c) \
	{                                                                               \
		fn(c);                                                                  \
		return 0;                                                               \
	}
#endif

/* ---------------------------------------------------------------- arithmetic helpers */

static __always_inline __u64 dccsim_min(__u64 a, __u64 b) { return a < b ? a : b; }
static __always_inline __u64 dccsim_max(__u64 a, __u64 b) { return a > b ? a : b; }
/* TCP sequence comparison a >= b modulo 2^32 */
static __always_inline int dccsim_seq_ge(__u32 a, __u32 b) { return (__s32)(a - b) >= 0; }
/* bandwidth-delay product in bytes of rate_bps over t_ns */
static __always_inline __u64 dccsim_bdp_bytes(__u64 rate_bps, __u64 t_ns)
{
	return (rate_bps / 1000) * t_ns / 8000000ULL;
}

#endif
