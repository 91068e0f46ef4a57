/* SPDX-License-Identifier: MIT */
#ifndef DCCSIM_BPF_MAPS_H
#define DCCSIM_BPF_MAPS_H
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct dccsim_flow_key);
	__type(value, struct dccsim_int_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dccsim_int SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dccsim_cc_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dccsim_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct dccsim_port_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dccsim_port SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct dccsim_port_stat);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dccsim_pstat SEC(".maps");
#endif
