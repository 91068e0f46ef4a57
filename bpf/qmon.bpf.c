/* SPDX-License-Identifier: MIT */
/*
 * Per-packet queue occupancy of the testbed's ports (issue 29 item 3).
 *
 * The qdisc tracepoints fire for a port's root qdisc (tbf) after every successful enqueue
 * (dev_qdisc_enqueue) and after every dequeue (dequeue_skb), both under the qdisc's root lock, so
 * the backlog read here is the port's queue right after that packet and the timestamps of one
 * port are in the order the queue changed.  The queue changes at no other instant (a drop never
 * enters the qdisc), so these records describe the occupancy exactly: a step function, constant
 * between records.  Userspace (bpf/qmon.c) drains the ring buffer without wake-ups (it polls every
 * few ms); a record the ring has no room for is counted as lost, which is the monitor's coverage.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "qmon.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} qmon_ring SEC(".maps");

/* the monitored ports (testbed-unique ifindexes): presence selects, the value counts */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct dccsim_qmon_count);
} qmon_ports SEC(".maps");

#define MAX_BULK 9 /* dequeue_skb hands over at most 1 + 8 packets (try_bulk_dequeue_skb_slow) */

/* qdisc_pkt_len(skb): the qdisc's length of the packet, first word of skb->cb (struct qdisc_skb_cb) */
static __always_inline __u32 pkt_len(struct sk_buff *skb)
{
	__u32 len = 0;

	bpf_core_read(&len, sizeof(len), &skb->cb);
	return len;
}

static __always_inline int record(struct Qdisc *q, __u32 packets, __u32 len)
{
	struct dccsim_qmon_count *c;
	struct dccsim_qmon_event *e;
	__u32 ifindex = BPF_CORE_READ(q, dev_queue, dev, ifindex);

	c = bpf_map_lookup_elem(&qmon_ports, &ifindex);
	if (!c)
		return 0;
	__sync_fetch_and_add(&c->seen, 1);
	e = bpf_ringbuf_reserve(&qmon_ring, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&c->lost, 1);
		return 0;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->ifindex = ifindex;
	e->backlog = BPF_CORE_READ(q, qstats.backlog);
	e->qlen = BPF_CORE_READ(q, q.qlen);
	e->packets = packets;
	e->len = len;
	e->cpu = bpf_get_smp_processor_id();
	e->tx_bytes = 0;
	bpf_core_read(&e->tx_bytes, sizeof(e->tx_bytes), &q->bstats.bytes);
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(qmon_enqueue, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	return record(q, 0, pkt_len(skb));
}

SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(qmon_dequeue, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	struct sk_buff *s = skb;
	__u32 len = 0, i;

	if (!skb)
		return 0; /* nothing dequeued (e.g. tbf waiting for tokens) */
	for (i = 0; i < MAX_BULK && s; i++) { /* a bulk dequeue is a list linked by skb->next */
		len += pkt_len(s);
		s = BPF_CORE_READ(s, next);
	}
	return record(q, packets, len);
}
