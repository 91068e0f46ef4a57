/* SPDX-License-Identifier: MIT */
/*
 * θ-PowerTCP (Addanki et al., NSDI'22, §3.5 Algorithm 2) as a dccsim plugin: the one C source of
 * the law that the simulator runs (`[cc] plugin = "bpf/laws/theta_powertcp.bpf.c"`) and that the
 * Linux testbed runs as `--cc theta-powertcp` (bpf/plugin_kernel.bpf.c includes this file).  The
 * simulator's native `theta-powertcp` (crates/engine/src/cc/theta_powertcp.rs) is the fast path;
 * crates/engine/tests/vectors.rs checks the two against each other for every law option below.
 *
 * Laws (`law`): 0 = paper (Algorithm 2, the default: per-ACK smoothing, update once per RTT,
 * cwnd_old of the acknowledged window, τ = the flow's own base RTT, a non-positive smoothed power
 * holds the window), 1 = linux (one sample per RTT between updates, (θ̇ + 1) floored at 0, power
 * floored at 0.01, τ = the run's τ).  Not here: the native `artifact` and `rdma-hw` rate laws.
 *
 * Fixed point: dimensionless quantities ×2^20, windows ×2^10 bytes (bpf/cc_math.h); times ns.
 */
#include "plugin_api.h"
#include "cc_math.h"

#define THETA_PARAMS(P)                                                                          \
	P(law, 0, 0, 1, 0, "", "0 = paper (Algorithm 2), 1 = linux")                             \
	P(tau, 0, 0, 3, 0, "", "0 = the law's (paper: 1, linux: 2), 1 = path, 2 = topology, 3 = min-rtt") \
	P(nonpositive_power, 0, 0, 1, 0, "", "Γ_smooth ≤ 0: 0 = hold the window, 1 = one MSS")    \
	P(gamma, 0.9, 0, 1, 20, "", "γ, EWMA weight of the window update")                        \
	P(beta_bytes, 0, 0, 1e9, 0, "B", "β; 0 = additive_increase_bps·τ/8")                       \
	P(additive_increase_bps, 150e6, 0, 1e12, 0, "bit/s", "additive increase as a rate")        \
	P(init_cwnd_bytes, 0, 0, 1e9, 0, "B", "initial window; 0 = HostBw·τ")                      \
	P(power_floor, -1, -1, 1000, 20, "", "floor of Γ_norm and Γ_smooth; -1 = the law's (paper none, linux 0.01)") \
	P(gradient_floor, -1, -1, 1, 20, "", "floor of θ̇ + 1; -1 = the law's (paper none, linux 0)")

DCCSIM_PARAMS(THETA_PARAMS)

#include "power_common.h"

struct theta_state {
	__u64 cwnd_w;      /* window, 1/1024 byte */
	__u64 old_w;       /* cwnd_old: the window remembered once per RTT (paper) */
	__s64 smooth;      /* Γ_smooth ×2^20, signed: the paper's law has no floor */
	__u64 prev_rtt_ns; /* RTT of the previous sample */
	__u64 prev_t_ns;   /* time of the previous sample */
	__u64 tau_ns;      /* τ as the law uses it now */
	__u32 old_until;   /* cwnd_old is refreshed when snd_una reaches this */
	__u32 last_updated;/* snd_nxt at the previous window update */
	__u32 have_prev;   /* a previous RTT sample exists */
	__u32 _pad;
};

#define THETA_TRACE(T) T(smoothed_power, smooth, 20) T(cwnd, cwnd_w, 10) T(tau_ns, tau_ns, 0)

DCCSIM_STATE(struct theta_state, THETA_TRACE)

#define NEG_INF (-(1LL << 62))

static __always_inline __u64 law_tau_mode(struct dccsim_ctx *c)
{
	__u64 m = (__u64)PARAM(c, tau);

	if (m == 0)
		m = PARAM(c, law) == 1 ? 2 : 1;
	return m;
}

static __always_inline __s64 power_floor(struct dccsim_ctx *c)
{
	if (PARAM(c, power_floor) >= 0)
		return PARAM(c, power_floor);
	return PARAM(c, law) == 1 ? (__s64)(CCM_FP_ONE / 100) : NEG_INF;
}

static __always_inline __s64 gradient_floor(struct dccsim_ctx *c)
{
	if (PARAM(c, gradient_floor) >= 0)
		return PARAM(c, gradient_floor);
	return PARAM(c, law) == 1 ? 0 : NEG_INF;
}

static __always_inline void theta_init(struct dccsim_ctx *c)
{
	struct theta_state *s = STATE(c);
	__u64 m = law_tau_mode(c);
	__u64 init;

	s->tau_ns = ccm_pick(m == 1, c->path_rtt_ns, c->base_rtt_ns);
	init = PARAM(c, init_cwnd_bytes) > 0 ? (__u64)PARAM(c, init_cwnd_bytes) : power_host_bdp(c, s->tau_ns);
	s->cwnd_w = ccm_bytes_w(init);
	s->old_w = s->cwnd_w;
	s->smooth = CCM_FP_ONE;
	s->old_until = c->snd_nxt;
	s->last_updated = c->snd_nxt;
	power_publish(c, s->cwnd_w, s->tau_ns);
}

/* line 19-20: Γ_norm = max(θ̇ + 1, floor)·RTT/τ, θ̇ = (RTT − prevRTT)/Δt; ×2^20, signed */
static __always_inline __s64 norm_power(struct dccsim_ctx *c, struct theta_state *s, __u64 rtt, __u64 dt)
{
	__s64 d = (__s64)rtt - (__s64)s->prev_rtt_ns;
	__u64 mag = ((__u64)(d < 0 ? -d : d) << CCM_FP_SHIFT) / dt;
	__s64 g1;

	mag = ccm_min(mag, 1ULL << 32); /* |θ̇| ≤ 4096: keeps the products below within 64 bits */
	g1 = d < 0 ? (__s64)CCM_FP_ONE - (__s64)mag : (__s64)CCM_FP_ONE + (__s64)mag;
	g1 = ccm_smax(g1, gradient_floor(c));
	return ccm_smin(ccm_smax(ccm_sdiv(g1 * (__s64)rtt, s->tau_ns), -(1LL << 36)), 1LL << 36);
}

/* line 21: Γ_smooth = (Γ_smooth·(τ − Δt) + Γ_norm·Δt)/τ, Δt capped at τ, both floored */
static __always_inline void smooth_with(struct dccsim_ctx *c, struct theta_state *s, __s64 norm, __u64 dt)
{
	__s64 floor = power_floor(c);
	__u64 tau = s->tau_ns ? s->tau_ns : 1;
	__u64 d = ccm_min(dt, tau);

	norm = ccm_smax(norm, floor);
	s->smooth = ccm_sdiv_round(s->smooth * (__s64)(tau - d) + norm * (__s64)d, tau);
	s->smooth = ccm_smax(s->smooth, floor);
}

/* line 31: cwnd = γ·(cwnd_old/Γ_smooth + β) + (1 − γ)·cwnd, clamped to [MSS, HostBw·τ] */
static __always_inline void window(struct dccsim_ctx *c, struct theta_state *s, __u64 old_w)
{
	__u64 gamma = (__u64)PARAM(c, gamma);
	__u64 cap = ccm_bytes_w(power_host_bdp(c, s->tau_ns));
	__u64 w;

	if (s->smooth <= 0) {
		w = ccm_bytes_w(c->mss); /* nonpositive_power = mss: line 31's window ≤ 0, raised */
	} else {
		w = (old_w << CCM_FP_SHIFT) / (__u64)s->smooth + ccm_bytes_w(power_beta_bytes(c, s->tau_ns));
		w = ccm_mulfp(w, gamma) + ccm_mulfp(s->cwnd_w, CCM_FP_ONE - gamma);
	}
	w = ccm_max(w, ccm_bytes_w(c->mss));
	s->cwnd_w = ccm_min(w, cap);
}

static __always_inline void track_min_rtt(struct dccsim_ctx *c, struct theta_state *s, __u64 rtt)
{
	if (law_tau_mode(c) == 3 && rtt > 0 && rtt < s->tau_ns)
		s->tau_ns = rtt;
}

/* Algorithm 2: the power smoothed on every ACK, the window updated once per RTT */
static __always_inline void on_ack_paper(struct dccsim_ctx *c, struct theta_state *s)
{
	__u64 rtt = c->rtt_ns, t_prev = s->prev_t_ns, dt;
	int had = s->have_prev;
	__s64 norm;

	track_min_rtt(c, s, rtt);
	s->have_prev = 1;
	if (!had || c->now_ns <= t_prev) {
		s->prev_rtt_ns = rtt;
		s->prev_t_ns = c->now_ns;
		if (!had)
			power_refresh_old(&s->old_w, &s->old_until, s->cwnd_w, c->snd_una, c->snd_nxt);
		return;
	}
	dt = c->now_ns - t_prev; /* line 18 */
	norm = norm_power(c, s, rtt, dt);
	s->prev_rtt_ns = rtt;
	s->prev_t_ns = c->now_ns;
	smooth_with(c, s, norm, dt);
	if (ccm_seq_ge(c->snd_una, s->last_updated) && !(s->smooth <= 0 && PARAM(c, nonpositive_power) == 0)) {
		window(c, s, s->old_w);
		s->last_updated = c->snd_nxt; /* line 34 */
	}
	power_refresh_old(&s->old_w, &s->old_until, s->cwnd_w, c->snd_una, c->snd_nxt);
}

/* the Linux law: one sample per RTT, measured between updates, cwnd_old = cwnd */
static __always_inline void on_ack_linux(struct dccsim_ctx *c, struct theta_state *s)
{
	__u64 rtt = c->rtt_ns, dt;

	track_min_rtt(c, s, rtt);
	if (!s->have_prev) {
		s->have_prev = 1;
		s->prev_rtt_ns = rtt;
		s->prev_t_ns = c->now_ns;
		s->last_updated = c->snd_nxt;
		return;
	}
	if (!ccm_seq_ge(c->snd_una, s->last_updated) || c->now_ns <= s->prev_t_ns)
		return;
	dt = c->now_ns - s->prev_t_ns;
	smooth_with(c, s, norm_power(c, s, rtt, dt), dt);
	if (s->smooth <= 0)
		s->smooth = 1; /* the native law's 1e-9 guard: Γ_smooth > 0 */
	window(c, s, s->cwnd_w);
	s->prev_rtt_ns = rtt;
	s->prev_t_ns = c->now_ns;
	s->last_updated = c->snd_nxt;
}

static __always_inline void theta_on_ack(struct dccsim_ctx *c)
{
	struct theta_state *s = STATE(c);

	if (c->rtt_ns == 0)
		return;
	if (PARAM(c, law) == 1)
		on_ack_linux(c, s);
	else
		on_ack_paper(c, s);
	power_publish(c, s->cwnd_w, s->tau_ns);
}

DCCSIM_ENTRY(init, theta_init)
DCCSIM_ENTRY(on_ack, theta_on_ack)

/* a loss or a timeout leaves the law's window as it is (the algorithm has no reaction: the
 * transport retransmits); declared so that the kernel wrapper has every callback */
static __always_inline void theta_keep(struct dccsim_ctx *c) { (void)c; }
DCCSIM_ENTRY(on_loss, theta_keep)
DCCSIM_ENTRY(on_timeout, theta_keep)
DCCSIM_FLAGS(DCCSIM_TIMESTAMP)
