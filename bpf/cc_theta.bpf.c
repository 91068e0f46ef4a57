/* SPDX-License-Identifier: MIT */
/* theta-PowerTCP: delay-only PowerTCP; once per RTT, from the RTT gradient (no switch support). */
#include "cc_bpf.h"

struct priv {
	struct ccm_power_state st;
};

SEC("struct_ops/dcc_theta_init")
void BPF_PROG(dcc_theta_init, struct sock *sk)
{
	struct priv *ca = dcc_priv(sk);

	dcc_power_start(sk, &ca->st);
}

SEC("struct_ops/dcc_theta_cong_control")
void BPF_PROG(dcc_theta_cong_control, struct sock *sk, __u32 ack, int flag,
	      const struct rate_sample *rs)
{
	struct priv *ca = dcc_priv(sk);
	struct tcp_sock *tp = dcc_tp(sk);
	struct dccsim_cc_cfg *c = dcc_cfg();
	struct ccm_power_params p = {};
	long rtt_us = rs->rtt_us;
	__u32 now_ns;

	if (!c || rtt_us <= 0)
		return;
	now_ns = (__u32)(tp->tcp_mstamp * 1000);
	dcc_power_params(&p, c, tp->mss_cache);
	if (ccm_theta_on_ack(&ca->st, &p, tp->snd_una, tp->snd_nxt, now_ns, (__u32)rtt_us * 1000))
		dcc_set_power_window(sk, ca->st.cwnd, p.tau_ns, c->pace);
}

DCC_KEEP_CWND_OPS(dcc_theta)

SEC(".struct_ops")
struct tcp_congestion_ops dccsim_theta = {
	.init = (void *)dcc_theta_init,
	.cong_control = (void *)dcc_theta_cong_control,
	.ssthresh = (void *)dcc_theta_ssthresh,
	.undo_cwnd = (void *)dcc_theta_undo_cwnd,
	.name = "dccsim_theta",
};
