/* SPDX-License-Identifier: MIT */
/*
 * TBTCP (tiny-buffer TCP: QCD and RAI, §3, §4.3, §6) as a dccsim plugin: the one C source of the
 * law that the simulator runs (`[cc] plugin = "bpf/laws/tbtcp.bpf.c"`) and that the Linux testbed
 * runs as `--cc tbtcp` (bpf/plugin_kernel.bpf.c includes this file).  The native `tbtcp`
 * (cc/tbtcp.rs) is the fast path; crates/engine/tests/vectors.rs checks the two against each other
 * for both laws.
 *
 * Laws (`law`): 0 = paper (§6, the default: each ECE removes min(S·MSS, cwnd/2) while cwnd is
 * above qcd_min_cwnd_mss), 1 = linux (each ECE removes S·MSS, never below half the window at the
 * start of the RTT nor qcd_min_cwnd_mss; slow start by every acknowledged byte).  RAI: α MSS per
 * RTT after slow start; the first ECE ends slow start.  On the NewReno core of bpf/cc_math.h.
 */
#include "plugin_api.h"
#include "cc_math.h"

#define TBTCP_PARAMS(P)                                                                       \
	P(law, 0, 0, 1, 0, "", "0 = paper (§6), 1 = linux")                                     \
	P(s, 1, 0.001, 1000, 10, "MSS", "S, MSS removed per ECE")                              \
	P(rai_alpha, 0.1, 0.0001, 100, 20, "MSS/RTT", "RAI α, increase per RTT after slow start") \
	P(qcd_min_cwnd_mss, 2, 0, 1e6, 10, "MSS", "QCD acts only above this window")            \
	P(init_cwnd_mss, 10, 0.001, 100000, 10, "MSS", "initial window")                        \
	P(max_cwnd_mss, 0, 0, 1e7, 10, "MSS", "window ceiling, 0 = unbounded")

DCCSIM_PARAMS(TBTCP_PARAMS)

struct tbtcp_state {
	struct ccm_reno r;
	__u64 round_floor; /* linux: half the window at the start of the round (w units) */
	__u32 round_end;   /* linux: the round ends when snd_una reaches this */
	__u32 _pad;
};

#define TBTCP_TRACE(T) T(cwnd, r.cwnd, 10)

DCCSIM_STATE(struct tbtcp_state, TBTCP_TRACE)

static __always_inline void publish(struct dccsim_ctx *c, struct tbtcp_state *s)
{
	c->cwnd_bytes = ccm_w_bytes(s->r.cwnd);
	c->pacing_bps = 0; /* ACK-clocked */
}

static __always_inline void tbtcp_init(struct dccsim_ctx *c)
{
	struct tbtcp_state *s = STATE(c);
	__u64 init = ((__u64)PARAM(c, init_cwnd_mss) * c->mss) >> 10;
	__u64 max = ((__u64)PARAM(c, max_cwnd_mss) * c->mss) >> 10;

	ccm_reno_init(&s->r, init, max, c->snd_una, c->snd_nxt);
	s->round_floor = s->r.cwnd / 2;
	s->round_end = c->snd_nxt;
	publish(c, s);
}

static __always_inline void tbtcp_on_ack(struct dccsim_ctx *c)
{
	struct tbtcp_state *s = STATE(c);
	struct ccm_reno *r = &s->r;
	__u64 ai = (__u64)PARAM(c, rai_alpha);
	__u64 step = ((__u64)PARAM(c, s) * c->mss) << (CCM_W_SHIFT - 10); /* S·MSS, w units */
	__u64 qmin = ((__u64)PARAM(c, qcd_min_cwnd_mss) * c->mss) << (CCM_W_SHIFT - 10);
	__u64 floor;

	ccm_reno_observe(r, c->snd_una, c->snd_nxt, c->cwnd_limited);
	if (PARAM(c, law) == 1) {
		if (ccm_seq_ge(c->snd_una, s->round_end)) {
			s->round_end = c->snd_nxt;
			s->round_floor = r->cwnd / 2;
		}
		if (c->ecn) {
			floor = ccm_max(s->round_floor, qmin);
			r->cwnd = r->cwnd > floor + step ? r->cwnd - step : ccm_min(r->cwnd, floor);
			r->cwnd = ccm_max(r->cwnd, qmin);
			r->ssthresh = r->cwnd; /* the first mark ends slow start */
		} else if (ccm_reno_in_ss(r)) {
			ccm_reno_slow_start_all(r, c->acked_bytes);
		} else {
			ccm_reno_increase(r, c->acked_bytes, c->mss, ai); /* RAI */
		}
	} else if (c->ecn) {
		if (r->cwnd > qmin) /* §6: QCD = min(S·MSS, cwnd/2) */
			r->cwnd -= ccm_min(step, r->cwnd / 2);
		r->ssthresh = r->cwnd; /* §4.3: the first ECN ends slow start */
	} else {
		ccm_reno_increase(r, c->acked_bytes, c->mss, ai); /* slow start, or RAI */
	}
	publish(c, s);
}

static __always_inline void tbtcp_on_loss(struct dccsim_ctx *c)
{
	struct tbtcp_state *s = STATE(c);

	ccm_reno_on_loss(&s->r, c->mss);
	publish(c, s);
}

static __always_inline void tbtcp_on_timeout(struct dccsim_ctx *c)
{
	struct tbtcp_state *s = STATE(c);

	ccm_reno_on_rto(&s->r, c->mss);
	publish(c, s);
}

DCCSIM_ENTRY(init, tbtcp_init)
DCCSIM_ENTRY(on_ack, tbtcp_on_ack)
DCCSIM_ENTRY(on_loss, tbtcp_on_loss)
DCCSIM_ENTRY(on_timeout, tbtcp_on_timeout)
