/* SPDX-License-Identifier: MIT */
/* The queue monitor's record (bpf/qmon.bpf.c writes it, bpf/qmon.c stores it, and
 * python/dccsim/testbed/qmon.py reads it: keep the three in step). One record per packet a
 * monitored root qdisc enqueues or dequeues: the port's occupancy and cumulative transmitted bytes
 * right after that packet, at a CLOCK_MONOTONIC instant. */
#ifndef DCCSIM_QMON_H
#define DCCSIM_QMON_H

struct dccsim_qmon_event {
	__u64 ts_ns;    /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 tx_bytes; /* the qdisc's cumulative dequeued bytes (bstats.bytes) */
	__u32 ifindex;
	__u32 backlog;  /* the qdisc's backlog in bytes after this packet (qstats.backlog) */
	__u32 qlen;     /* the qdisc's backlog in packets after this packet (q.qlen) */
	__u32 packets;  /* 0: an enqueue; n > 0: a dequeue of n packets (a bulk dequeue) */
	__u32 len;      /* bytes this record enqueued or dequeued (qdisc_pkt_len, a list summed) */
	__u32 cpu;      /* the CPU that enqueued or dequeued it (bpf_get_smp_processor_id) */
};

/* per monitored port: events the programs saw, and those the ring buffer had no room for */
struct dccsim_qmon_count {
	__u64 seen;
	__u64 lost;
};

#endif
