/* SPDX-License-Identifier: GPL-2.0-or-later */
/* promtext escaping and the families metrics builds from a synthetic agg:
 * names, labels, counters only growing while comms move in and out of the
 * top N, OpenMetrics' TYPE names and # EOF. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics.h"
#include "promtext.h"
#include "symbols.h"

static char *escaped(const char *s)
{
	struct promtext p;

	promtext_init(&p, PROMTEXT_PROM);
	promtext_escape(&p, s);
	return promtext_take(&p, NULL);
}

static const char *comm_of(pid_t pid)
{
	return pid == 1 ? "alpha" : pid == 2 ? "beta" : pid == 3 ? "evil\"\\\n\xff" : pid == 4 ? "other" : "gamma";
}

/* The value of the line starting with prefix, or -1. */
static long long value_of(const char *page, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *l = page; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, prefix, n) == 0 && l[n] == ' ')
			return atoll(l + n + 1);
	return -1;
}

static char *render(struct metrics *m, struct agg *a, enum promtext_fmt fmt)
{
	struct metrics_figures f = { .intervals = 1, .rss_bytes = 4096, .cpu_seconds = 0.5 };
	char *page = NULL;
	size_t len;

	CHECK(metrics_render(m, a, &f, fmt, &page, &len) == 0 && page && strlen(page) == len,
	      "metrics_render gives a page of its length");
	return page;
}

static void tick(struct agg *a, pid_t pid, int n)
{
	struct sym_result sr = { .sym = "f", .dso = "/bin/x", .key = 1, .comm = comm_of(pid) };

	for (int i = 0; i < n; i++)
		agg_sample(a, 0, 0, pid, pid, &sr, 1000000);
}

/* Losses per (event, CPU): each pair its own series, and the old per-event
 * and per-CPU families, their sums, as before. */
static void lost_pairs(void)
{
	int cpus[] = { 0, 3 };
	struct agg *a = agg_new(2, cpus, 2);
	struct metrics *m = metrics_new(5, 5);
	char *page;

	CHECK(a && m, "agg of two events on CPUs 0 and 3");
	strlcpy(agg_event(a, 0)->name, "ev0", sizeof(agg_event(a, 0)->name));
	strlcpy(agg_event(a, 1)->name, "ev1", sizeof(agg_event(a, 1)->name));
	agg_lost(a, 0, 3, 5);
	agg_lost(a, 1, 0, 2);
	agg_lost(a, 1, 3, 7);
	agg_throttle(a, 1, 3);
	agg_throttle(a, 1, 3);
	agg_throttle(a, 0, 0);
	agg_roll(a, 0); /* totals, not the interval's */
	page = render(m, a, PROMTEXT_PROM);
	CHECK(value_of(page, "perftop_event_cpu_lost_samples_total{event=\"ev0\",cpu=\"3\"}") == 5 &&
	      value_of(page, "perftop_event_cpu_lost_samples_total{event=\"ev0\",cpu=\"0\"}") == 0 &&
	      value_of(page, "perftop_event_cpu_lost_samples_total{event=\"ev1\",cpu=\"0\"}") == 2 &&
	      value_of(page, "perftop_event_cpu_lost_samples_total{event=\"ev1\",cpu=\"3\"}") == 7,
	      "lost samples per (event, CPU) pair");
	CHECK(value_of(page, "perftop_event_cpu_throttled_total{event=\"ev1\",cpu=\"3\"}") == 2 &&
	      value_of(page, "perftop_event_cpu_throttled_total{event=\"ev0\",cpu=\"0\"}") == 1 &&
	      value_of(page, "perftop_event_cpu_throttled_total{event=\"ev0\",cpu=\"3\"}") == 0 &&
	      value_of(page, "perftop_event_cpu_throttled_total{event=\"ev1\",cpu=\"0\"}") == 0,
	      "throttling per (event, CPU) pair");
	CHECK(strstr(page, "# TYPE perftop_event_cpu_lost_samples_total counter\n") &&
	      strstr(page, "# TYPE perftop_event_cpu_throttled_total counter\n"), "both pair families typed counter");
	CHECK(value_of(page, "perftop_lost_samples_total{event=\"ev1\"}") == 9 &&
	      value_of(page, "perftop_cpu_lost_samples_total{cpu=\"3\"}") == 12 &&
	      value_of(page, "perftop_throttled_total{event=\"ev1\"}") == 2 &&
	      value_of(page, "perftop_cpu_throttled_total{cpu=\"0\"}") == 1,
	      "the per-event and per-CPU families, names and labels as before");
	free(page);
	metrics_free(m);
	agg_free(a);
}

static void samples_of(struct agg *a, const char *name, uint64_t key, int n)
{
	struct sym_result sr = { .sym = name, .dso = "/bin/x", .key = key, .comm = "c" };

	for (int i = 0; i < n; i++)
		agg_sample(a, 0, 0, 7, 7, &sr, 1);
}

/* The top N symbols follow only the rows that grew each interval: one that
 * overtakes enters, the one it passed leaves, rows that did not grow keep
 * their place and figures; the order is agg's. */
static void symbol_top(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	struct metrics *m = metrics_new(5, 2);
	char *page;

	CHECK(a && m, "symbol top: agg and metrics");
	strlcpy(agg_event(a, 0)->name, "e", sizeof(agg_event(a, 0)->name));
	samples_of(a, "f", 1, 10);
	samples_of(a, "g", 2, 5);
	samples_of(a, "h", 3, 1);
	metrics_update(m, a);
	agg_roll(a, 0);
	samples_of(a, "h", 3, 20); /* h passes both; g, the lowest, leaves */
	metrics_update(m, a);
	agg_roll(a, 0);
	samples_of(a, "i", 4, 3); /* below both: stays out */
	samples_of(a, "f", 1, 1);
	metrics_update(m, a);
	page = render(m, a, PROMTEXT_PROM);
	CHECK(value_of(page, "perftop_symbol_samples_total{event=\"e\",symbol=\"h\",dso=\"/bin/x\"}") == 21 &&
	      value_of(page, "perftop_symbol_samples_total{event=\"e\",symbol=\"f\",dso=\"/bin/x\"}") == 11 &&
	      !strstr(page, "symbol=\"g\"") && !strstr(page, "symbol=\"i\""),
	      "the top 2 after h overtook: h 21, f 11; g and i out");
	CHECK(strstr(page, "symbol=\"h\"") < strstr(page, "symbol=\"f\""), "in agg's order, h first");
	free(page);
	agg_roll(a, 0);
	samples_of(a, "g", 2, 30); /* g back, over both: f, now lowest and idle, leaves */
	metrics_update(m, a);
	page = render(m, a, PROMTEXT_PROM);
	CHECK(value_of(page, "perftop_symbol_samples_total{event=\"e\",symbol=\"g\",dso=\"/bin/x\"}") == 35 &&
	      value_of(page, "perftop_symbol_samples_total{event=\"e\",symbol=\"h\",dso=\"/bin/x\"}") == 21 &&
	      !strstr(page, "symbol=\"f\""), "g back on top with its whole total, h kept without growing");
	free(page);
	agg_roll(a, 0);
	samples_of(a, "k", 6, 1); /* below both: the lowest (h) is looked for */
	samples_of(a, "h", 3, 40); /* the lowest grows past the other: now g is the lowest */
	metrics_update(m, a);
	agg_roll(a, 0);
	samples_of(a, "j", 5, 50); /* passes g (35), not h (61) */
	metrics_update(m, a);
	page = render(m, a, PROMTEXT_PROM);
	CHECK(value_of(page, "perftop_symbol_samples_total{event=\"e\",symbol=\"h\",dso=\"/bin/x\"}") == 61 &&
	      value_of(page, "perftop_symbol_samples_total{event=\"e\",symbol=\"j\",dso=\"/bin/x\"}") == 50 &&
	      !strstr(page, "symbol=\"g\""), "once the lowest grew past another, that one is the lowest to leave");
	free(page);
	metrics_free(m);
	agg_free(a);
}

/* The sum of every perftop_comm_samples_total series of event "e" in the
 * page; each series' value into names/vals (n of them). */
static long long comm_series(const char *page, char names[][32], long long *vals, size_t max, size_t *n)
{
	static const char pre[] = "perftop_comm_samples_total{event=\"e\",comm=\"";
	long long sum = 0;

	*n = 0;
	for (const char *l = strstr(page, pre); l; l = strstr(l + 1, pre)) {
		const char *name = l + sizeof(pre) - 1, *q = strchr(name, '"');

		if (q == NULL || *n == max)
			break;
		snprintf(names[*n], 32, "%.*s", (int)(q - name), name);
		vals[*n] = atoll(q + 3); /* past "} " */
		sum += vals[*n];
		(*n)++;
	}
	return sum;
}

/* Many more comms than --metrics-comms, each hot for a while then gone:
 * at every render each series seen before is still there, no lower, and
 * the series add up to perftop_samples_total (issue 46 item 4). */
static void comm_churn(void)
{
	enum { ROUNDS = 60, MAXS = 64 };
	int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	struct metrics *m = metrics_new(2, 5); /* room for 2 * 4 + 16 comms */
	char names[MAXS][32], prev_names[MAXS][32];
	long long vals[MAXS], prev_vals[MAXS];
	size_t n, prev_n = 0;
	bool kept = true, summed = true;

	CHECK(a && m, "comm churn: agg and metrics");
	strlcpy(agg_event(a, 0)->name, "e", sizeof(agg_event(a, 0)->name));
	for (int r = 0; r < ROUNDS; r++) {
		char comm[16], *page;
		long long sum;

		snprintf(comm, sizeof(comm), "c%d", r);
		for (int i = 0; i < 100 + r; i++) {
			struct sym_result sr = { .sym = "f", .dso = "/bin/x", .key = 1, .comm = comm };

			agg_sample(a, 0, 0, 100 + r, 100 + r, &sr, 1);
		}
		if (r % 3 == 0) { /* an old one wakes up now and then */
			struct sym_result sr = { .sym = "f", .dso = "/bin/x", .key = 1, .comm = "c0" };

			agg_sample(a, 0, 0, 100, 100, &sr, 1);
		}
		metrics_update(m, a);
		page = render(m, a, PROMTEXT_PROM);
		sum = comm_series(page, names, vals, MAXS, &n);
		if (sum != (long long)agg_event(a, 0)->samples_total && summed) {
			summed = false;
			CHECK(false, "round %d: the comm series add up to %lld, not the %llu samples", r, sum,
			      (unsigned long long)agg_event(a, 0)->samples_total);
		}
		for (size_t i = 0; i < prev_n && kept; i++) {
			size_t j = 0;

			while (j < n && strcmp(names[j], prev_names[i]) != 0)
				j++;
			if (j == n || vals[j] < prev_vals[i]) {
				kept = false;
				CHECK(false, "round %d: comm %s went from %lld to %s", r, prev_names[i], prev_vals[i],
				      j == n ? "nothing" : "less");
			}
		}
		memcpy(prev_names, names, sizeof(names));
		memcpy(prev_vals, vals, sizeof(vals));
		prev_n = n;
		free(page);
		agg_roll(a, 0);
	}
	CHECK(kept && summed, "%d comms through a top 2: every series kept, none lower, the sum the total", ROUNDS);
	CHECK(prev_n > 2 && prev_n <= 2 * 4 + 16 + 1, "the series stay bounded (%zu)", prev_n);
	metrics_free(m);
	agg_free(a);
}

int main(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	struct metrics *m = metrics_new(1, 10);
	struct sym_result quoted = { .sym = "op\"<\n", .dso = "/lib/a\\b", .key = 2, .comm = comm_of(1) };
	char *s, *page;
	long long alpha, beta, other, other2, beta2;

	s = escaped("a\\b\"c\nd");
	CHECK_STR(s, "a\\\\b\\\"c\\nd", "backslash, quote and newline escaped");
	free(s);
	s = escaped("caf\xc3\xa9 \xff\xfe x\x01");
	CHECK_STR(s, "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd x\xef\xbf\xbd",
		  "valid UTF-8 kept; invalid bytes and controls become U+FFFD");
	free(s);
	s = escaped("plain run\x7f\xc2\x85" "end\"");
	CHECK_STR(s, "plain run\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "end\\\"",
		  "DEL and C1 controls become U+FFFD between runs of plain bytes");
	free(s);
	{
		struct promtext p;
		struct promtext_label l[] = { { "k", "v" } };

		promtext_init(&p, PROMTEXT_PROM);
		promtext_reserve(&p, 3);
		promtext_sample_u64(&p, "z", NULL, 0, 0);
		promtext_sample_u64(&p, "m", l, 1, UINT64_MAX);
		promtext_sample_u64(&p, "t", NULL, 0, 1000000007);
		s = promtext_take(&p, NULL);
		CHECK_STR(s, "z 0\nm{k=\"v\"} 18446744073709551615\nt 1000000007\n", "u64 samples: 0, the largest, others");
		free(s);
		promtext_init(&p, PROMTEXT_OPENMETRICS);
		promtext_family(&p, "h", PROMTEXT_GAUGE, "say \"x\" \\ y\nz");
		s = promtext_take(&p, NULL);
		CHECK_STR(s, "# HELP h say \\\"x\\\" \\\\ y\\nz\n# TYPE h gauge\n", "OpenMetrics HELP: quote, backslash, newline");
		free(s);
		promtext_init(&p, PROMTEXT_PROM);
		promtext_family(&p, "h", PROMTEXT_GAUGE, "say \"x\" \\ y\nz");
		s = promtext_take(&p, NULL);
		CHECK_STR(s, "# HELP h say \"x\" \\\\ y\\nz\n# TYPE h gauge\n", "0.0.4 HELP: quotes kept");
		free(s);
	}
	CHECK(promtext_wants_openmetrics("application/openmetrics-text;version=1.0.0,text/plain;q=0.5") &&
	      !promtext_wants_openmetrics("text/plain") && !promtext_wants_openmetrics(NULL),
	      "Accept negotiation");

	CHECK(a && m, "agg and metrics");
	tick(a, 1, 50);
	tick(a, 2, 10);
	tick(a, 3, 5);
	tick(a, 4, 3);
	agg_sample(a, 0, 0, 1, 1, &quoted, 1);
	CHECK(metrics_update(m, a) == 0, "metrics_update");
	page = render(m, a, PROMTEXT_PROM);
	alpha = value_of(page, "perftop_comm_samples_total{event=\"cpu-clock\",comm=\"alpha\"}");
	other = value_of(page, "perftop_comm_samples_total{event=\"cpu-clock\",comm=\"other\"}");
	/* agg_new names events from the engine; here it has none: find by comm. */
	if (alpha < 0) {
		const char *e = agg_event(a, 0)->name;
		char k[256];

		snprintf(k, sizeof(k), "perftop_comm_samples_total{event=\"%s\",comm=\"alpha\"}", e);
		alpha = value_of(page, k);
		snprintf(k, sizeof(k), "perftop_comm_samples_total{event=\"%s\",comm=\"other\"}", e);
		other = value_of(page, k);
	}
	CHECK(alpha == 51, "top comm alpha named with its samples (%lld)", alpha);
	CHECK(other == 18, "the rest (beta, the hostile comm, a task named other) in other (%lld)", other);
	CHECK(strstr(page, "comm=\"beta\"") == NULL, "beta is not in the top 1");
	CHECK(strstr(page, "# TYPE perftop_comm_samples_total counter\n") != NULL &&
	      strstr(page, "# HELP perftop_comm_samples_total ") != NULL, "0.0.4: HELP and TYPE with _total");
	CHECK(strstr(page, "symbol=\"op\\\"<\\n\",dso=\"/lib/a\\\\b\"") != NULL,
	      "symbol and dso label values escaped");
	CHECK(strstr(page, "perftop_process_resident_memory_bytes 4096\n") != NULL &&
	      strstr(page, "perftop_process_cpu_seconds_total 0.5\n") != NULL, "own CPU and RSS");
	CHECK(strstr(page, "# EOF") == NULL, "no # EOF in 0.0.4");
	free(page);

	/* beta overtakes alpha: alpha's series stays where it was, beta's starts,
	 * other never goes down. */
	agg_roll(a, 0);
	tick(a, 2, 500);
	tick(a, 1, 1);
	CHECK(metrics_update(m, a) == 0, "second update");
	page = render(m, a, PROMTEXT_OPENMETRICS);
	{
		const char *e = agg_event(a, 0)->name;
		char k[256];

		snprintf(k, sizeof(k), "perftop_comm_samples_total{event=\"%s\",comm=\"beta\"}", e);
		beta = value_of(page, k);
		snprintf(k, sizeof(k), "perftop_comm_samples_total{event=\"%s\",comm=\"other\"}", e);
		other2 = value_of(page, k);
	}
	CHECK(beta == 500, "beta, now top, counts from when it became top (%lld)", beta);
	CHECK(other2 >= other && other2 == other + 1, "other only grew: alpha's new sample went there (%lld)", other2);
	CHECK(strstr(page, "# TYPE perftop_comm_samples counter\n") != NULL &&
	      strstr(page, "# TYPE perftop_comm_samples_total") == NULL,
	      "OpenMetrics: counter family named without _total");
	CHECK(strlen(page) > 6 && strcmp(page + strlen(page) - 6, "# EOF\n") == 0, "OpenMetrics ends in # EOF");
	free(page);

	/* beta drops back out; its series must not be re-exported lower. */
	agg_roll(a, 0);
	tick(a, 1, 5000);
	metrics_update(m, a);
	page = render(m, a, PROMTEXT_PROM);
	{
		const char *e = agg_event(a, 0)->name;
		char k[256];

		snprintf(k, sizeof(k), "perftop_comm_samples_total{event=\"%s\",comm=\"alpha\"}", e);
		alpha = value_of(page, k);
		snprintf(k, sizeof(k), "perftop_comm_samples_total{event=\"%s\",comm=\"beta\"}", e);
		beta2 = value_of(page, k);
	}
	CHECK(alpha == 5051 && beta2 == 500, "alpha back on top resumes its own series (%lld), beta's stays at "
	      "500 (%lld): a series that vanished would leave the comms short of the samples", alpha, beta2);
	free(page);

	metrics_free(m);
	agg_free(a);
	lost_pairs();
	symbol_top();
	comm_churn();
	return check_done();
}
