/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exporter's pages: rendered only in the formats somebody asks for, and
 * served without a copy, so a page a response still holds outlives the
 * interval that replaces it (ASan checks the latter). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "agg.h"
#include "export.h"
#include "options.h"
#include "session.h"
#include "symbols.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b = calloc(1, 1 << 20);
	size_t n;

	if (f == NULL || b == NULL) {
		if (f)
			fclose(f);
		free(b);
		return NULL;
	}
	n = fread(b, 1, (1 << 20) - 1, f);
	b[n] = '\0';
	fclose(f);
	return b;
}

int main(void)
{
	char dir[] = "/tmp/perftop-test-export-XXXXXX", path[128], err[256];
	char *argv[] = { "perftop", "-b", "-F", "4000", "--textfile", dir, NULL };
	struct symbols_opts so = { .proc_root = "/nonexistent", .kallsyms_path = "/nonexistent" };
	static const int cpus[] = { 0, 1 };
	struct options o;
	struct session s;
	struct exporter *x = NULL;
	const char *text, *text2;
	void *pg, *pg2;
	size_t len, len2;
	uint64_t r0;
	char *held, *file;

	CHECK(mkdtemp(dir) != NULL, "a scratch directory");
	memset(&o, 0, sizeof(o));
	CHECK(options_parse(&o, 6, argv) == 0, "options with --textfile");
	memset(&s, 0, sizeof(s));
	s.opts = &o;
	s.syms = symbols_new(&so);
	s.agg = agg_new(1, cpus, 2);
	CHECK(s.syms && s.agg, "a session without an engine");
	strlcpy(agg_event(s.agg, 0)->name, "cpu-clock", sizeof(agg_event(s.agg, 0)->name));
	CHECK(export_open(&x, &s, &o, err, sizeof(err)) == 0 && x, "export_open: %s", x ? "" : err);
	if (x == NULL)
		return check_done();

	/* Opening renders both (Prometheus may scrape at once); then only the
	 * textfile's format until a client asks for OpenMetrics. */
	r0 = export_renders(x);
	CHECK(r0 == 2, "both formats rendered at open (%llu)", (unsigned long long)r0);
	for (int i = 0; i < 3; i++)
		export_interval(x, s.agg, &s);
	CHECK(export_renders(x) == r0 + 3, "nobody asks for OpenMetrics: one render an interval (%llu)",
	      (unsigned long long)(export_renders(x) - r0));

	/* The page served is the one published, byte for byte (the textfile). */
	CHECK(export_page(x, PROMTEXT_PROM, &pg, &text, &len) == 0 && pg, "the 0.0.4 page");
	snprintf(path, sizeof(path), "%s/perftop.prom", dir);
	file = slurp(path);
	CHECK(file && strlen(file) == len && memcmp(file, text, len) == 0, "served page == textfile");
	CHECK(strstr(text, "# TYPE perftop_process_cpu_seconds_total counter") != NULL, "a family in the page");
	held = strndup(text, len);

	/* Asked once: OpenMetrics rendered each interval from then on. */
	CHECK(export_page(x, PROMTEXT_OPENMETRICS, &pg2, &text2, &len2) == 0 && pg2, "the OpenMetrics page");
	export_page_put(pg2);
	r0 = export_renders(x);
	export_interval(x, s.agg, &s);
	CHECK(export_renders(x) == r0 + 2, "asked for: both formats rendered");

	/* The held page survived the interval that replaced it. */
	CHECK(held && memcmp(held, text, len) == 0, "a page held by a response outlives its replacement");
	export_page_put(pg);
	export_page_put(NULL);

	/* The session owns the interval: after `d` (session_set_interval) the
	 * exporter's windows and waits follow it, not the start-up -d 1. */
	{
		int id = export_profile_open(x, 60);

		CHECK(id >= 0, "a 60 s profile window");
		export_interval(x, s.agg, &s); /* it starts */
		export_interval(x, s.agg, &s);
		CHECK(id >= 0 && !export_profile_ready(x, id), "at -d 1 a 60 s window is not done two intervals in");
		CHECK(session_set_interval(&s, 200) == 0 && session_interval(&s) == 200, "the session takes 200 s");
		export_interval(x, s.agg, &s);
		CHECK(id >= 0 && export_profile_ready(x, id),
		      "at 200 s the window is done: within half an interval of its 60 s");
		CHECK(export_wait_limit(x, 0) == 2 + 2 * 200.0, "a page's wait follows the interval (%g s)",
		      export_wait_limit(x, 0));
	}

	export_close(x);
	agg_free(s.agg);
	symbols_free(s.syms);
	options_free(&o);
	unlink(path);
	rmdir(dir);
	free(file);
	free(held);
	return check_done();
}
