/* SPDX-License-Identifier: MIT */
/*
 * tc (clsact) programs of the namespace testbed.
 *
 * switch_egress — on every switch egress port: ECN marking (step K, RED, TBTCP curve) and INT
 *   stamping.  The queue is the real backlog of the port's root qdisc (tbf), read through
 *   bpf_cast_to_kern_ctx; clsact egress runs before the qdisc enqueue, so the sample is the queue
 *   the packet joins.  "tx" is the root qdisc's cumulative dequeued bytes.  The INT hop is inserted as
 *   an IPv4 option in front of any existing one (bpf_skb_adjust_room), so the devices need MTU
 *   headroom of DCCSIM_IPOPT_LEN bytes per hop.
 * host_ingress — on every host NIC: copies the INT options of an arriving data packet into the pinned
 *   map dccsim_int, keyed by the packet's flow; the sender's struct_ops reads it from there.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "bpf_maps.h"

#define ETH_HLEN_ 14
#define ETH_P_IP_ 0x0800
#define TC_ACT_OK_ 0
#define IPPROTO_TCP_ 6

char _license[] SEC("license") = "GPL";

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

static __always_inline int should_mark(const struct dccsim_port_cfg *c, __u32 q)
{
	__u64 p32;

	switch (c->ecn_kind) {
	case ECN_STEP:
		return q > c->k_bytes;
	case ECN_RED:
		if (q <= c->kmin_bytes)
			return 0;
		if (q >= c->kmax_bytes)
			return 1;
		p32 = (__u64)c->pmax * (q - c->kmin_bytes) / (c->kmax_bytes - c->kmin_bytes);
		return bpf_get_prandom_u32() < p32;
	case ECN_TBTCP:
		if (q < c->tmin_bytes || q == 0)
			return 0;
		p32 = ((__u64)q << 32) / ((__u64)c->bdp_bytes + q);
		if (p32 > c->pmax)
			p32 = c->pmax;
		return bpf_get_prandom_u32() < p32;
	}
	return 0;
}

SEC("tc")
int switch_egress(struct __sk_buff *ctx)
{
	struct sk_buff *skb;
	struct Qdisc *qd;
	struct dccsim_port_cfg *c;
	struct dccsim_port_stat *st, zero_st = {};
	struct dccsim_int_opt opt = {};
	struct iphdr iph;
	__u32 ifindex = ctx->ifindex, q = 0, hdr_old, hdr_new, ihl, payload;
	__u64 tx = 0, diff;
	__u8 doff = 0, tos;
	__u16 old16, new16;

	if (ctx->protocol != bpf_htons(ETH_P_IP_))
		return TC_ACT_OK_;
	c = bpf_map_lookup_elem(&dccsim_port, &ifindex);
	if (!c)
		return TC_ACT_OK_;
	if (bpf_skb_load_bytes(ctx, ETH_HLEN_, &iph, sizeof(iph)))
		return TC_ACT_OK_;
	if (iph.version != 4 || iph.ihl < 5)
		return TC_ACT_OK_;
	ihl = iph.ihl * 4;

	skb = bpf_cast_to_kern_ctx(ctx);
	qd = BPF_CORE_READ(skb, dev, qdisc);
	if (qd) {
		q = BPF_CORE_READ(qd, qstats.backlog);
		bpf_core_read(&tx, sizeof(tx), &qd->bstats.bytes);
	}

	st = bpf_map_lookup_elem(&dccsim_pstat, &ifindex);
	if (!st) {
		bpf_map_update_elem(&dccsim_pstat, &ifindex, &zero_st, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&dccsim_pstat, &ifindex);
		if (!st)
			return TC_ACT_OK_;
	}
	__sync_fetch_and_add(&st->pkts, 1);
	if (q > st->max_qlen)
		st->max_qlen = q;

	/* ECN: mark CE on ECT packets by the port's curve */
	tos = iph.tos;
	if ((tos & 3) && c->ecn_kind != ECN_NONE) {
		__sync_fetch_and_add(&st->ect, 1);
		if ((tos & 3) != 3 && should_mark(c, q)) {
			/* the 16-bit word version/ihl + tos, copied (not type-punned: strict aliasing) */
			__builtin_memcpy(&old16, &iph, sizeof(old16));
			iph.tos = tos | 3;
			__builtin_memcpy(&new16, &iph, sizeof(new16));
			bpf_l3_csum_replace(ctx, ETH_HLEN_ + offsetof(struct iphdr, check), old16, new16, 2);
			bpf_skb_store_bytes(ctx, ETH_HLEN_ + offsetof(struct iphdr, tos), &iph.tos, 1, 0);
			__sync_fetch_and_add(&st->marked, 1);
		}
	}

	/* INT: TCP packets that carry data, while the IP header has room for one more option */
	if (!c->int_on || iph.protocol != IPPROTO_TCP_ || ihl + DCCSIM_IPOPT_LEN > 60)
		return TC_ACT_OK_;
	if (bpf_skb_load_bytes(ctx, ETH_HLEN_ + ihl + 12, &doff, 1))
		return TC_ACT_OK_;
	payload = bpf_ntohs(iph.tot_len);
	if (payload <= ihl + (doff >> 4) * 4)
		return TC_ACT_OK_;

	opt.type = DCCSIM_IPOPT_INT;
	opt.len = DCCSIM_IPOPT_LEN;
	opt.nhops = 1;
	opt.qlen = bpf_htonl(q);
	opt.tx = bpf_htonl((__u32)tx);
	opt.ts = bpf_htonl((__u32)bpf_ktime_get_ns());
	opt.rate_mbps = bpf_htonl((__u32)(c->rate_bps / 1000000));

	if (bpf_skb_adjust_room(ctx, DCCSIM_IPOPT_LEN, BPF_ADJ_ROOM_NET, 0))
		return TC_ACT_OK_;
	if (bpf_skb_store_bytes(ctx, ETH_HLEN_ + sizeof(struct iphdr), &opt, sizeof(opt), 0))
		return TC_ACT_OK_;

	/* header fields: ihl += 5 words, tot_len += 20, checksum incrementally */
	/* version/ihl, tos, tot_len (tos may have been marked above) */
	__builtin_memcpy(&hdr_old, &iph, sizeof(hdr_old));
	iph.ihl += DCCSIM_IPOPT_LEN / 4;
	iph.tot_len = bpf_htons(bpf_ntohs(iph.tot_len) + DCCSIM_IPOPT_LEN);
	__builtin_memcpy(&hdr_new, &iph, sizeof(hdr_new));
	diff = bpf_csum_diff(&hdr_old, 4, &hdr_new, 4, 0);
	diff = bpf_csum_diff(0, 0, (__be32 *)&opt, sizeof(opt), (__wsum)diff);
	bpf_skb_store_bytes(ctx, ETH_HLEN_, &hdr_new, 4, 0);
	bpf_l3_csum_replace(ctx, ETH_HLEN_ + offsetof(struct iphdr, check), 0, diff, 0);
	__sync_fetch_and_add(&st->stamped, 1);
	return TC_ACT_OK_;
}

SEC("tc")
int host_ingress(struct __sk_buff *ctx)
{
	struct iphdr iph;
	struct dccsim_int_opt opt;
	struct dccsim_int_rec rec = {};
	struct dccsim_flow_key key = {};
	__u16 ports[2];
	__u32 ihl, off, i;

	if (ctx->protocol != bpf_htons(ETH_P_IP_))
		return TC_ACT_OK_;
	if (bpf_skb_load_bytes(ctx, ETH_HLEN_, &iph, sizeof(iph)))
		return TC_ACT_OK_;
	if (iph.version != 4 || iph.ihl <= 5 || iph.protocol != IPPROTO_TCP_)
		return TC_ACT_OK_;
	ihl = iph.ihl * 4;
	off = ETH_HLEN_ + sizeof(struct iphdr);
	for (i = 0; i < CCM_MAX_HOPS; i++) {
		if (off + DCCSIM_IPOPT_LEN > ETH_HLEN_ + ihl)
			break;
		if (bpf_skb_load_bytes(ctx, off, &opt, sizeof(opt)))
			break;
		if (opt.type != DCCSIM_IPOPT_INT || opt.len != DCCSIM_IPOPT_LEN)
			break;
		/* options are newest first; store in path order (first switch first) */
		rec.hops[CCM_MAX_HOPS - 1 - i].qlen = bpf_ntohl(opt.qlen);
		rec.hops[CCM_MAX_HOPS - 1 - i].tx = bpf_ntohl(opt.tx);
		rec.hops[CCM_MAX_HOPS - 1 - i].ts = bpf_ntohl(opt.ts);
		rec.hops[CCM_MAX_HOPS - 1 - i].rate_mbps = bpf_ntohl(opt.rate_mbps);
		rec.nhops++;
		off += DCCSIM_IPOPT_LEN;
	}
	if (!rec.nhops)
		return TC_ACT_OK_;
	if (rec.nhops < CCM_MAX_HOPS) {   /* shift to the front */
		rec.hops[0] = rec.hops[CCM_MAX_HOPS - 1];
		__builtin_memset(&rec.hops[1], 0, sizeof(rec.hops[1]));
	}
	if (bpf_skb_load_bytes(ctx, ETH_HLEN_ + ihl, ports, sizeof(ports)))
		return TC_ACT_OK_;
	key.saddr = iph.saddr;
	key.daddr = iph.daddr;
	key.sport = ports[0];
	key.dport = ports[1];
	{
		struct dccsim_int_rec *old = bpf_map_lookup_elem(&dccsim_int, &key);
		rec.count = old ? old->count + 1 : 1;
	}
	bpf_map_update_elem(&dccsim_int, &key, &rec, BPF_ANY);
	return TC_ACT_OK_;
}
