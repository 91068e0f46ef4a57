/* SPDX-License-Identifier: MIT */
/*
 * Fixed-point helpers of the control laws in bpf/laws/ (the plugins that the simulator runs and that
 * the testbed builds into struct_ops, docs/plugins.md), integer arithmetic only: the laws
 * themselves live in those files, once each.  crates/engine/tests/vectors.rs runs them against
 * the simulator's native controllers and tests/vectors/cc_vectors.json.
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

/* signed a / unsigned b, rounded toward zero as C does, without a signed division instruction
 * (BPF before -mcpu=v4 has none); b == 0 gives 0 as the BPF ISA does */
CCM_INLINE ccm_s64 ccm_sdiv(ccm_s64 a, ccm_u64 b)
{
	if (b == 0)
		return 0;
	return a < 0 ? -(ccm_s64)((ccm_u64)(-a) / b) : (ccm_s64)((ccm_u64)a / b);
}
CCM_INLINE ccm_s64 ccm_smax(ccm_s64 a, ccm_s64 b) { return a > b ? a : b; }

/* signed a / unsigned b rounded to the nearest (an EWMA's truncations would otherwise add up to
 * one unit per step divided by its weight); b == 0 gives 0 */
CCM_INLINE ccm_s64 ccm_sdiv_round(ccm_s64 a, ccm_u64 b)
{
	if (b == 0)
		return 0;
	return a < 0 ? -(ccm_s64)(((ccm_u64)(-a) + b / 2) / b) : (ccm_s64)(((ccm_u64)a + b / 2) / b);
}

/* cond ? a : b on two values already loaded: written as a mask (with a compiler barrier on both)
 * so that clang does not turn `cond ? x->f : x->g` into one load from a computed address, which
 * the simulator's plugin checker refuses (every access at a constant offset) */
CCM_INLINE ccm_u64 ccm_pick(int cond, ccm_u64 a, ccm_u64 b)
{
	ccm_u64 mask = 0 - (ccm_u64)(cond != 0);

#ifdef __bpf__
	__asm__ volatile("" : "+r"(a), "+r"(b));
#endif
	return b ^ ((a ^ b) & mask);
}

/* sqrt(x) for x < 2^62, to within one (floor or floor + 1 at x = k² − 1): Newton's iteration
 * y ← (y + x/y)/2 from 2^31, 32 fixed steps (enough from that start: halving down to the root,
 * then quadratic).  Written without comparisons: the kernel's verifier refused a bit-by-bit
 * root as too complex. */
CCM_INLINE ccm_u64 ccm_isqrt(ccm_u64 x)
{
	ccm_u64 y = 1ULL << 31;
	int i;

#pragma unroll
	for (i = 0; i < 32; i++) {
#ifdef __bpf__
		y = (y + x / y) >> 1; /* x / 0 = 0 in BPF (x = 0 only: y reaches 0 after 32 halvings) */
#else
		y = (y + (y ? x / y : 0)) >> 1;
#endif
	}
	return y;
}
CCM_INLINE ccm_s64 ccm_smin(ccm_s64 a, ccm_s64 b) { return a < b ? a : b; }

/* bandwidth-delay product in bytes of rate_bps over tau_ns */
CCM_INLINE ccm_u64 ccm_bdp_bytes(ccm_u64 rate_bps, ccm_u64 tau_ns)
{
	/* rate in kbit/s * ns = 1e-6 bit */
	return (rate_bps / 1000) * tau_ns / 8000000ULL;
}

/* ---------------------------------------------------------------- INT */

/* one INT record as the testbed's switches write it (common.h's dccsim_int_rec) */
struct ccm_hop {
	ccm_u32 qlen;     /* queue bytes at the egress when the packet passed */
	ccm_u32 tx;       /* cumulative bytes transmitted by the egress, modulo 2^32 */
	ccm_u32 ts;       /* ns, modulo 2^32 */
	ccm_u32 rate_mbps;/* configured link rate, Mbit/s */
};

/* ---------------------------------------------------------------- NewReno window core
 *
 * The window machinery that the DCTCP and TBTCP plugins (bpf/laws/) share, as the simulator's
 * RenoCore (crates/engine/src/cc/reno.rs): slow start, additive increase, one congestion response
 * per window of data (RFC 6582's recover point), loss halving and the RTO's one-MSS window.
 * Windows in w units; an ssthresh of ~0 is "arbitrarily high".
 */
struct ccm_reno {
	ccm_u64 cwnd;      /* w units */
	ccm_u64 ssthresh;  /* w units */
	ccm_u64 max_cwnd;  /* w units, ~0 = unbounded */
	ccm_u32 recover;   /* snd_nxt at the last reduction */
	ccm_u32 snd_una;   /* latest cumulative ACK */
	ccm_u32 snd_nxt;   /* largest snd_nxt seen */
	ccm_u32 cwnd_limited;
};

CCM_INLINE void ccm_reno_init(struct ccm_reno *r, ccm_u64 cwnd_bytes, ccm_u64 max_bytes,
			      ccm_u32 una, ccm_u32 nxt)
{
	r->max_cwnd = max_bytes ? ccm_bytes_w(max_bytes) : ~0ULL;
	r->cwnd = ccm_min(ccm_bytes_w(cwnd_bytes), r->max_cwnd);
	r->ssthresh = ~0ULL;
	r->recover = una;
	r->snd_una = una;
	r->snd_nxt = nxt;
	r->cwnd_limited = 1;
}

CCM_INLINE void ccm_reno_observe(struct ccm_reno *r, ccm_u32 una, ccm_u32 nxt, ccm_u32 limited)
{
	r->snd_una = una;
	if (ccm_seq_ge(nxt, r->snd_nxt))
		r->snd_nxt = nxt;
	r->cwnd_limited = limited;
}

CCM_INLINE int ccm_reno_in_ss(const struct ccm_reno *r) { return r->cwnd < r->ssthresh; }
CCM_INLINE int ccm_reno_may_reduce(const struct ccm_reno *r) { return ccm_seq_ge(r->snd_una, r->recover); }

/* RFC 5681 eq. (2) slow start (+min(acked, MSS), not beyond ssthresh in one step) or eq. (3)
 * additive increase of ai_fp MSS per RTT (×2^20), only while the window is the limit */
CCM_INLINE void ccm_reno_increase(struct ccm_reno *r, ccm_u64 acked, ccm_u32 mss, ccm_u64 ai_fp)
{
	if (acked == 0 || !r->cwnd_limited)
		return;
	if (ccm_reno_in_ss(r))
		r->cwnd = ccm_min(r->cwnd + ccm_bytes_w(ccm_min(acked, mss)), ccm_max(r->ssthresh, r->cwnd));
	else
		r->cwnd += ccm_mulfp(ccm_bytes_w((ccm_u64)mss) * acked, ai_fp) / ccm_max(ccm_w_bytes(r->cwnd), 1);
	r->cwnd = ccm_min(r->cwnd, r->max_cwnd);
}

/* Linux slow start: every acknowledged byte, up to ssthresh, while the window is the limit */
CCM_INLINE void ccm_reno_slow_start_all(struct ccm_reno *r, ccm_u64 acked)
{
	if (r->cwnd_limited)
		r->cwnd = ccm_min(ccm_min(r->cwnd + ccm_bytes_w(acked), r->ssthresh), r->max_cwnd);
}

/* one congestion response: ssthresh = max(w, 2 MSS), cwnd = min(cwnd, ssthresh) */
CCM_INLINE void ccm_reno_reduce_to(struct ccm_reno *r, ccm_u64 w, ccm_u32 mss)
{
	r->ssthresh = ccm_max(w, ccm_bytes_w(2ULL * mss));
	r->cwnd = ccm_min(r->cwnd, r->ssthresh);
	r->recover = r->snd_nxt;
}

CCM_INLINE void ccm_reno_on_loss(struct ccm_reno *r, ccm_u32 mss)
{
	if (ccm_reno_may_reduce(r))
		ccm_reno_reduce_to(r, r->cwnd / 2, mss);
}

CCM_INLINE void ccm_reno_on_rto(struct ccm_reno *r, ccm_u32 mss)
{
	r->ssthresh = ccm_max(r->cwnd / 2, ccm_bytes_w(2ULL * mss));
	r->cwnd = ccm_bytes_w(mss);
	r->recover = r->snd_nxt;
}

#endif /* DCCSIM_CC_MATH_H */
