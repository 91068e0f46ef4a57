/* SPDX-License-Identifier: MIT */
/*
 * DCTCP (RFC 8257) as a dccsim plugin: the one C source of the law that the simulator runs
 * (`[cc] plugin = "bpf/laws/dctcp.bpf.c"`) and that the Linux testbed runs as `--cc dctcp`
 * (bpf/plugin_kernel.bpf.c includes this file).  The native `dctcp` (cc/dctcp.rs) is the fast
 * path; crates/engine/tests/vectors.rs checks the two against each other for both laws.
 *
 * Laws (`law`): 0 = rfc (RFC 8257 §3.3 as written, the default: a window closes when SND.UNA
 * passes WindowEnd, after the ACK's cut decision; slow start by at most one MSS per ACK),
 * 1 = linux (Linux's dctcp: a window closes when snd_una reaches WindowEnd, α before the cut,
 * slow start by every acknowledged byte).  Both on the NewReno core of bpf/cc_math.h.
 */
#include "plugin_api.h"
#include "cc_math.h"

#define DCTCP_PARAMS(P)                                                                       \
	P(law, 0, 0, 1, 0, "", "0 = rfc (RFC 8257), 1 = linux")                                \
	P(g, 0.0625, 0, 1, 20, "", "EWMA gain of α (RFC 8257: 1/16)")                         \
	P(init_alpha, 1, 0, 1, 20, "", "initial α")                                             \
	P(init_cwnd_mss, 10, 0.001, 100000, 10, "MSS", "initial window")                        \
	P(ai_mss_per_rtt, 1, 0.001, 100, 20, "MSS/RTT", "additive increase")                    \
	P(max_cwnd_mss, 0, 0, 1e7, 10, "MSS", "window ceiling, 0 = unbounded")

DCCSIM_PARAMS(DCTCP_PARAMS)

struct dctcp_state {
	struct ccm_reno r;
	__u64 alpha;   /* ×2^20 */
	__u64 acked;   /* bytes acknowledged in the observation window */
	__u64 marked;  /* of which with ECE */
	__u32 win_end; /* WindowEnd: snd_nxt at the previous estimate */
	__u32 _pad;
};

#define DCTCP_TRACE(T) T(alpha, alpha, 20) T(cwnd, r.cwnd, 10)

DCCSIM_STATE(struct dctcp_state, DCTCP_TRACE)

static __always_inline void publish(struct dccsim_ctx *c, struct dctcp_state *s)
{
	c->cwnd_bytes = ccm_w_bytes(s->r.cwnd);
	c->pacing_bps = 0; /* ACK-clocked */
}

static __always_inline void dctcp_init(struct dccsim_ctx *c)
{
	struct dctcp_state *s = STATE(c);
	__u64 init = ((__u64)PARAM(c, init_cwnd_mss) * c->mss) >> 10;
	__u64 max = ((__u64)PARAM(c, max_cwnd_mss) * c->mss) >> 10;

	ccm_reno_init(&s->r, init, max, c->snd_una, c->snd_nxt);
	s->alpha = (__u64)PARAM(c, init_alpha);
	s->win_end = c->snd_nxt; /* Linux dctcp_init: the first window ends at snd_nxt */
	publish(c, s);
}

/* RFC 8257 §3.3 steps 1-7; returns 1 when α was updated */
static __always_inline void estimate(struct dccsim_ctx *c, struct dctcp_state *s, int close_at_end)
{
	__u64 g = (__u64)PARAM(c, g), f;

	s->acked += c->acked_bytes; /* step 2 */
	if (c->ecn)
		s->marked += c->acked_bytes; /* step 3 */
	if (!ccm_seq_ge(c->snd_una, s->win_end) || (c->snd_una == s->win_end && !close_at_end))
		return; /* step 4 */
	f = s->acked ? (s->marked << CCM_FP_SHIFT) / s->acked : 0;              /* step 5 */
	s->alpha = ccm_mulfp(s->alpha, CCM_FP_ONE - g) + ccm_mulfp(f, g);        /* step 6 */
	s->win_end = c->snd_nxt;                                                 /* step 7 */
	s->acked = 0;
	s->marked = 0;
}

/* step 9: cwnd = cwnd·(1 − α/2), once per window */
static __always_inline void cut(struct dccsim_ctx *c, struct dctcp_state *s)
{
	if (ccm_reno_may_reduce(&s->r))
		ccm_reno_reduce_to(&s->r, s->r.cwnd - ccm_mulfp(s->r.cwnd, s->alpha / 2), c->mss);
}

static __always_inline void dctcp_on_ack(struct dccsim_ctx *c)
{
	struct dctcp_state *s = STATE(c);
	__u64 ai = (__u64)PARAM(c, ai_mss_per_rtt);

	int linux = PARAM(c, law) == 1;

	/* one straight sequence for both laws (no shared block to jump back to, which the checker
	 * would refuse): linux closes the window first, rfc after the ACK's cut decision */
	ccm_reno_observe(&s->r, c->snd_una, c->snd_nxt, c->cwnd_limited);
	if (linux)
		estimate(c, s, 1); /* α first: a cut on this ACK uses the window just closed */
	if (c->ecn)
		cut(c, s);
	else if (linux && ccm_reno_in_ss(&s->r))
		ccm_reno_slow_start_all(&s->r, c->acked_bytes); /* Linux: every acknowledged byte */
	else
		ccm_reno_increase(&s->r, c->acked_bytes, c->mss, ai);
	if (!linux)
		estimate(c, s, 0);
	publish(c, s);
}

static __always_inline void dctcp_on_loss(struct dccsim_ctx *c)
{
	struct dctcp_state *s = STATE(c);

	ccm_reno_on_loss(&s->r, c->mss); /* RFC 8257 §3.4: as standard TCP */
	publish(c, s);
}

static __always_inline void dctcp_on_timeout(struct dccsim_ctx *c)
{
	struct dctcp_state *s = STATE(c);

	ccm_reno_on_rto(&s->r, c->mss);
	publish(c, s);
}

DCCSIM_ENTRY(init, dctcp_init)
DCCSIM_ENTRY(on_ack, dctcp_on_ack)
DCCSIM_ENTRY(on_loss, dctcp_on_loss)
DCCSIM_ENTRY(on_timeout, dctcp_on_timeout)
