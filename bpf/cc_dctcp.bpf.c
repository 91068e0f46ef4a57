/* SPDX-License-Identifier: MIT */
/* DCTCP (RFC 8257) as a struct_ops controller owning the window (cong_control). */
#include "cc_bpf.h"

struct priv {
	struct ccm_dctcp_state st;
};

static __always_inline void params(struct ccm_dctcp_params *p, struct dccsim_cc_cfg *c, __u32 mss)
{
	p->mss = mss;
	p->g_shift = c ? c->dctcp_g_shift : 4;
	p->min_cwnd = (c ? c->min_cwnd_pkts : 2) * mss;
}

SEC("struct_ops/dcc_dctcp_init")
void BPF_PROG(dcc_dctcp_init, struct sock *sk)
{
	struct priv *ca = dcc_priv(sk);
	struct tcp_sock *tp = dcc_tp(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	ccm_dctcp_init(&ca->st, (__u64)tp->snd_cwnd * tp->mss_cache, tp->snd_una, tp->snd_nxt);
}

SEC("struct_ops/dcc_dctcp_cong_control")
void BPF_PROG(dcc_dctcp_cong_control, struct sock *sk, __u32 ack, int flag,
	      const struct rate_sample *rs)
{
	struct priv *ca = dcc_priv(sk);
	struct tcp_sock *tp = dcc_tp(sk);
	struct dccsim_cc_cfg *c = dcc_cfg();
	struct ccm_dctcp_params p = {};
	__u32 acked = rs->acked_sacked;
	__u64 before = ca->st.cwnd;

	if (!acked && !(flag & DCC_FLAG_ECE))
		return;
	params(&p, c, tp->mss_cache);
	ccm_dctcp_on_ack(&ca->st, &p, tp->snd_una, tp->snd_nxt, (__u64)acked * tp->mss_cache,
			 (flag & DCC_FLAG_ECE) != 0);
	if (!dcc_cwnd_limited(sk) && ca->st.cwnd > before)  /* application/TSQ-limited: no growth */
		ca->st.cwnd = before;
	dcc_set_cwnd(sk, ca->st.cwnd, c ? c->min_cwnd_pkts : 2);
}

SEC("struct_ops/dcc_dctcp_set_state")
void BPF_PROG(dcc_dctcp_set_state, struct sock *sk, __u8 new_state)
{
	struct priv *ca = dcc_priv(sk);
	struct tcp_sock *tp = dcc_tp(sk);
	__u64 min_w = ccm_bytes_w(2ULL * tp->mss_cache);

	if (new_state == DCC_TCP_CA_RECOVERY) {       /* loss: Reno halving */
		ca->st.cwnd = ccm_max(ca->st.cwnd / 2, min_w);
		ca->st.ssthresh = ca->st.cwnd;
	} else if (new_state == DCC_TCP_CA_LOSS) {    /* retransmission timeout */
		ca->st.ssthresh = ccm_max(ca->st.cwnd / 2, min_w);
		ca->st.cwnd = ccm_bytes_w(tp->mss_cache);
	}
}

SEC("struct_ops/dcc_dctcp_cwnd_event")
void BPF_PROG(dcc_dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	dcc_rx_event(sk, ev);
}

DCC_KEEP_CWND_OPS(dcc_dctcp)

SEC(".struct_ops")
struct tcp_congestion_ops dccsim_dctcp = {
	.init = (void *)dcc_dctcp_init,
	.cong_control = (void *)dcc_dctcp_cong_control,
	.set_state = (void *)dcc_dctcp_set_state,
	.cwnd_event = (void *)dcc_dctcp_cwnd_event,
	.ssthresh = (void *)dcc_dctcp_ssthresh,
	.undo_cwnd = (void *)dcc_dctcp_undo_cwnd,
	.flags = DCC_TCP_CONG_NEEDS_ECN,
	.name = "dccsim_dctcp",
};
