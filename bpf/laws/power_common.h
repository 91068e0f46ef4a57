/* SPDX-License-Identifier: MIT */
/*
 * What PowerTCP (Algorithm 1) and θ-PowerTCP (Algorithm 2) share, written once for both law
 * plugins (powertcp.bpf.c, theta_powertcp.bpf.c): the host BDP and β of a τ, the paced output
 * rate = cwnd/τ, and the refresh of cwnd_old.  Included after the plugin's DCCSIM_PARAMS (β reads
 * its `beta_bytes` and `additive_increase_bps` parameters, which both declare).  Every function is
 * `static __always_inline` (the simulator's checker refuses calls; the kernel inlines them too).
 */
#ifndef DCCSIM_POWER_COMMON_H
#define DCCSIM_POWER_COMMON_H

#include "plugin_api.h"
#include "cc_math.h"

/* HostBw·τ in bytes */
static __always_inline __u64 power_host_bdp(struct dccsim_ctx *c, __u64 tau_ns)
{
	return c->line_rate_bps * tau_ns / 8000000000ULL;
}

/* β in bytes: the parameter, else additive_increase_bps·τ/8 */
static __always_inline __u64 power_beta_bytes(struct dccsim_ctx *c, __u64 tau_ns)
{
	if (PARAM(c, beta_bytes) > 0)
		return (__u64)PARAM(c, beta_bytes);
	return (__u64)PARAM(c, additive_increase_bps) * tau_ns / 8000000000ULL;
}

/* the outputs: the window (1/1024 byte) in bytes, paced at rate = cwnd/τ (Algorithm 1 line 10) */
static __always_inline void power_publish(struct dccsim_ctx *c, __u64 cwnd_w, __u64 tau_ns)
{
	__u64 bytes = ccm_w_bytes(cwnd_w);

	c->cwnd_bytes = bytes;
	c->pacing_bps = tau_ns ? bytes * 8000000000ULL / tau_ns : 0;
}

/* updateOld (Algorithm 1 line 11, Algorithm 2 line 35): cwnd_old becomes the window once snd_una
 * reaches the snd_nxt of the previous refresh, i.e. once per window of data */
static __always_inline void power_refresh_old(__u64 *old_w, __u32 *old_until, __u64 cwnd_w, __u32 una, __u32 nxt)
{
	if (ccm_seq_ge(una, *old_until)) {
		*old_w = cwnd_w;
		*old_until = nxt;
	}
}

#endif
