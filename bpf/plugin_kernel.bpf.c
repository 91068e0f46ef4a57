/* SPDX-License-Identifier: MIT */
/*
 * A dccsim plugin (docs/plugins.md) as a Linux struct_ops congestion control: the plugin's source,
 * unchanged, is included here and its inline entries are called from the kernel's callbacks.
 *
 *   clang -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I build -I . \
 *         -DPLUGIN_SOURCE='"path/to/NAME.bpf.c"' -c plugin_kernel.bpf.c -o build/plugin_NAME.bpf.o
 *   bpftool struct_ops register build/plugin_NAME.bpf.o     # congestion control "dccsim_plugin"
 *
 * -DPLUGIN_NAME=dccsim_x registers it under another name: the testbed's own controllers
 * (`--cc powertcp|theta-powertcp|dctcp|tbtcp`) are the law plugins of bpf/laws/ built this way.
 *
 * The context does not fit the 512-byte BPF stack beside the law's locals, so it lives in a
 * per-CPU array (one per CPU, callbacks do not nest); the plugin's 104-byte state lives in the
 * socket's icsk_ca_priv and is copied in and out around each call.  Parameters come from the
 * pinned array dccsim_plugin_params (the declared defaults until the testbed writes them; zero
 * before).  What differs from the simulator: times come from the socket's microsecond clock and
 * RTT sample (the smoothed RTT on an ACK without a sample), acked bytes are acked segments times
 * the MSS, the window is whole segments (at least 2), the INT records are the newest stack the
 * receiver's tc program saw for the flow (dccsim_int; none without INT), and on_timer is never
 * called (no BPF timer).
 */
#define DCCSIM_KERNEL 1
#include "cc_bpf.h"
#include "plugin_api.h"

#ifndef PLUGIN_SOURCE
#error "define PLUGIN_SOURCE as the plugin's path in quotes"
#endif
#include PLUGIN_SOURCE

#ifndef PLUGIN_NAME
#define PLUGIN_NAME dccsim_plugin
#endif
#define K_STR_(x) #x
#define K_STR(x) K_STR_(x)

/* the per-CPU context, and whether a callback on this CPU is using it: a callback that finds it
 * busy (an ACK processed in softirq while a process-context callback of another socket is running
 * on the same CPU, or a preempted one) leaves its socket unchanged for that event, and counts it */
struct k_scratch {
	struct dccsim_ctx c;
	__u64 busy;
	__u64 skipped;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct k_scratch);
} dccsim_plugin_ctx SEC(".maps");

struct dccsim_plugin_params {
	__s64 param[DCCSIM_MAX_PARAMS];
	__u64 line_rate_bps;
	__u64 base_rtt_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dccsim_plugin_params);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dccsim_plugin_params SEC(".maps");

_Static_assert(DCCSIM_STATE_BYTES <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "the plugin state must fit icsk_ca_priv");

/* the context for one callback: flow facts, parameters, state from the socket */
static __always_inline struct dccsim_ctx *k_enter(struct sock *sk, __u32 event)
{
	__u32 zero = 0;
	struct k_scratch *k = bpf_map_lookup_elem(&dccsim_plugin_ctx, &zero);
	struct dccsim_plugin_params *p = bpf_map_lookup_elem(&dccsim_plugin_params, &zero);
	struct tcp_sock *tp = dcc_tp(sk);
	struct dccsim_ctx *c;

	if (!k)
		return 0;
	if (__sync_lock_test_and_set(&k->busy, 1)) {
		k->skipped++;
		return 0;
	}
	c = &k->c;
	__builtin_memset(c, 0, sizeof(*c));
	c->event = event;
	c->now_ns = tp->tcp_mstamp * 1000;
	c->snd_una = tp->snd_una;
	c->snd_nxt = tp->snd_nxt;
	c->mss = tp->mss_cache;
	c->abi = DCCSIM_ABI_VERSION;
	c->cwnd_bytes = (__u64)tp->snd_cwnd * tp->mss_cache;
	if (p) {
		__builtin_memcpy(c->param, p->param, sizeof(c->param));
		c->line_rate_bps = p->line_rate_bps;
		c->base_rtt_ns = p->base_rtt_ns;
		c->path_rtt_ns = p->base_rtt_ns;
	}
	__builtin_memcpy(c->state, dcc_priv(sk), DCCSIM_STATE_BYTES);
	return c;
}

/* state back to the socket, the window and pacing rate out: an unpaced law's window as whole
 * segments (rounded, at least 2); a paced law's rounded up (at least 1), so that its sub-segment
 * part acts through the pacing rate (a few-packet BDP on the testbed makes that matter) */
static __always_inline void k_leave(struct sock *sk, struct dccsim_ctx *c)
{
	struct k_scratch *k = (struct k_scratch *)c;
	struct tcp_sock *tp = dcc_tp(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u64 pkts;

	__builtin_memcpy(dcc_priv(sk), c->state, DCCSIM_STATE_BYTES);
	if (c->pacing_bps) {
		pkts = (c->cwnd_bytes + mss - 1) / mss;
		if (pkts < 1)
			pkts = 1;
		if (pkts > tp->snd_cwnd_clamp)
			pkts = tp->snd_cwnd_clamp;
		tp->snd_cwnd = (__u32)pkts;
		sk->sk_pacing_status = SK_PACING_NEEDED;
		sk->sk_pacing_rate = c->pacing_bps / 8;
	} else {
		dcc_set_cwnd(sk, c->cwnd_bytes << 10, 2);
	}
	k->busy = 0;
}

/* the newest INT stack of the flow (the receiver's tc program copies it into dccsim_int, keyed by
 * the data packets' addresses), at most CCM_MAX_HOPS records */
static __always_inline void k_int(struct sock *sk, struct dccsim_ctx *c)
{
	struct dccsim_flow_key key = {};
	struct dccsim_int_rec *r;
	__u32 n, i;

	key.saddr = sk->__sk_common.skc_rcv_saddr;
	key.daddr = sk->__sk_common.skc_daddr;
	key.sport = bpf_htons(sk->__sk_common.skc_num);
	key.dport = sk->__sk_common.skc_dport;
	r = bpf_map_lookup_elem(&dccsim_int, &key);
	if (!r)
		return;
	n = r->nhops < CCM_MAX_HOPS ? r->nhops : CCM_MAX_HOPS;
#pragma unroll
	for (i = 0; i < CCM_MAX_HOPS; i++) {
		if (i < n) {
			c->hop[i].qlen = r->hops[i].qlen;
			c->hop[i].tx_bytes = r->hops[i].tx;
			c->hop[i].ts_ns = r->hops[i].ts;
			c->hop[i].rate_mbps = r->hops[i].rate_mbps;
		}
	}
	c->nhops = n;
	c->path_hops = n;
}

SEC("struct_ops/dccsim_plugin_init")
void BPF_PROG(dccsim_plugin_init, struct sock *sk)
{
	struct dccsim_ctx *c;

	__builtin_memset(dcc_priv(sk), 0, DCCSIM_STATE_BYTES);
	c = k_enter(sk, DCCSIM_EV_INIT);
	if (!c)
		return;
	dccsim_k_init(c);
	k_leave(sk, c);
}

SEC("struct_ops/dccsim_plugin_cong_control")
void BPF_PROG(dccsim_plugin_cong_control, struct sock *sk, __u32 ack, int flag,
	      const struct rate_sample *rs)
{
	struct dccsim_ctx *c = k_enter(sk, DCCSIM_EV_ACK);
	long rtt_us = rs->rtt_us;

	if (!c)
		return;
	/* an ACK without an RTT sample (e.g. a retransmission's) gets the smoothed RTT: the simulator's
	 * ACKs always carry one, and a law must never see 0 */
	if (rtt_us <= 0)
		rtt_us = dcc_tp(sk)->srtt_us >> 3;
	c->rtt_ns = (__u64)rtt_us * 1000;
	k_int(sk, c);
	c->acked_bytes = (__u64)rs->acked_sacked * c->mss;
	c->ecn = (flag & DCC_FLAG_ECE) != 0;
	c->cwnd_limited = dcc_cwnd_limited(sk);
	dccsim_k_on_ack(c);
	k_leave(sk, c);
}

SEC("struct_ops/dccsim_plugin_set_state")
void BPF_PROG(dccsim_plugin_set_state, struct sock *sk, __u8 new_state)
{
	struct dccsim_ctx *c;

	if (new_state != DCC_TCP_CA_RECOVERY && new_state != DCC_TCP_CA_LOSS)
		return;
	c = k_enter(sk, new_state == DCC_TCP_CA_LOSS ? DCCSIM_EV_TIMEOUT : DCCSIM_EV_LOSS);
	if (!c)
		return;
	if (new_state == DCC_TCP_CA_LOSS)
		dccsim_k_on_timeout(c);
	else
		dccsim_k_on_loss(c);
	k_leave(sk, c);
}

SEC("struct_ops/dccsim_plugin_cwnd_event")
void BPF_PROG(dccsim_plugin_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	dcc_rx_event(sk, ev);
}

DCC_KEEP_CWND_OPS(dccsim_plugin)

SEC(".struct_ops")
struct tcp_congestion_ops PLUGIN_NAME = {
	.init = (void *)dccsim_plugin_init,
	.cong_control = (void *)dccsim_plugin_cong_control,
	.set_state = (void *)dccsim_plugin_set_state,
	.cwnd_event = (void *)dccsim_plugin_cwnd_event,
	.ssthresh = (void *)dccsim_plugin_ssthresh,
	.undo_cwnd = (void *)dccsim_plugin_undo_cwnd,
	.flags = DCC_TCP_CONG_NEEDS_ECN,
	.name = K_STR(PLUGIN_NAME),
};
