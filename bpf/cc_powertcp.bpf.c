/* SPDX-License-Identifier: MIT */
/* PowerTCP (INT): per-ACK window update from the INT of the acknowledged flow.  The receiver's tc
 * ingress program (tc.bpf.c) copies each data packet's INT stack into dccsim_int keyed by the flow;
 * this controller reads the newest record on every ACK. */
#include "cc_bpf.h"

struct priv {
	struct ccm_power_state st;
};

SEC("struct_ops/dcc_power_init")
void BPF_PROG(dcc_power_init, struct sock *sk)
{
	struct priv *ca = dcc_priv(sk);

	dcc_power_start(sk, &ca->st);
}

SEC("struct_ops/dcc_power_cong_control")
void BPF_PROG(dcc_power_cong_control, struct sock *sk, __u32 ack, int flag,
	      const struct rate_sample *rs)
{
	struct priv *ca = dcc_priv(sk);
	struct tcp_sock *tp = dcc_tp(sk);
	struct dccsim_cc_cfg *c = dcc_cfg();
	struct ccm_power_params p = {};
	struct dccsim_flow_key key = {};
	struct dccsim_int_rec *r;
	struct ccm_hop hops[CCM_MAX_HOPS] = {};
	__u32 n;

	if (!c)
		return;
	key.saddr = sk->__sk_common.skc_rcv_saddr;
	key.daddr = sk->__sk_common.skc_daddr;
	key.sport = bpf_htons(sk->__sk_common.skc_num);
	key.dport = sk->__sk_common.skc_dport;
	r = bpf_map_lookup_elem(&dccsim_int, &key);
	if (!r)
		return;
	n = r->nhops;
	if (n > CCM_MAX_HOPS)
		n = CCM_MAX_HOPS;
	hops[0] = r->hops[0];
	hops[1] = r->hops[1];
	dcc_power_params(&p, c, tp->mss_cache);
	if (ccm_powertcp_on_ack(&ca->st, &p, tp->snd_una, tp->snd_nxt, hops, n))
		dcc_set_power_window(sk, ca->st.cwnd, p.tau_ns, c->pace);
}

DCC_KEEP_CWND_OPS(dcc_power)

SEC(".struct_ops")
struct tcp_congestion_ops dccsim_powertcp = {
	.init = (void *)dcc_power_init,
	.cong_control = (void *)dcc_power_cong_control,
	.ssthresh = (void *)dcc_power_ssthresh,
	.undo_cwnd = (void *)dcc_power_undo_cwnd,
	.name = "dccsim_powertcp",
};
