/* SPDX-License-Identifier: MIT */
/*
 * DCTCP (RFC 8257, the Linux reading) as a dccsim plugin, built on the same fixed-point law as the
 * testbed's struct_ops controller (bpf/cc_math.h ccm_dctcp_*, bpf/cc_dctcp.bpf.c).  It exists to
 * measure what running a law as a plugin costs against the native Rust `dctcp` (docs/benchmarks.md).
 *
 *   dccsim run powertcp-incast --plugin examples/dctcp.bpf.c
 */
#include "plugin_api.h"
#include "cc_math.h"

#define DCTCP_PARAMS(P)                                                          \
	P(g_shift, 4, 0, 16, 0, "", "EWMA gain of alpha is 2^-g_shift (RFC 8257: 1/16)") \
	P(init_cwnd_mss, 10, 1, 100000, 0, "MSS", "initial window")                 \
	P(min_cwnd_mss, 2, 1, 100, 0, "MSS", "smallest window after a cut")

DCCSIM_PARAMS(DCTCP_PARAMS)

#define DCTCP_TRACE(T) T(cwnd, st.cwnd, 10) T(alpha, st.alpha, 20)

struct dctcp_state {
	struct ccm_dctcp_state st;
};

DCCSIM_STATE(struct dctcp_state, DCTCP_TRACE)

static __always_inline void publish(struct dccsim_ctx *c, struct dctcp_state *s)
{
	c->cwnd_bytes = ccm_w_bytes(s->st.cwnd);
}

static __always_inline void dctcp_init(struct dccsim_ctx *c)
{
	struct dctcp_state *s = STATE(c);

	ccm_dctcp_init(&s->st, (__u64)PARAM(c, init_cwnd_mss) * c->mss, c->snd_una, c->snd_nxt);
	publish(c, s);
}

static __always_inline void dctcp_on_ack(struct dccsim_ctx *c)
{
	struct dctcp_state *s = STATE(c);
	struct ccm_dctcp_params p = {
		.mss = c->mss,
		.g_shift = (__u32)PARAM(c, g_shift),
		.min_cwnd = (__u32)PARAM(c, min_cwnd_mss) * c->mss,
	};
	__u64 before = s->st.cwnd;

	ccm_dctcp_on_ack(&s->st, &p, c->snd_una, c->snd_nxt, c->acked_bytes, c->ecn);
	if (!c->cwnd_limited && s->st.cwnd > before) /* not window-limited: no growth */
		s->st.cwnd = before;
	publish(c, s);
}

static __always_inline void dctcp_on_loss(struct dccsim_ctx *c)
{
	struct dctcp_state *s = STATE(c);
	__u64 min_w = ccm_bytes_w(2ULL * c->mss);

	s->st.cwnd = ccm_max(s->st.cwnd / 2, min_w); /* Reno halving */
	s->st.ssthresh = s->st.cwnd;
	publish(c, s);
}

static __always_inline void dctcp_on_timeout(struct dccsim_ctx *c)
{
	struct dctcp_state *s = STATE(c);

	s->st.ssthresh = ccm_max(s->st.cwnd / 2, ccm_bytes_w(2ULL * c->mss));
	s->st.cwnd = ccm_bytes_w(c->mss);
	publish(c, s);
}

DCCSIM_ENTRY(init, dctcp_init)
DCCSIM_ENTRY(on_ack, dctcp_on_ack)
DCCSIM_ENTRY(on_loss, dctcp_on_loss)
DCCSIM_ENTRY(on_timeout, dctcp_on_timeout)
