/* SPDX-License-Identifier: MIT */
/*
 * PowerTCP (Addanki et al., NSDI'22, §3.3 Algorithm 1) as a dccsim plugin: the one C source of the
 * law that the simulator runs (`[cc] plugin = "bpf/laws/powertcp.bpf.c"`) and that the Linux
 * testbed runs as `--cc powertcp` (bpf/plugin_kernel.bpf.c includes this file and fills the INT
 * records from the receiver's tc program).  The native `powertcp` (cc/powertcp.rs) is the fast
 * path; crates/engine/tests/vectors.rs checks the two against each other for every law option.
 *
 * Laws (`law`): 0 = paper (Algorithm 1, the default), 1 = linux (the power floored at 0.01,
 * cwnd_old left alone by ACKs that do not update the window).  Not here: the native
 * `tcp-advanced` and `rdma-hw` rate laws and `first_int_against_zero`.  The INT byte counter is
 * read as bytes sent (`switch.int_bytes = "tx"`, the testbed's); at most the first 5 hops of a
 * path are kept (the state is 104 bytes).
 */
#include "plugin_api.h"
#include "cc_math.h"

#define POWER_PARAMS(P)                                                                          \
	P(law, 0, 0, 1, 0, "", "0 = paper (Algorithm 1), 1 = linux")                              \
	P(gamma, 0.9, 0, 1, 20, "", "γ, EWMA weight of the window update")                        \
	P(beta_bytes, 0, 0, 1e9, 0, "B", "β; 0 = additive_increase_bps·τ/8")                       \
	P(additive_increase_bps, 150e6, 0, 1e12, 0, "bit/s", "additive increase as a rate")        \
	P(init_cwnd_bytes, 0, 0, 1e9, 0, "B", "initial window; 0 = HostBw·τ")                      \
	P(current_floor, 0, 0, 1, 20, "", "floor of the current λ as a fraction of the hop's rate") \
	P(power_floor, -1, -1, 1000, 20, "", "floor of Γ_norm and Γ_smooth; -1 = the law's (paper none, linux 0.01)") \
	P(per_rtt, 0, 0, 1, 0, "", "1 = apply the window law at most once per τ")

DCCSIM_PARAMS(POWER_PARAMS)

#include "power_common.h"

#define KEEP_HOPS 5

struct kept_hop {
	__u32 qlen;
	__u32 tx;
	__u32 ts;
};

struct power_state {
	__u64 cwnd_w;        /* window, 1/1024 byte */
	__u64 old_w;         /* cwnd_old (lines 7, 11) */
	__u64 smooth;        /* Γ_smooth ×2^20 */
	__u64 next_update_ns;/* per_rtt: no update before this */
	__u32 old_until;     /* cwnd_old is refreshed when snd_una reaches this */
	__u32 nhops;         /* hops in prev[] (0: no previous INT) */
	struct kept_hop prev[KEEP_HOPS];
};

#define POWER_TRACE(T) T(smoothed_power, smooth, 20) T(cwnd, cwnd_w, 10)

DCCSIM_STATE(struct power_state, POWER_TRACE)

static __always_inline __s64 power_floor(struct dccsim_ctx *c)
{
	if (PARAM(c, power_floor) >= 0)
		return PARAM(c, power_floor);
	return PARAM(c, law) == 1 ? (__s64)(CCM_FP_ONE / 100) : -1;
}

static __always_inline void power_init(struct dccsim_ctx *c)
{
	struct power_state *s = STATE(c);
	__u64 init = PARAM(c, init_cwnd_bytes) > 0 ? (__u64)PARAM(c, init_cwnd_bytes) : power_host_bdp(c, c->base_rtt_ns);

	s->cwnd_w = ccm_bytes_w(init);
	s->old_w = s->cwnd_w;
	s->smooth = CCM_FP_ONE;
	s->old_until = c->snd_nxt;
	c->cwnd_bytes = init;
	c->pacing_bps = c->line_rate_bps;
}

/* lines 15-26 for hop i: Γ_norm = λ·(q + bτ)/(b²τ), λ = max((Δq + Δtx)/Δt, floor·b); ×2^20 */
static __always_inline __u64 hop_power(struct dccsim_ctx *c, const struct kept_hop *p, int i, __u64 *dt_out)
{
	const struct dccsim_hop *h = &c->hop[i];
	__u32 dt = h->ts_ns - p->ts;
	__s64 arrived = (__s64)h->qlen - (__s64)p->qlen + (__s64)(__u32)(h->tx_bytes - p->tx);
	__u64 rate_kbps = (__u64)h->rate_mbps * 1000;
	__u64 bdt_mbytes, u, bdp;

	*dt_out = 0;
	if (dt == 0 || (__s32)dt < 0 || rate_kbps == 0)
		return 0;
	*dt_out = dt;
	if (arrived < 0)
		arrived = 0;
	if (arrived > (1LL << 28))
		arrived = 1LL << 28;
	bdt_mbytes = rate_kbps * dt / 8000; /* b·Δt in 1/1000 byte */
	if (bdt_mbytes == 0)
		bdt_mbytes = 1;
	u = (((__u64)arrived << CCM_FP_SHIFT) * 1000) / bdt_mbytes; /* λ/b */
	u = ccm_max(u, (__u64)PARAM(c, current_floor));
	u = ccm_min(u, CCM_POWER_MAX);
	bdp = rate_kbps * c->base_rtt_ns / 8000000ULL; /* b·τ */
	if (bdp == 0)
		bdp = 1;
	return ccm_min(u * ((__u64)h->qlen + bdp) / bdp, CCM_POWER_MAX * 16);
}

/* lines 27-33: the largest per-hop power, smoothed over its Δt; 0 = no measurement */
static __always_inline int measure(struct dccsim_ctx *c, struct power_state *s)
{
	__u32 n = c->nhops < KEEP_HOPS ? c->nhops : KEEP_HOPS;
	__u32 m = n < s->nhops ? n : s->nhops;
	__u64 best = 0, best_dt = 0, pw, dt, tau = c->base_rtt_ns ? c->base_rtt_ns : 1;
	__s64 floor = power_floor(c), norm, sm;
	int have = 0, i;

#pragma unroll
	for (i = 0; i < KEEP_HOPS; i++) {
		if (i < (int)m) {
			pw = hop_power(c, &s->prev[i], i, &dt);
			if (dt && (!have || pw > best)) {
				best = pw;
				best_dt = dt;
				have = 1;
			}
		}
	}
#pragma unroll
	for (i = 0; i < KEEP_HOPS; i++) {
		if (i < (int)n) {
			s->prev[i].qlen = c->hop[i].qlen;
			s->prev[i].tx = c->hop[i].tx_bytes;
			s->prev[i].ts = c->hop[i].ts_ns;
		}
	}
	s->nhops = n;
	if (!have)
		return 0;
	/* line 33: Γ_smooth = (Γ_smooth·(τ − Δt) + Γ_norm·Δt)/τ, Δt capped at τ, both floored */
	best_dt = ccm_min(best_dt, tau);
	norm = ccm_smax((__s64)best, floor);
	sm = (__s64)((s->smooth * (tau - best_dt) + (__u64)norm * best_dt + tau / 2) / tau); /* rounded */
	s->smooth = (__u64)ccm_smax(sm, floor);
	return 1;
}

static __always_inline void power_on_ack(struct dccsim_ctx *c)
{
	struct power_state *s = STATE(c);
	__u64 gamma = (__u64)PARAM(c, gamma), w, smooth;

	if (!measure(c, s)) {
		if (PARAM(c, law) != 1) /* line 11; the Linux law leaves cwnd_old alone */
			power_refresh_old(&s->old_w, &s->old_until, s->cwnd_w, c->snd_una, c->snd_nxt);
		return;
	}
	if (PARAM(c, per_rtt)) {
		if (c->now_ns < s->next_update_ns)
			return;
		s->next_update_ns = c->now_ns + c->base_rtt_ns;
	}
	/* Eq. 7 / line 39: cwnd = γ·(cwnd_old/Γ + β) + (1 − γ)·cwnd, clamped to [MSS, HostBw·τ] */
	smooth = s->smooth ? s->smooth : 1;
	w = (s->old_w << CCM_FP_SHIFT) / smooth + ccm_bytes_w(power_beta_bytes(c, c->base_rtt_ns));
	w = ccm_mulfp(w, gamma) + ccm_mulfp(s->cwnd_w, CCM_FP_ONE - gamma);
	w = ccm_max(w, ccm_bytes_w(c->mss));
	s->cwnd_w = ccm_min(w, ccm_bytes_w(power_host_bdp(c, c->base_rtt_ns)));
	power_refresh_old(&s->old_w, &s->old_until, s->cwnd_w, c->snd_una, c->snd_nxt);
	power_publish(c, s->cwnd_w, c->base_rtt_ns);
}

DCCSIM_ENTRY(init, power_init)
DCCSIM_ENTRY(on_ack, power_on_ack)

/* a loss or a timeout leaves the law's window as it is (the algorithm has no reaction: the
 * transport retransmits); declared so that the kernel wrapper has every callback */
static __always_inline void power_keep(struct dccsim_ctx *c) { (void)c; }
DCCSIM_ENTRY(on_loss, power_keep)
DCCSIM_ENTRY(on_timeout, power_keep)
DCCSIM_FLAGS(DCCSIM_NEEDS_INT)
