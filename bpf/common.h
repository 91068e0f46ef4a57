/* SPDX-License-Identifier: MIT */
/* Maps and records shared by the testbed's tc programs and struct_ops congestion controls.
 * All namespaces share one kernel, so the maps are pinned by name in the BPF filesystem and reused
 * by every object that declares them (libbpf LIBBPF_PIN_BY_NAME). */
#ifndef DCCSIM_COMMON_H
#define DCCSIM_COMMON_H

#include "cc_math.h"

/* IP option carrying one INT hop record; every switch egress inserts one in front of the others.
 * Layout (20 bytes): type, length (20), hop count (1), reserved, then the hop record in network
 * byte order: queue bytes, transmitted bytes mod 2^32, timestamp ns mod 2^32, rate Mbit/s. */
#define DCCSIM_IPOPT_INT 0x5e /* copy 0, class 2 (measurement), number 30 (RFC 4727 experiment) */
#define DCCSIM_IPOPT_LEN 20

struct dccsim_int_opt {
	__u8 type;
	__u8 len;
	__u8 nhops;
	__u8 reserved;
	__u32 qlen;
	__u32 tx;
	__u32 ts;
	__u32 rate_mbps;
};

/* flow key as seen in the data packet (network byte order) */
struct dccsim_flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
};

/* the latest INT stack received for a flow: hops[0] is the first switch on the path */
struct dccsim_int_rec {
	__u32 nhops;
	__u32 count;
	struct ccm_hop hops[CCM_MAX_HOPS];
};

enum dccsim_ecn_kind { ECN_NONE = 0, ECN_STEP = 1, ECN_RED = 2, ECN_TBTCP = 3 };

/* per switch egress (keyed by a testbed-wide unique ifindex) */
struct dccsim_port_cfg {
	__u64 rate_bps;
	__u32 int_on;
	__u32 ecn_kind;
	__u32 k_bytes;    /* step threshold */
	__u32 kmin_bytes; /* RED */
	__u32 kmax_bytes; /* RED */
	__u32 pmax;       /* RED / TBTCP cap: probability * 2^32 - 1 */
	__u32 bdp_bytes;  /* TBTCP: p(q) = q / (BDP + q) */
	__u32 tmin_bytes; /* TBTCP: no marks below */
};

struct dccsim_port_stat {
	__u64 pkts;
	__u64 stamped;
	__u64 marked;
	__u64 ect;
	__u64 max_qlen;   /* largest backlog a packet found (racy max: per-packet resolution) */
};

/* congestion-control parameters (one entry, written by the driver before flows start) */
struct dccsim_cc_cfg {
	__u64 tau_ns;
	__u64 host_bdp;    /* bytes */
	__u64 beta;        /* bytes */
	__u32 gamma_fp;
	__u32 floor_fp;
	__u32 tb_alpha_fp;
	__u32 tb_scale;
	__u32 dctcp_g_shift;
	__u32 min_cwnd_pkts;
	__u32 pace;        /* PowerTCP family: pace at window / tau (1) or window only (0) */
	__u32 pad;
};

#endif
