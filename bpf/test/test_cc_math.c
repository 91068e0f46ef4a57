/* SPDX-License-Identifier: MIT */
/* Checks bpf/cc_math.h (the fixed-point control laws of the BPF congestion controls) against the
 * floating-point reference vectors tests/vectors/cc_vectors.json, within the tolerances stated in
 * the file.  Usage: test_cc_math <cc_vectors.json>; exit 0 when every step matches. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "cc_math.h"
#include "json.h"

static int failures, checks;
static double tol_cwnd_rel, tol_cwnd_abs, tol_power_rel, tol_power_abs, tol_alpha_abs;
static double worst_cwnd_rel;

static uint64_t ns_of(double s) { return (uint64_t)llround(s * 1e9); }

static void check(const char *alg, const char *cname, int step, const char *what, double got,
		  double want, double rel, double abs_tol)
{
	double err = fabs(got - want);
	checks++;
	if (!strcmp(what, "cwnd") && want > 0 && err / want > worst_cwnd_rel)
		worst_cwnd_rel = err / want;
	if (err > rel * fabs(want) + abs_tol) {
		failures++;
		if (failures <= 20)
			fprintf(stderr, "FAIL %s/%s step %d: %s = %.6f, expected %.6f\n", alg, cname, step, what,
				got, want);
	}
}

static void power_params(const struct jv *p, struct ccm_power_params *pp)
{
	pp->tau_ns = ns_of(j_num(p, "tau_s"));
	pp->host_bdp = (ccm_u64)j_num(p, "host_bdp_bytes");
	pp->beta = (ccm_u64)j_num(p, "beta_bytes");
	pp->gamma_fp = (ccm_u32)llround(j_num(p, "gamma") * CCM_FP_ONE);
	pp->floor_fp = (ccm_u32)llround(j_num(p, "power_floor") * CCM_FP_ONE);
	pp->mss = (ccm_u32)j_num(p, "mss_bytes");
}

static void run_power(const char *alg, const struct jv *c, int theta)
{
	const char *name = j_get(c, "name")->str;
	const struct jv *steps = j_get(c, "steps");
	struct ccm_power_params pp;
	struct ccm_power_state st;

	power_params(j_get(c, "params"), &pp);
	ccm_power_init(&st, &pp, (ccm_u32)j_num(j_get(c, "init"), "snd_nxt"));
	for (int i = 0; i < steps->n; i++) {
		const struct jv *s = steps->items[i];
		ccm_u32 una = (ccm_u32)(uint64_t)j_num(s, "una"), nxt = (ccm_u32)(uint64_t)j_num(s, "nxt");
		int upd;

		if (theta) {
			upd = ccm_theta_on_ack(&st, &pp, una, nxt, (ccm_u32)ns_of(j_num(s, "now_s")),
					       (ccm_u32)ns_of(j_num(s, "rtt_s")));
		} else {
			const struct jv *hs = j_get(s, "hops");
			struct ccm_hop hops[CCM_MAX_HOPS] = {{0}};
			for (int h = 0; h < hs->n && h < CCM_MAX_HOPS; h++) {
				const struct jv *x = hs->items[h];
				hops[h].qlen = (ccm_u32)j_num(x, "qlen_bytes");
				hops[h].tx = (ccm_u32)(uint64_t)j_num(x, "tx_bytes");      /* wire: mod 2^32 */
				hops[h].ts = (ccm_u32)ns_of(j_num(x, "ts_s"));            /* wire: mod 2^32 */
				hops[h].rate_mbps = (ccm_u32)(j_num(x, "rate_bps") / 1e6);
			}
			upd = ccm_powertcp_on_ack(&st, &pp, una, nxt, hops, (ccm_u32)hs->n);
		}
		checks++;
		if (upd != (int)j_num(s, "updated")) {
			failures++;
			fprintf(stderr, "FAIL %s/%s step %d: updated = %d, expected %d\n", alg, name, i, upd,
				(int)j_num(s, "updated"));
		}
		check(alg, name, i, "cwnd", (double)st.cwnd / (1 << CCM_W_SHIFT), j_num(s, "expect_cwnd_bytes"),
		      tol_cwnd_rel, tol_cwnd_abs);
		check(alg, name, i, "smoothed_power", (double)st.smooth / CCM_FP_ONE,
		      j_num(s, "expect_smoothed_power"), tol_power_rel, tol_power_abs);
	}
}

static void run_dctcp(const struct jv *c)
{
	const char *name = j_get(c, "name")->str;
	const struct jv *p = j_get(c, "params"), *in = j_get(c, "init"), *steps = j_get(c, "steps");
	struct ccm_dctcp_params pp = {0};
	struct ccm_dctcp_state st;

	pp.mss = (ccm_u32)j_num(p, "mss_bytes");
	pp.g_shift = (ccm_u32)llround(-log2(j_num(p, "g")));
	pp.min_cwnd = (ccm_u32)j_num(p, "min_cwnd_bytes");
	ccm_dctcp_init(&st, (ccm_u64)j_num(in, "cwnd_bytes"), (ccm_u32)j_num(in, "snd_una"),
		       (ccm_u32)j_num(in, "snd_nxt"));
	for (int i = 0; i < steps->n; i++) {
		const struct jv *s = steps->items[i];
		ccm_dctcp_on_ack(&st, &pp, (ccm_u32)j_num(s, "una"), (ccm_u32)j_num(s, "nxt"),
				 (ccm_u64)j_num(s, "acked_bytes"), (int)j_num(s, "ece"));
		check("dctcp", name, i, "cwnd", (double)st.cwnd / (1 << CCM_W_SHIFT), j_num(s, "expect_cwnd_bytes"),
		      tol_cwnd_rel, tol_cwnd_abs);
		check("dctcp", name, i, "alpha", (double)st.alpha / CCM_FP_ONE, j_num(s, "expect_alpha"), 0,
		      tol_alpha_abs);
	}
}

static void run_tbtcp(const struct jv *c)
{
	const char *name = j_get(c, "name")->str;
	const struct jv *p = j_get(c, "params"), *in = j_get(c, "init"), *steps = j_get(c, "steps");
	struct ccm_tbtcp_params pp;
	struct ccm_tbtcp_state st;

	pp.mss = (ccm_u32)j_num(p, "mss_bytes");
	pp.alpha_fp = (ccm_u32)llround(j_num(p, "alpha") * CCM_FP_ONE);
	pp.scale = (ccm_u32)j_num(p, "scale");
	pp.min_cwnd = (ccm_u32)j_num(p, "min_cwnd_bytes");
	ccm_tbtcp_init(&st, (ccm_u64)j_num(in, "cwnd_bytes"), (ccm_u32)j_num(in, "snd_nxt"));
	for (int i = 0; i < steps->n; i++) {
		const struct jv *s = steps->items[i];
		ccm_tbtcp_on_ack(&st, &pp, (ccm_u32)j_num(s, "una"), (ccm_u32)j_num(s, "nxt"),
				 (ccm_u64)j_num(s, "acked_bytes"), (ccm_u32)j_num(s, "marked_packets"));
		check("tbtcp", name, i, "cwnd", (double)st.cwnd / (1 << CCM_W_SHIFT), j_num(s, "expect_cwnd_bytes"),
		      tol_cwnd_rel, tol_cwnd_abs);
	}
}

int main(int argc, char **argv)
{
	const struct jv *doc, *tol, *algs;
	int cases = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s cc_vectors.json\n", argv[0]);
		return 2;
	}
	doc = j_parse_file(argv[1]);
	if (!doc) {
		fprintf(stderr, "cannot read or parse %s\n", argv[1]);
		return 2;
	}
	tol = j_get(doc, "tolerance");
	tol_cwnd_rel = j_num(tol, "cwnd_rel");
	tol_cwnd_abs = j_num(tol, "cwnd_abs_bytes");
	tol_power_rel = j_num(tol, "power_rel");
	tol_power_abs = j_num(tol, "power_abs");
	tol_alpha_abs = j_num(tol, "alpha_abs");
	algs = j_get(doc, "algorithms");
	for (int a = 0; a < algs->n; a++) {
		const char *alg = algs->keys[a];
		const struct jv *list = algs->items[a];
		for (int i = 0; i < list->n; i++, cases++) {
			if (!strcmp(alg, "powertcp"))
				run_power(alg, list->items[i], 0);
			else if (!strcmp(alg, "theta-powertcp"))
				run_power(alg, list->items[i], 1);
			else if (!strcmp(alg, "dctcp"))
				run_dctcp(list->items[i]);
			else if (!strcmp(alg, "tbtcp"))
				run_tbtcp(list->items[i]);
			else {
				fprintf(stderr, "unknown algorithm '%s' in vectors\n", alg);
				return 2;
			}
		}
	}
	printf("cc_math: %d cases, %d checks, %d failures, worst cwnd error %.2e relative\n", cases, checks,
	       failures, worst_cwnd_rel);
	return failures ? 1 : 0;
}
