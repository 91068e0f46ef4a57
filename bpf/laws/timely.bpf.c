/* SPDX-License-Identifier: MIT */
/*
 * TIMELY (Mittal et al., SIGCOMM'15, Algorithm 1) as a dccsim plugin: a rate-based law, whose
 * output is the pacing rate (`c->pacing_bps`) with no window limit.  The same file runs in the
 * simulator (`[cc] plugin = "bpf/laws/timely.bpf.c"`); the native `timely` (cc/timely.rs) is the
 * fast path and the reference, and crates/engine/tests/vectors.rs checks the two against each
 * other for every option below.
 *
 * Per completion event, RTT sample new_rtt (Algorithm 1):
 *   new_rtt_diff = new_rtt − prev_rtt ; prev_rtt = new_rtt
 *   rtt_diff     = (1 − α)·rtt_diff + α·new_rtt_diff
 *   gradient     = rtt_diff / minRTT
 *   new_rtt < T_low   : rate ← rate + δ
 *   new_rtt > T_high  : rate ← rate·(1 − β·(1 − T_high/new_rtt))
 *   gradient ≤ 0      : rate ← rate + N·δ (N = hai_n after hai_after increases in a row, else 1)
 *   otherwise         : rate ← rate·(1 − β·gradient)
 * rate clamped to [min_rate, line rate], starting at line rate.  Completion events (`completion`):
 * 0 = segment (the paper, §3: the ACK that first covers the end of each `segment_bytes` counted
 * from the flow's first byte), 1 = rtt (the ns-3 artifact: an ACK beyond the snd_nxt of the
 * previous update).  `increase`: 0 = paper (only gradient-branch increases count towards HAI),
 * 1 = artifact (every increase counts; a decrease resets; the step is δ before hai_after).  The
 * first completion only records prev_rtt.  These are the native law's choices (cc/timely.rs).
 *
 * Fixed point: rtt_diff in ns ×2^10 (signed), factors ×2^20, rates in bit/s, times in ns.  The
 * window output is 2^40 bytes (no limit: the rate is the law's only output).
 */
#include "plugin_api.h"
#include "cc_math.h"

#define TIMELY_PARAMS(P)                                                                          \
	P(completion, 0, 0, 1, 0, "", "0 = segment (TIMELY §3), 1 = rtt (ns-3 artifact)")          \
	P(segment_bytes, 16384, 1, 1e9, 0, "B", "segment of a completion event (§3: 16–64 KB)")     \
	P(ewma_alpha, 0.875, 0, 1, 20, "", "EWMA weight α of the new RTT difference (§5: 0.875)")  \
	P(beta, 0.8, 0, 1, 20, "", "multiplicative decrease β (§5: 0.8)")                          \
	P(t_low_us, 50, 0, 1e6, 10, "us", "T_low (PowerTCP configs: 50 µs)")                       \
	P(t_high_us, 500, 0.001, 1e6, 10, "us", "T_high (PowerTCP configs: 500 µs)")               \
	P(min_rtt_us, 20, 0.001, 1e6, 10, "us", "minRTT normalising the gradient (20 µs)")         \
	P(delta_bps, 50e6, 0, 1e12, 0, "bit/s", "additive step δ (PowerTCP configs: 50 Mb/s)")     \
	P(hai_n, 5, 0, 1000, 10, "", "HAI multiplier N (Alg. 1: 5)")                               \
	P(hai_after, 5, 0, 1e6, 0, "", "increases in a row before HAI (Alg. 1: 5)")                \
	P(hai_step_bps, 0, 0, 1e12, 0, "bit/s", "fixed HAI step instead of N·δ; 0 = N·δ")           \
	P(min_rate_bps, 100e6, 0, 1e12, 0, "bit/s", "lower rate bound (PowerTCP configs: 100 Mb/s)") \
	P(increase, 0, 0, 1, 0, "", "0 = paper, 1 = artifact (rdma-hw.cc UpdateRateTimely)")

DCCSIM_PARAMS(TIMELY_PARAMS)

struct timely_state {
	__u64 rate_bps;    /* the law's rate */
	__s64 rtt_diff;    /* smoothed RTT difference, ns ×2^10 */
	__u64 prev_rtt_ns; /* previous completion's RTT */
	__u32 done;        /* segment: the sequence ending the next segment; rtt: snd_nxt at the last update */
	__u32 n_inc;       /* increases in a row (HAI) */
	__u32 have_prev;   /* prev_rtt_ns holds a sample */
	__u32 updated;     /* rtt: an update happened (done is set) */
};

#define TIMELY_TRACE(T) T(rate_bps, rate_bps, 0) T(rtt_diff_ns, rtt_diff, 10) T(n_inc, n_inc, 0)

DCCSIM_STATE(struct timely_state, TIMELY_TRACE)

#define ONE CCM_FP_ONE
#define NO_WINDOW (1ULL << 40)

/* a·f for a signed a and a factor f ×2^20, rounded toward zero */
static __always_inline __s64 smulfp(__s64 a, __u64 f)
{
	return a < 0 ? -(__s64)(((__u64)(-a) * f) >> CCM_FP_SHIFT) : (__s64)(((__u64)a * f) >> CCM_FP_SHIFT);
}

static __always_inline __u64 us_ns(__s64 p) { return ((__u64)p * 1000) >> 10; } /* a ×2^10 µs parameter in ns */

static __always_inline void publish(struct dccsim_ctx *c, struct timely_state *s)
{
	c->cwnd_bytes = NO_WINDOW;
	c->pacing_bps = s->rate_bps;
}

static __always_inline void timely_init(struct dccsim_ctx *c)
{
	struct timely_state *s = STATE(c);

	s->rate_bps = c->line_rate_bps;
	s->done = PARAM(c, completion) == 0 ? c->snd_una + (__u32)PARAM(c, segment_bytes) : 0;
	publish(c, s);
}

/* is this ACK a completion event? (advances the completion state when it is) */
static __always_inline int completes(struct dccsim_ctx *c, struct timely_state *s)
{
	__u32 seg = (__u32)PARAM(c, segment_bytes);

	if (PARAM(c, completion) == 0) {
		if (!ccm_seq_ge(c->snd_una, s->done))
			return 0;
		/* the first segment end beyond snd_una */
		s->done += seg * ((c->snd_una - s->done) / seg + 1);
		return 1;
	}
	/* artifact: `ack_seq > m_lastUpdateSeq` … `m_lastUpdateSeq = snd_nxt` (0 before the first) */
	if (s->updated ? (__s32)(c->snd_una - s->done) <= 0 : c->snd_una == 0)
		return 0;
	s->done = c->snd_nxt;
	s->updated = 1;
	return 1;
}

static __always_inline void timely_on_ack(struct dccsim_ctx *c)
{
	struct timely_state *s = STATE(c);
	__u64 rtt = c->rtt_ns, t_low = us_ns(PARAM(c, t_low_us)), t_high = us_ns(PARAM(c, t_high_us));
	__u64 alpha = (__u64)PARAM(c, ewma_alpha), beta = (__u64)PARAM(c, beta), delta = (__u64)PARAM(c, delta_bps);
	__u64 hai, f, bg, rate = s->rate_bps;
	__u32 n, after = (__u32)PARAM(c, hai_after);
	__s64 new_diff, g;
	int art, up, counts, use_hai;

	if (!completes(c, s))
		return;
	if (!s->have_prev) { /* the first sample: nothing to differentiate */
		s->prev_rtt_ns = rtt;
		s->have_prev = 1;
		return;
	}
	new_diff = ((__s64)rtt - (__s64)s->prev_rtt_ns) * 1024; /* new_rtt_diff, ns ×2^10 */
	s->prev_rtt_ns = rtt;
	s->rtt_diff = smulfp(s->rtt_diff, ONE - alpha) + smulfp(new_diff, alpha);
	g = ccm_sdiv(s->rtt_diff * 1024, us_ns(PARAM(c, min_rtt_us))); /* rtt_diff/minRTT ×2^20 */
	hai = PARAM(c, hai_step_bps) > 0 ? (__u64)PARAM(c, hai_step_bps) : ((__u64)PARAM(c, hai_n) * delta) >> 10;
	/* the decrease factors: above T_high 1 − β·(1 − T_high/new_rtt), else max(0, 1 − β·gradient) */
	f = rtt > t_high ? ONE - ((beta * (ONE - (t_high << CCM_FP_SHIFT) / rtt)) >> CCM_FP_SHIFT) : ONE;
	bg = g > 0 ? ((__u64)g * beta) >> CCM_FP_SHIFT : 0; /* β·gradient ×2^20 */
	if (rtt <= t_high)
		f = bg >= ONE ? 0 : ONE - bg;
	/* Both laws increase below T_low and, up to T_high, on a non-positive gradient; they differ in
	 * what counts towards HAI. paper: gradient-branch increases, HAI from the hai_after-th on (T_low
	 * increases neither count nor reset); artifact: every increase, HAI once hai_after preceded it.
	 * (One path for both: clang would otherwise share the laws' tails with backward jumps, which
	 * the checker refuses.) */
	art = PARAM(c, increase) == 1;
	up = rtt < t_low || (rtt <= t_high && g <= 0);
	counts = art || rtt >= t_low;
	n = s->n_inc + (counts ? 1 : 0);
	use_hai = art ? s->n_inc >= after : (counts && n >= after);
	if (up) {
		rate += use_hai ? hai : delta;
		s->n_inc = n;
	} else {
		rate = ccm_mulfp(rate, f);
		s->n_inc = 0;
	}
	rate = ccm_max(rate, (__u64)PARAM(c, min_rate_bps));
	s->rate_bps = ccm_min(rate, c->line_rate_bps);
	publish(c, s);
}

DCCSIM_ENTRY(init, timely_init)
DCCSIM_ENTRY(on_ack, timely_on_ack)
DCCSIM_FLAGS(DCCSIM_TIMESTAMP)
