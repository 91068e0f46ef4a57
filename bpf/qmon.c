// SPDX-License-Identifier: MIT
/*
 * dccsim-qmon: load bpf/qmon.bpf.o, monitor the given ports and store every record in a file.
 *
 *   dccsim-qmon OBJECT OUTFILE IFINDEX...
 *
 * Prints "ready" once the programs are attached, then drains the ring buffer every POLL_US until
 * SIGINT/SIGTERM; then drains it once more and prints two JSON lines: {"IFINDEX": [seen, lost], ...}
 * and {"PROGRAM": runs the kernel skipped (recursion misses), ...}.
 * The programs are detached when the process exits.  OUTFILE holds struct dccsim_qmon_event
 * records (little-endian, 40 bytes each) in the order the ring buffer gave them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "qmon.h"

#define POLL_US 2000

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_event(void *ctx, void *data, size_t len)
{
	FILE *out = ctx;

	if (len < sizeof(struct dccsim_qmon_event))
		return 0;
	return fwrite(data, sizeof(struct dccsim_qmon_event), 1, out) == 1 ? 0 : -EIO;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "dccsim-qmon: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct ring_buffer *rb;
	struct dccsim_qmon_count zero = {0}, c;
	FILE *out;
	int ports_fd, err, i;

	if (argc < 4) {
		fprintf(stderr, "usage: dccsim-qmon OBJECT OUTFILE IFINDEX...\n");
		return 2;
	}
	out = fopen(argv[2], "wb");
	if (!out)
		return fail(argv[2], errno);
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	obj = bpf_object__open_file(argv[1], NULL);
	err = libbpf_get_error(obj);
	if (err)
		return fail("open object", err);
	err = bpf_object__load(obj);
	if (err)
		return fail("load object", err);
	ports_fd = bpf_object__find_map_fd_by_name(obj, "qmon_ports");
	for (i = 3; i < argc; i++) {
		__u32 ifindex = (__u32)strtoul(argv[i], NULL, 10);

		if (bpf_map_update_elem(ports_fd, &ifindex, &zero, BPF_ANY))
			return fail("qmon_ports", errno);
	}
	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link = bpf_program__attach(prog);

		err = libbpf_get_error(link);
		if (err)
			return fail(bpf_program__name(prog), err);
	}
	rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "qmon_ring"), on_event, out, NULL);
	if (!rb)
		return fail("ring buffer", errno);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		err = ring_buffer__consume(rb);
		if (err < 0 && err != -EINTR)
			return fail("consume", err);
		usleep(POLL_US);
	}
	ring_buffer__consume(rb);
	if (fclose(out))
		return fail(argv[2], errno);
	printf("{");
	for (i = 3; i < argc; i++) {
		__u32 ifindex = (__u32)strtoul(argv[i], NULL, 10);

		if (bpf_map_lookup_elem(ports_fd, &ifindex, &c))
			c = zero;
		printf("%s\"%u\": [%llu, %llu]", i > 3 ? ", " : "", ifindex, (unsigned long long)c.seen,
		       (unsigned long long)c.lost);
	}
	printf("}\n");
	/* runs of a program the kernel skipped (it was already running on that CPU): unseen packets */
	printf("{");
	i = 0;
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		printf("%s\"%s\": %llu", i++ ? ", " : "", bpf_program__name(prog),
		       (unsigned long long)info.recursion_misses);
	}
	printf("}\n");
	ring_buffer__free(rb);
	bpf_object__close(obj);
	return 0;
}
