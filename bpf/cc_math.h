/* SPDX-License-Identifier: MIT */
/*
 * Control-law arithmetic of the dccsim testbed congestion controls, in integer/fixed-point
 * arithmetic only.  The same header compiles into the BPF struct_ops programs (cc_*.bpf.c) and into
 * the userspace unit test (test/test_cc_math.c) that checks it against tests/vectors/cc_vectors.json.
 *
 * Units (see docs/testbed.md):
 *   - windows are kept in 1/1024 byte ("w" units, CCM_W_SHIFT) so that small per-ACK increments
 *     do not truncate away; ccm_w_bytes() converts to bytes;
 *   - dimensionless quantities (power, gamma, alpha, utilisation) are fixed point with 20 fraction
 *     bits (CCM_FP_ONE = 2^20);
 *   - times are nanoseconds, rates bits/s, sizes bytes; sequence numbers are 32-bit TCP sequence
 *     numbers compared modulo 2^32;
 *   - INT hop fields are the 32-bit wire fields (queue bytes, transmitted bytes modulo 2^32,
 *     timestamp in ns modulo 2^32, rate in Mbit/s); only their differences are used.
 * No function here divides by a signed value: BPF (clang < 18) has no signed division.
 */
#ifndef DCCSIM_CC_MATH_H
#define DCCSIM_CC_MATH_H

#ifdef __bpf__
typedef unsigned long long ccm_u64;
typedef long long ccm_s64;
typedef unsigned int ccm_u32;
typedef int ccm_s32;
#define CCM_INLINE static __always_inline
#else
#include <stdint.h>
typedef uint64_t ccm_u64;
typedef int64_t ccm_s64;
typedef uint32_t ccm_u32;
typedef int32_t ccm_s32;
#define CCM_INLINE static inline
#endif

#define CCM_FP_SHIFT 20
#define CCM_FP_ONE (1ULL << CCM_FP_SHIFT)
#define CCM_W_SHIFT 10
#define CCM_POWER_MAX (1024ULL << CCM_FP_SHIFT) /* clamp for a single normalised-power sample */
#define CCM_MAX_HOPS 2

/* ---------------------------------------------------------------- helpers */

CCM_INLINE ccm_u64 ccm_w_bytes(ccm_u64 w) { return w >> CCM_W_SHIFT; }
CCM_INLINE ccm_u64 ccm_bytes_w(ccm_u64 b) { return b << CCM_W_SHIFT; }
CCM_INLINE ccm_u64 ccm_min(ccm_u64 a, ccm_u64 b) { return a < b ? a : b; }
CCM_INLINE ccm_u64 ccm_max(ccm_u64 a, ccm_u64 b) { return a > b ? a : b; }

/* a * f where f is FP (2^-20 units), without overflowing for a < 2^44 and f < 2^20 * 2^12 */
CCM_INLINE ccm_u64 ccm_mulfp(ccm_u64 a, ccm_u64 f)
{
	return (a >> CCM_FP_SHIFT) * f + (((a & (CCM_FP_ONE - 1)) * f) >> CCM_FP_SHIFT);
}

/* TCP sequence comparison a >= b modulo 2^32 */
CCM_INLINE int ccm_seq_ge(ccm_u32 a, ccm_u32 b) { return (ccm_s32)(a - b) >= 0; }

/* bandwidth-delay product in bytes of rate_bps over tau_ns */
CCM_INLINE ccm_u64 ccm_bdp_bytes(ccm_u64 rate_bps, ccm_u64 tau_ns)
{
	/* rate in kbit/s * ns = 1e-6 bit */
	return (rate_bps / 1000) * tau_ns / 8000000ULL;
}

/* ---------------------------------------------------------------- PowerTCP family */

struct ccm_power_params {
	ccm_u64 tau_ns;      /* base RTT tau of the control law */
	ccm_u64 host_bdp;    /* bytes: HostBw * tau, the window cap and the initial window */
	ccm_u64 beta;        /* bytes: additive increase */
	ccm_u32 gamma_fp;    /* EWMA weight of the window update */
	ccm_u32 floor_fp;    /* lower bound of the normalised power (division guard) */
	ccm_u32 mss;         /* bytes: lower bound of the window */
};

struct ccm_hop {
	ccm_u32 qlen;     /* queue bytes at the egress when the packet passed */
	ccm_u32 tx;       /* cumulative bytes transmitted by the egress, modulo 2^32 */
	ccm_u32 ts;       /* ns, modulo 2^32 */
	ccm_u32 rate_mbps;/* configured link rate, Mbit/s */
};

struct ccm_power_state {
	ccm_u64 cwnd;       /* w units */
	ccm_u64 cwnd_old;   /* w units: window remembered once per RTT */
	ccm_u32 last_nxt;   /* snd_nxt when cwnd_old was remembered */
	ccm_u32 smooth;     /* FP: smoothed normalised power Gamma_s */
	ccm_u32 prev_rtt;   /* theta: previous RTT sample, ns */
	ccm_u32 prev_t;     /* theta: time of previous update, ns modulo 2^32 */
	ccm_u32 nhops;      /* hops in prev[] (0: no previous INT / RTT yet) */
	ccm_u32 pad;
	struct ccm_hop prev[CCM_MAX_HOPS];
};

CCM_INLINE void ccm_power_init(struct ccm_power_state *s, const struct ccm_power_params *p,
			       ccm_u32 snd_nxt)
{
	s->cwnd = ccm_bytes_w(p->host_bdp);
	s->cwnd_old = s->cwnd;
	s->last_nxt = snd_nxt;
	s->smooth = CCM_FP_ONE;
	s->prev_rtt = 0;
	s->prev_t = 0;
	s->nhops = 0;
	s->pad = 0;
}

/*
 * Normalised power of one hop between two INT samples (PowerTCP Alg. 1):
 *   lambda = qdot + mu = (dq + dtx)/dt,  nu = q + b*tau,  Gamma_norm = lambda*nu / (b^2 * tau).
 * Returns FP, 0 if the sample is unusable (dt == 0); *dt_ns receives dt.
 */
CCM_INLINE ccm_u64 ccm_hop_power(const struct ccm_hop *prev, const struct ccm_hop *cur,
				 ccm_u64 tau_ns, ccm_u64 *dt_ns)
{
	ccm_u32 dt = cur->ts - prev->ts;
	ccm_s64 dq = (ccm_s64)cur->qlen - (ccm_s64)prev->qlen;
	ccm_u64 dtx = (ccm_u32)(cur->tx - prev->tx);
	ccm_s64 arrived = dq + (ccm_s64)dtx;
	ccm_u64 rate_kbps = (ccm_u64)cur->rate_mbps * 1000;
	ccm_u64 bdt_mbytes, u, bdp, power;

	*dt_ns = dt;
	if (dt == 0 || rate_kbps == 0)
		return 0;
	if (arrived < 0)
		arrived = 0;
	if (arrived > (1LL << 28))
		arrived = 1LL << 28;
	/* b*dt in milli-bytes: kbit/s * ns / 8e6 * 1000 */
	bdt_mbytes = rate_kbps * dt / 8000;
	if (bdt_mbytes == 0)
		bdt_mbytes = 1;
	u = (((ccm_u64)arrived << CCM_FP_SHIFT) * 1000) / bdt_mbytes; /* lambda / b */
	if (u > CCM_POWER_MAX)
		u = CCM_POWER_MAX;
	bdp = rate_kbps * tau_ns / 8000000ULL;
	if (bdp == 0)
		bdp = 1;
	power = u * ((ccm_u64)cur->qlen + bdp) / bdp; /* (lambda/b) * (nu / (b*tau)) */
	if (power > CCM_POWER_MAX)
		power = CCM_POWER_MAX;
	return power;
}

/* Gamma_s <- (Gamma_s * (tau - dt) + Gamma * dt) / tau, dt capped at tau; Gamma floored first. */
CCM_INLINE void ccm_power_smooth(struct ccm_power_state *s, const struct ccm_power_params *p,
				 ccm_u64 power, ccm_u64 dt_ns)
{
	ccm_u64 tau = p->tau_ns ? p->tau_ns : 1;
	ccm_u64 dt = ccm_min(dt_ns, tau);

	if (power < p->floor_fp)
		power = p->floor_fp;
	s->smooth = (ccm_u32)(((ccm_u64)s->smooth * (tau - dt) + power * dt) / tau);
	if (s->smooth < p->floor_fp)
		s->smooth = p->floor_fp;
}

/* cwnd <- gamma * (cwnd_old / Gamma_s + beta) + (1 - gamma) * cwnd, clamped to [mss, host_bdp] */
CCM_INLINE void ccm_power_window(struct ccm_power_state *s, const struct ccm_power_params *p,
				 ccm_u64 cwnd_old)
{
	ccm_u64 target = (cwnd_old << CCM_FP_SHIFT) / s->smooth + ccm_bytes_w(p->beta);
	ccm_u64 w = ccm_mulfp(target, p->gamma_fp) + ccm_mulfp(s->cwnd, CCM_FP_ONE - p->gamma_fp);

	w = ccm_max(w, ccm_bytes_w(p->mss));
	w = ccm_min(w, ccm_bytes_w(p->host_bdp));
	s->cwnd = w;
}

/* remember (cwnd, snd_nxt) once per RTT: when snd_una passes the stored snd_nxt */
CCM_INLINE void ccm_power_refresh_old(struct ccm_power_state *s, ccm_u32 una, ccm_u32 nxt)
{
	if (ccm_seq_ge(una, s->last_nxt)) {
		s->cwnd_old = s->cwnd;
		s->last_nxt = nxt;
	}
}

/*
 * PowerTCP: one ACK carrying the INT stack hops[0..n) of the acknowledged data.  The first INT of a
 * flow is only stored.  Returns 1 if the window was updated.
 */
CCM_INLINE int ccm_powertcp_on_ack(struct ccm_power_state *s, const struct ccm_power_params *p,
				   ccm_u32 una, ccm_u32 nxt, const struct ccm_hop *hops, ccm_u32 n)
{
	ccm_u64 best = 0, best_dt = 0, dt, pw;
	int have = 0, i;

	if (n > CCM_MAX_HOPS)
		n = CCM_MAX_HOPS;
	if (s->nhops == n && n > 0) {
		for (i = 0; i < CCM_MAX_HOPS; i++) {
			if (i >= (int)n)
				break;
			pw = ccm_hop_power(&s->prev[i], &hops[i], p->tau_ns, &dt);
			if (dt == 0)
				continue;
			if (!have || pw > best) {
				best = pw;
				best_dt = dt;
				have = 1;
			}
		}
	}
	for (i = 0; i < CCM_MAX_HOPS; i++) {
		if (i >= (int)n)
			break;
		s->prev[i] = hops[i];
	}
	s->nhops = n;
	if (!have)
		return 0;
	ccm_power_smooth(s, p, best, best_dt);
	ccm_power_window(s, p, s->cwnd_old);
	ccm_power_refresh_old(s, una, nxt);
	return 1;
}

/*
 * theta-PowerTCP: an ACK with an RTT sample rtt_ns at time now_ns.  Acts once per RTT (when una
 * reaches the snd_nxt of the previous update): Gamma_norm = (thetadot + 1) * RTT / tau with
 * thetadot = (RTT - prevRTT) / (now - prev_update), smoothed with dt = now - prev_update, then the
 * PowerTCP window law with cwnd_old = the window set at the previous update.
 * The first sample is only stored.  Returns 1 if the window was updated.
 */
CCM_INLINE int ccm_theta_on_ack(struct ccm_power_state *s, const struct ccm_power_params *p,
				ccm_u32 una, ccm_u32 nxt, ccm_u32 now_ns, ccm_u32 rtt_ns)
{
	ccm_u32 dt;
	ccm_u64 g1, mag, pw;

	if (rtt_ns == 0)
		return 0;
	if (s->nhops == 0) {
		s->prev_rtt = rtt_ns;
		s->prev_t = now_ns;
		s->nhops = 1;
		s->last_nxt = nxt;
		return 0;
	}
	if (!ccm_seq_ge(una, s->last_nxt))
		return 0;
	dt = now_ns - s->prev_t;
	if (dt == 0)
		return 0;
	/* g1 = 1 + (rtt - prev)/dt in FP, floored at 0; sign handled without signed division */
	if (rtt_ns >= s->prev_rtt) {
		mag = ((ccm_u64)(rtt_ns - s->prev_rtt) << CCM_FP_SHIFT) / dt;
		g1 = CCM_FP_ONE + ccm_min(mag, CCM_POWER_MAX);
	} else {
		mag = ((ccm_u64)(s->prev_rtt - rtt_ns) << CCM_FP_SHIFT) / dt;
		g1 = mag >= CCM_FP_ONE ? 0 : CCM_FP_ONE - mag;
	}
	pw = g1 * (ccm_u64)rtt_ns / (p->tau_ns ? p->tau_ns : 1);
	if (pw > CCM_POWER_MAX)
		pw = CCM_POWER_MAX;
	ccm_power_smooth(s, p, pw, dt);
	ccm_power_window(s, p, s->cwnd);
	s->prev_rtt = rtt_ns;
	s->prev_t = now_ns;
	s->last_nxt = nxt;
	return 1;
}

/* ---------------------------------------------------------------- DCTCP (RFC 8257) */

struct ccm_dctcp_params {
	ccm_u32 mss;
	ccm_u32 g_shift;   /* g = 2^-g_shift (RFC 8257: 1/16 -> 4) */
	ccm_u32 min_cwnd;  /* bytes */
	ccm_u32 pad;
};

struct ccm_dctcp_state {
	ccm_u64 cwnd;      /* w units */
	ccm_u64 ssthresh;  /* w units */
	ccm_u32 alpha;     /* FP */
	ccm_u32 win_end;   /* end of the current observation window (snd_nxt at its start) */
	ccm_u32 cut_end;   /* no further cut before una reaches this */
	ccm_u32 pad;
	ccm_u64 acked;     /* bytes acked in the window */
	ccm_u64 marked;    /* bytes acked with ECE in the window */
};

CCM_INLINE void ccm_dctcp_init(struct ccm_dctcp_state *s, ccm_u64 cwnd_bytes, ccm_u32 snd_una,
				ccm_u32 snd_nxt)
{
	s->cwnd = ccm_bytes_w(cwnd_bytes);
	s->ssthresh = ~0ULL;
	s->alpha = CCM_FP_ONE;
	s->win_end = snd_nxt;
	s->cut_end = snd_una; /* a first ECE may cut at once */
	s->pad = 0;
	s->acked = 0;
	s->marked = 0;
}

/*
 * One ACK: acked bytes newly acknowledged, ece whether the ACK echoed CE.  Order: account the bytes,
 * close the observation window (alpha <- (1-g) alpha + g F) when una reaches its end, then either cut
 * once per window on ECE (cwnd <- cwnd (1 - alpha/2), ssthresh <- cwnd) or grow like Reno.
 */
CCM_INLINE void ccm_dctcp_on_ack(struct ccm_dctcp_state *s, const struct ccm_dctcp_params *p,
				 ccm_u32 una, ccm_u32 nxt, ccm_u64 acked, int ece)
{
	ccm_u64 f, w;

	s->acked += acked;
	if (ece)
		s->marked += acked;
	if (ccm_seq_ge(una, s->win_end)) {
		f = s->acked ? (s->marked << CCM_FP_SHIFT) / s->acked : 0;
		s->alpha = (ccm_u32)(s->alpha - (s->alpha >> p->g_shift) + (f >> p->g_shift));
		s->acked = 0;
		s->marked = 0;
		s->win_end = nxt;
	}
	if (ece) {
		if (ccm_seq_ge(una, s->cut_end)) {
			w = s->cwnd - ccm_mulfp(s->cwnd, s->alpha / 2);
			s->cwnd = ccm_max(w, ccm_bytes_w(p->min_cwnd));
			s->ssthresh = s->cwnd;
			s->cut_end = nxt;
		}
		return;
	}
	if (s->cwnd < s->ssthresh)
		s->cwnd += ccm_bytes_w(acked);
	else
		s->cwnd += (ccm_bytes_w((ccm_u64)p->mss) * acked) / ccm_max(ccm_w_bytes(s->cwnd), 1);
}

/* ---------------------------------------------------------------- TBTCP */

struct ccm_tbtcp_params {
	ccm_u32 mss;
	ccm_u32 alpha_fp;  /* RAI: alpha MSS per RTT (paper 0.1) */
	ccm_u32 scale;     /* S: MSS cut per marked packet (paper 1) */
	ccm_u32 min_cwnd;  /* bytes */
};

struct ccm_tbtcp_state {
	ccm_u64 cwnd;       /* w units */
	ccm_u64 round_floor;/* w units: the window may not fall below this in the current RTT (50%) */
	ccm_u32 round_end;  /* snd_nxt at the start of the current RTT */
	ccm_u32 in_ss;      /* 1 until the first mark */
};

CCM_INLINE void ccm_tbtcp_init(struct ccm_tbtcp_state *s, ccm_u64 cwnd_bytes, ccm_u32 snd_nxt)
{
	s->cwnd = ccm_bytes_w(cwnd_bytes);
	s->round_floor = s->cwnd / 2;
	s->round_end = snd_nxt;
	s->in_ss = 1;
}

/*
 * One ACK: acked bytes, marked = number of CE-marked packets it acknowledges (ECE with a per-packet
 * accurate receiver).  QCD: cwnd -= S * MSS per marked packet, never below half the window at the
 * start of the RTT nor min_cwnd; RAI: cwnd += alpha * MSS per RTT (alpha*MSS*acked/cwnd per ACK);
 * slow start (cwnd += acked) until the first mark.
 */
CCM_INLINE void ccm_tbtcp_on_ack(struct ccm_tbtcp_state *s, const struct ccm_tbtcp_params *p,
				 ccm_u32 una, ccm_u32 nxt, ccm_u64 acked, ccm_u32 marked)
{
	ccm_u64 cut, floor;

	if (ccm_seq_ge(una, s->round_end)) {
		s->round_end = nxt;
		s->round_floor = s->cwnd / 2;
	}
	if (marked) {
		s->in_ss = 0;
		cut = ccm_bytes_w((ccm_u64)p->scale * p->mss * marked);
		floor = ccm_max(s->round_floor, ccm_bytes_w(p->min_cwnd));
		s->cwnd = s->cwnd > floor + cut ? s->cwnd - cut : ccm_min(s->cwnd, floor);
		if (s->cwnd < ccm_bytes_w(p->min_cwnd))
			s->cwnd = ccm_bytes_w(p->min_cwnd);
		return;
	}
	if (s->in_ss)
		s->cwnd += ccm_bytes_w(acked);
	else
		s->cwnd += ccm_mulfp(ccm_bytes_w((ccm_u64)p->mss) * acked, p->alpha_fp) /
			   ccm_max(ccm_w_bytes(s->cwnd), 1);
}

#endif /* DCCSIM_CC_MATH_H */
