/* SPDX-License-Identifier: MIT */
/* Glue shared by the struct_ops congestion controls: socket access, configuration, window export
 * and the per-packet-accurate ECE receiver (RFC 8257 §3.2) used by DCTCP and TBTCP. */
#ifndef DCCSIM_CC_BPF_H
#define DCCSIM_CC_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "bpf_maps.h"

#define DCC_FLAG_ECE 0x40            /* FLAG_ECE of tcp_ack() */
#define DCC_TCP_ECN_DEMAND_CWR 4     /* TCP_ECN_DEMAND_CWR */
#define DCC_TCP_CONG_NEEDS_ECN 0x2   /* TCP_CONG_NEEDS_ECN */
#define DCC_CA_EVENT_ECN_NO_CE 4
#define DCC_CA_EVENT_ECN_IS_CE 5
#define DCC_TCP_CA_RECOVERY 3
#define DCC_TCP_CA_LOSS 4

char _license[] SEC("license") = "GPL";

static __always_inline struct tcp_sock *dcc_tp(struct sock *sk) { return (struct tcp_sock *)sk; }

static __always_inline void *dcc_priv(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline struct dccsim_cc_cfg *dcc_cfg(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&dccsim_cfg, &zero);
}

/* export a window in w units as snd_cwnd packets (rounded, at least min_pkts) */
static __always_inline void dcc_set_cwnd(struct sock *sk, __u64 w, __u32 min_pkts)
{
	struct tcp_sock *tp = dcc_tp(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u64 pkts = (ccm_w_bytes(w) + mss / 2) / mss;

	if (pkts < min_pkts)
		pkts = min_pkts;
	if (pkts > tp->snd_cwnd_clamp)
		pkts = tp->snd_cwnd_clamp;
	tp->snd_cwnd = (__u32)pkts;
}

/* ECE exactly for the CE-marked packets (RFC 8257 §3.2): the echo follows the CE state of each
 * arriving packet instead of latching until CWR.  The testbed ACKs every packet (route option
 * quickack), so each ACK carries the state of the packet it acknowledges and no extra ACK is needed
 * at a state change (with delayed ACKs one would be sent for the data before the change). */
static __always_inline void dcc_rx_event(struct sock *sk, __u32 ev)
{
	struct tcp_sock *tp = dcc_tp(sk);

	if (ev != DCC_CA_EVENT_ECN_IS_CE && ev != DCC_CA_EVENT_ECN_NO_CE)
		return;
	if (ev == DCC_CA_EVENT_ECN_IS_CE)
		tp->ecn_flags |= DCC_TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~DCC_TCP_ECN_DEMAND_CWR;
}

/* tcp_is_cwnd_limited(): grow the window only when it limits the flight (as the kernel does for
 * cong_avoid; cong_control controllers must check it themselves). */
static __always_inline int dcc_cwnd_limited(struct sock *sk)
{
	struct tcp_sock *tp = dcc_tp(sk);

	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return 1;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return 0;
}

/* ssthresh and undo_cwnd of a controller that sets the window itself in cong_control: keep it */
#define DCC_KEEP_CWND_OPS(prefix)						\
	SEC("struct_ops/" #prefix "_ssthresh")					\
	__u32 BPF_PROG(prefix##_ssthresh, struct sock *sk)			\
	{									\
		return dcc_tp(sk)->snd_cwnd;					\
	}									\
	SEC("struct_ops/" #prefix "_undo_cwnd")					\
	__u32 BPF_PROG(prefix##_undo_cwnd, struct sock *sk)			\
	{									\
		return dcc_tp(sk)->snd_cwnd;					\
	}

#endif
