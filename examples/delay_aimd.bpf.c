/* SPDX-License-Identifier: MIT */
/*
 * delay_aimd: a delay-based AIMD congestion controller as a dccsim plugin (docs/plugins.md).
 *
 * The law: while the RTT stays below base RTT + target, grow the window by `ai_mss` MSS per RTT;
 * when an ACK's RTT is above it, cut the window by the factor `md` times the relative excess
 * delay, at most once per window of data.  Loss halves the window, a timeout restarts it at one
 * MSS.
 *
 * Build and run it:   dccsim run powertcp-incast --plugin delay_aimd.bpf.c
 * (the simulator compiles it with clang -O2 -target bpf, caches the object, and loads it).
 *
 * Restricted C: integers only, every function static __always_inline, loops bounded and unrolled,
 * memory only through the context `c` and local variables.
 */
#include "plugin_api.h"

/* Parameters: P(name, default, min, max, shift, unit, description).  The scenario sets them in
 * its [cc] table (`target_us = 8`); PARAM(c, name) reads value * 2^shift. */
#define AIMD_PARAMS(P)                                                                  \
	P(target_us, 10, 1, 100000, 0, "us", "queueing delay allowed above the base RTT")  \
	P(ai_mss, 1, 0.0625, 100, 10, "MSS/RTT", "additive increase per RTT")              \
	P(md, 0.5, 0, 1, 10, "", "decrease factor per unit of relative excess delay")     \
	P(init_cwnd_mss, 10, 1, 100000, 0, "MSS", "initial window (0 = one BDP)")

DCCSIM_PARAMS(AIMD_PARAMS)

/* The state kept between calls: at most 104 bytes. */
struct aimd_state {
	__u64 cwnd_w;    /* window in 1/1024 byte, so small increments do not truncate */
	__u64 qdelay_ns; /* queueing delay of the last ACK */
	__u64 cuts;      /* multiplicative decreases so far */
	__u32 recover;   /* no cut again before snd_una passes this */
	__u32 _pad;
};

/* Traceable variables: T(name, field, shift); the trace shows field / 2^shift. */
#define AIMD_TRACE(T) T(cwnd, cwnd_w, 10) T(qdelay_ns, qdelay_ns, 0) T(cuts, cuts, 0)

DCCSIM_STATE(struct aimd_state, AIMD_TRACE)

#define W_SHIFT 10

static __always_inline void publish(struct dccsim_ctx *c, struct aimd_state *s)
{
	__u64 min_w = (__u64)c->mss << W_SHIFT;

	if (s->cwnd_w < min_w)
		s->cwnd_w = min_w;
	c->cwnd_bytes = s->cwnd_w >> W_SHIFT;
	c->pacing_bps = 0; /* window-limited, unpaced */
}

static __always_inline void aimd_init(struct dccsim_ctx *c)
{
	struct aimd_state *s = STATE(c);
	__u64 init = (__u64)PARAM(c, init_cwnd_mss) * c->mss;

	if (init == 0)
		init = dccsim_bdp_bytes(c->line_rate_bps, c->base_rtt_ns);
	s->cwnd_w = init << W_SHIFT;
	s->recover = c->snd_nxt;
	publish(c, s);
}

static __always_inline void aimd_on_ack(struct dccsim_ctx *c)
{
	struct aimd_state *s = STATE(c);
	__u64 target = c->base_rtt_ns + (__u64)PARAM(c, target_us) * 1000;

	s->qdelay_ns = c->rtt_ns > c->base_rtt_ns ? c->rtt_ns - c->base_rtt_ns : 0;
	if (c->rtt_ns > target) {
		if (dccsim_seq_ge(c->snd_una, s->recover)) {
			/* cut by md * (rtt - target) / rtt, at most by md */
			__u64 excess = ((c->rtt_ns - target) << W_SHIFT) / c->rtt_ns; /* 1/1024 */
			__u64 cut = (excess * (__u64)PARAM(c, md)) >> W_SHIFT;           /* 1/1024 */

			s->cwnd_w -= (s->cwnd_w >> W_SHIFT) * cut;
			s->recover = c->snd_nxt;
			s->cuts++;
		}
	} else if (c->cwnd_limited && c->acked_bytes) {
		/* ai_mss MSS per window: ai * mss * acked / cwnd per ACK */
		__u64 cwnd = s->cwnd_w >> W_SHIFT;
		__u64 inc = (__u64)PARAM(c, ai_mss) * c->mss * c->acked_bytes / (cwnd ? cwnd : 1);

		s->cwnd_w += inc;
	}
	publish(c, s);
}

static __always_inline void aimd_on_loss(struct dccsim_ctx *c)
{
	struct aimd_state *s = STATE(c);

	s->cwnd_w /= 2;
	publish(c, s);
}

static __always_inline void aimd_on_timeout(struct dccsim_ctx *c)
{
	struct aimd_state *s = STATE(c);

	s->cwnd_w = (__u64)c->mss << W_SHIFT;
	publish(c, s);
}

DCCSIM_ENTRY(init, aimd_init)
DCCSIM_ENTRY(on_ack, aimd_on_ack)
DCCSIM_ENTRY(on_loss, aimd_on_loss)
DCCSIM_ENTRY(on_timeout, aimd_on_timeout)
