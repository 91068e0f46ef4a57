/* SPDX-License-Identifier: MIT */
/*
 * A dccsim plugin (docs/plugins.md) as a Linux struct_ops congestion control: the plugin's source,
 * unchanged, is included here and its inline entries are called from the kernel's callbacks.
 *
 *   clang -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I build -I . \
 *         -DPLUGIN_SOURCE='"path/to/NAME.bpf.c"' -c plugin_kernel.bpf.c -o build/plugin_NAME.bpf.o
 *   bpftool struct_ops register build/plugin_NAME.bpf.o     # congestion control "dccsim_plugin"
 *
 * The context does not fit the 512-byte BPF stack beside the law's locals, so it lives in a
 * per-CPU array (one per CPU, callbacks do not nest); the plugin's 104-byte state lives in the
 * socket's icsk_ca_priv and is copied in and out around each call.  Parameters come from the
 * pinned array dccsim_plugin_params (the declared defaults until the testbed writes them; zero
 * before).  What differs from the simulator: times come from the socket's microsecond clock and
 * RTT sample (the smoothed RTT on an ACK without a sample), acked bytes are acked segments times
 * the MSS, the window is whole segments (at least 2), there are no INT records (nhops = 0), and
 * on_timer is never called (no BPF timer).
 */
#define DCCSIM_KERNEL 1
#include "cc_bpf.h"
#include "plugin_api.h"

#ifndef PLUGIN_SOURCE
#error "define PLUGIN_SOURCE as the plugin's path in quotes"
#endif
#include PLUGIN_SOURCE

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

/* state back to the socket, the window (whole segments, at least 2) and pacing rate out */
static __always_inline void k_leave(struct sock *sk, struct dccsim_ctx *c)
{
	struct k_scratch *k = (struct k_scratch *)c;

	__builtin_memcpy(dcc_priv(sk), c->state, DCCSIM_STATE_BYTES);
	dcc_set_cwnd(sk, c->cwnd_bytes << 10, 2);
	if (c->pacing_bps) {
		sk->sk_pacing_status = SK_PACING_NEEDED;
		sk->sk_pacing_rate = c->pacing_bps / 8;
	}
	k->busy = 0;
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
struct tcp_congestion_ops dccsim_plugin = {
	.init = (void *)dccsim_plugin_init,
	.cong_control = (void *)dccsim_plugin_cong_control,
	.set_state = (void *)dccsim_plugin_set_state,
	.cwnd_event = (void *)dccsim_plugin_cwnd_event,
	.ssthresh = (void *)dccsim_plugin_ssthresh,
	.undo_cwnd = (void *)dccsim_plugin_undo_cwnd,
	.flags = DCC_TCP_CONG_NEEDS_ECN,
	.name = "dccsim_plugin",
};
