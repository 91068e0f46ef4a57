/* SPDX-License-Identifier: MIT */
/*
 * Swift (Kumar et al., SIGCOMM'20, Algorithm 1 and §3.5) as a dccsim plugin: delay-based, it needs
 * only an RTT sample per ACK (timestamps), so the same file runs in the simulator (`[cc] plugin =
 * "bpf/laws/swift.bpf.c"`) and in the Linux testbed (`--cc swift`, bpf/plugin_kernel.bpf.c).  The
 * native `swift` (cc/swift.rs, Poseidon's parameters) is the fast path and the reference;
 * crates/engine/tests/vectors.rs checks the two against each other.
 *
 * Target delay (§3.5): T = base + hops·h + clamp(α_fs/√cwnd + β_fs, 0, fs_range), with
 * α_fs = fs_range/(1/√fs_min_cwnd − 1/√fs_max_cwnd) and β_fs = −α_fs/√fs_max_cwnd.
 * On ACK: delay < T → cwnd += ai·acked/cwnd (cwnd ≥ 1) or ai·acked (cwnd < 1); else, at most
 * once per RTT, cwnd ← cwnd·max(1 − β·(delay − T)/delay, 1 − max_mdf).  Timeout: (1 − max_mdf)
 * once per RTT, min_cwnd after retx_reset_threshold timeouts in a row; loss: (1 − max_mdf) once
 * per RTT.  Below one packet the window is a pacing rate: one packet per rtt/cwnd.
 *
 * Fixed point: the window in packets ×2^20, times in ns.  What differs from the native law: the
 * pacing rate counts `header_bytes` per packet on top of the MSS (the native law uses the
 * engine's wire size); in the kernel, `hops` is the number of INT records (0 without INT).
 */
#include "plugin_api.h"
#include "cc_math.h"

#define SWIFT_PARAMS(P)                                                                           \
	P(base_target_us, 25, 0.001, 1e6, 10, "us", "base target delay (Poseidon §5: 25 µs)")      \
	P(hop_scale_us, 1, 0, 1000, 10, "us", "target per switch hop h (Poseidon §5: 1 µs)")        \
	P(fs_range_us, 100, 0, 1e4, 10, "us", "flow-scaling range (Poseidon §5: 100 µs)")          \
	P(fs_min_cwnd, 0.1, 0.001, 1e6, 20, "packets", "flow scaling reaches fs_range (§3.5: 0.1)") \
	P(fs_max_cwnd, 100, 0.001, 1e6, 20, "packets", "flow scaling reaches 0 (§3.5: 100)")       \
	P(ai, 1, 0.0001, 1000, 20, "packets/RTT", "additive increase (Alg. 1: 1)")                \
	P(beta, 0.8, 0, 1, 20, "", "multiplicative decrease gain β (Alg. 1: 0.8)")                 \
	P(max_mdf, 0.5, 0, 1, 20, "", "maximum multiplicative decrease (Alg. 1: 0.5)")            \
	P(min_cwnd, 0.001, 0.0001, 1e6, 20, "packets", "minimum window (§3.4: 0.001)")            \
	P(max_cwnd, 0, 0, 1e6, 20, "packets", "maximum window, 0 = unbounded")                    \
	P(retx_reset_threshold, 5, 1, 1000, 0, "", "timeouts in a row that reset cwnd to min_cwnd") \
	P(init_cwnd, 0, 0, 1e6, 20, "packets", "initial window, 0 = one host BDP")                 \
	P(header_bytes, 66, 0, 10000, 0, "B", "bytes per packet beside the MSS (pacing only)")

DCCSIM_PARAMS(SWIFT_PARAMS)

struct swift_state {
	__u64 cwnd;        /* packets ×2^20 */
	__u64 rtt_ns;      /* latest RTT sample (the path's base RTT before the first) */
	__u64 t_last_dec;  /* time of the last decrease, ns */
	__s64 alpha_fs;    /* ns ×2^20 (α_fs·√packets) */
	__s64 beta_fs;     /* ns */
	__u32 have_dec;    /* a decrease happened */
	__u32 retx;        /* timeouts in a row */
	__u64 target_ns;   /* the target of the last ACK */
};

#define SWIFT_TRACE(T) T(cwnd_packets, cwnd, 20) T(rtt_ns, rtt_ns, 0) T(target_ns, target_ns, 0)

DCCSIM_STATE(struct swift_state, SWIFT_TRACE)

#define ONE CCM_FP_ONE

/* 1/√x for x ×2^20, ×2^20 */
static __always_inline __u64 inv_sqrt(__u64 x)
{
	__u64 r = ccm_isqrt(x << 20); /* √x ×2^20 */

	return r ? (1ULL << 40) / r : 0;
}

static __always_inline __u64 max_cwnd(struct dccsim_ctx *c)
{
	return PARAM(c, max_cwnd) > 0 ? (__u64)PARAM(c, max_cwnd) : ~0ULL;
}

static __always_inline void publish(struct dccsim_ctx *c, struct swift_state *s)
{
	__u64 pkt = c->mss + (__u64)PARAM(c, header_bytes);

	c->cwnd_bytes = (ccm_max(s->cwnd, ONE) * c->mss) >> 20;
	/* below one packet: one packet every rtt/cwnd */
	c->pacing_bps = s->cwnd < ONE && s->rtt_ns ? (s->cwnd * pkt * 8 * 1000000000ULL >> 20) / s->rtt_ns : 0;
}

static __always_inline void swift_init(struct dccsim_ctx *c)
{
	struct swift_state *s = STATE(c);
	__u64 inv_min = inv_sqrt((__u64)PARAM(c, fs_min_cwnd)), inv_max = inv_sqrt((__u64)PARAM(c, fs_max_cwnd));
	__u64 range_ns = ((__u64)PARAM(c, fs_range_us) * 1000) >> 10;
	__u64 w = (__u64)PARAM(c, init_cwnd);

	/* α_fs = fs_range/(1/√fs_min − 1/√fs_max), β_fs = −α_fs/√fs_max */
	s->alpha_fs = inv_min > inv_max ? (__s64)((range_ns << 40) / (inv_min - inv_max)) : 0;
	s->beta_fs = -(__s64)(((__u64)s->alpha_fs * inv_max) >> 40);
	if (w == 0) /* one host BDP, in packets */
		w = c->mss ? ((c->line_rate_bps * c->base_rtt_ns / 8000000000ULL) << 20) / c->mss : ONE;
	s->cwnd = ccm_min(ccm_max(w, (__u64)PARAM(c, min_cwnd)), max_cwnd(c));
	s->rtt_ns = c->path_rtt_ns;
	publish(c, s);
}

/* §3.5: T = base + hops·h + clamp(α_fs/√cwnd + β_fs, 0, fs_range), ns */
static __always_inline __u64 target(struct dccsim_ctx *c, struct swift_state *s)
{
	__s64 range = (__s64)(((__u64)PARAM(c, fs_range_us) * 1000) >> 10);
	__s64 fs = (__s64)((((__u64)s->alpha_fs >> 20) * inv_sqrt(s->cwnd)) >> 20) + s->beta_fs;

	fs = ccm_smin(ccm_smax(fs, 0), range);
	return (((__u64)PARAM(c, base_target_us) + (__u64)c->path_hops * (__u64)PARAM(c, hop_scale_us)) * 1000 >> 10) +
	       (__u64)fs;
}

static __always_inline int can_decrease(struct swift_state *s, __u64 now)
{
	return !s->have_dec || now - ccm_min(s->t_last_dec, now) >= s->rtt_ns;
}

static __always_inline void commit(struct dccsim_ctx *c, struct swift_state *s, __u64 prev)
{
	s->cwnd = ccm_min(ccm_max(s->cwnd, (__u64)PARAM(c, min_cwnd)), max_cwnd(c));
	if (s->cwnd < prev) {
		s->t_last_dec = c->now_ns;
		s->have_dec = 1;
	}
	publish(c, s);
}

static __always_inline void swift_on_ack(struct dccsim_ctx *c)
{
	struct swift_state *s = STATE(c);
	__u64 prev = s->cwnd, delay = c->rtt_ns, t, acked, f, cut;

	if (delay > 0)
		s->rtt_ns = delay;
	s->retx = 0;
	t = target(c, s);
	s->target_ns = t;
	acked = c->mss ? (c->acked_bytes << 20) / c->mss : 0; /* packets ×2^20 */
	if (delay < t) {
		if (s->cwnd >= ONE)
			s->cwnd += ((__u64)PARAM(c, ai) * acked) / s->cwnd; /* ai/cwnd · num_acked */
		else
			s->cwnd += ccm_mulfp(acked, (__u64)PARAM(c, ai)); /* ai · num_acked */
	} else if (can_decrease(s, c->now_ns)) {
		/* cwnd·max(1 − β·(delay − T)/delay, 1 − max_mdf) */
		cut = ccm_mulfp(((delay - t) << 20) / delay, (__u64)PARAM(c, beta));
		f = ccm_max(cut < ONE ? ONE - cut : 0, ONE - (__u64)PARAM(c, max_mdf));
		s->cwnd = ccm_mulfp(s->cwnd, f);
	}
	commit(c, s, prev);
}

static __always_inline void swift_on_timeout(struct dccsim_ctx *c)
{
	struct swift_state *s = STATE(c);
	__u64 prev = s->cwnd;

	s->retx++;
	if (s->retx >= (__u64)PARAM(c, retx_reset_threshold))
		s->cwnd = (__u64)PARAM(c, min_cwnd);
	else if (can_decrease(s, c->now_ns))
		s->cwnd = ccm_mulfp(s->cwnd, ONE - (__u64)PARAM(c, max_mdf));
	commit(c, s, prev);
}

static __always_inline void swift_on_loss(struct dccsim_ctx *c)
{
	struct swift_state *s = STATE(c);
	__u64 prev = s->cwnd;

	s->retx = 0;
	if (can_decrease(s, c->now_ns)) /* fast recovery */
		s->cwnd = ccm_mulfp(s->cwnd, ONE - (__u64)PARAM(c, max_mdf));
	commit(c, s, prev);
}

DCCSIM_ENTRY(init, swift_init)
DCCSIM_ENTRY(on_ack, swift_on_ack)
DCCSIM_ENTRY(on_loss, swift_on_loss)
DCCSIM_ENTRY(on_timeout, swift_on_timeout)
DCCSIM_FLAGS(DCCSIM_TIMESTAMP)
