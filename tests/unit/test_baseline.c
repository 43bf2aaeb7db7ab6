/* SPDX-License-Identifier: GPL-2.0-or-later */
/* baseline: the table, and its parsers of a JSON Lines dump's line and a
 * pprof profile (ours, from src/output/pprof.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "pprof.h"
#include "check.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 0.005;
}

static void table(void)
{
	struct baseline *b = baseline_new();

	CHECK(b && baseline_add(b, "main", "/usr/bin/prog", 12.5) == 0, "a row added");
	CHECK(near(baseline_share(b, "main", "/opt/prog"), 12.5), "matched by symbol and the DSO's file name");
	CHECK(baseline_share(b, "main", "/usr/bin/other") == 0, "another DSO: not in it");
	baseline_add(b, "main", "prog", 1.5);
	CHECK(near(baseline_share(b, "main", "prog"), 14.0) && baseline_len(b) == 1, "the same key adds up");
	baseline_clear(b);
	CHECK(baseline_len(b) == 0 && baseline_share(b, "main", "prog") == 0, "cleared");
	baseline_free(b);
}

static void json(void)
{
	struct baseline *b = baseline_new();
	enum agg_gkey keys[] = { AGG_GK_COMM, AGG_GK_DSO };
	const char *line =
		"{\"time\":1.5,\"notices\":[\"a \\\"quoted\\\" notice\"],\"events\":[{\"name\":\"cpu-clock\",\"samples\":10}],"
		"\"symbols\":[{\"symbol\":\"hot\\u00e9\",\"dso\":\"/bin/w\",\"kernel\":false,\"samples\":7,\"share\":70.0,"
		"\"counts\":{\"cpu-clock\":7}},{\"symbol\":\"cold\",\"dso\":\"/bin/w\",\"share\":30}],"
		"\"groups\":[{\"comm\":\"w\",\"dso\":\"/bin/w\",\"samples\":9,\"share\":90.0},"
		"{\"comm\":\"w\",\"dso\":\"[kernel.kallsyms]\",\"share\":10.0}],\"tasks\":[]}";

	CHECK(baseline_parse_json(b, line, strlen(line), NULL, 0) == 0 && baseline_len(b) == 2, "a dump's line: two symbol rows");
	CHECK(near(baseline_share(b, "hot\xc3\xa9", "/bin/w"), 70.0), "a \\u escape decoded (70%%)");
	CHECK(near(baseline_share(b, "cold", "w"), 30.0), "the other row (30%%)");
	baseline_clear(b);
	CHECK(baseline_parse_json(b, line, strlen(line), keys, 2) == 0 && baseline_len(b) == 2, "with keys: the groups rows");
	CHECK(near(baseline_share(b, "w", "/bin/w"), 90.0) && near(baseline_share(b, "w", "[kernel.kallsyms]"), 10.0),
	      "a group row by its comm and DSO");
	{ /* --sort comm,srcline --hierarchy: the parents (level 0) are not rows of their own */
		enum agg_gkey sk[] = { AGG_GK_COMM, AGG_GK_SRCLINE };
		const char *h = "{\"groups\":[{\"level\":0,\"comm\":\"w\",\"share\":60.0},"
				"{\"level\":1,\"comm\":\"w\",\"srcline\":\"w.c:24\",\"share\":50.0},"
				"{\"level\":1,\"comm\":\"w\",\"srcline\":\"??:0\",\"share\":10.0}]}";

		baseline_clear(b);
		CHECK(baseline_parse_json(b, h, strlen(h), sk, 2) == 0 && baseline_len(b) == 2,
		      "srcline rows under a --hierarchy parent: two rows, the parent left out (%zu)", baseline_len(b));
		CHECK(near(baseline_share(b, "w  w.c:24", ""), 50.0) && near(baseline_share(b, "w  ??:0", ""), 10.0),
		      "a srcline row by its comm and line");
		baseline_clear(b);
	}
	CHECK(baseline_parse_json(b, "{\"symbols\":[{\"symbol\":\"x\",\"share\":1}", 36, NULL, 0) == -EINVAL &&
	      baseline_len(b) == 0, "a cut line: refused, nothing kept");
	CHECK(baseline_parse_json(b, "{\"groups\":[]}", 13, NULL, 0) == -EINVAL, "no symbols array: refused");
	CHECK(baseline_parse_json(b, "[1,2]", 5, NULL, 0) == -EINVAL, "not an object: refused");
	CHECK(baseline_parse_json(b, "{\"symbols\":[{\"symbol\":\"x\"}]}", 28, NULL, 0) == -EINVAL,
	      "a row without a share: refused");
	{
		char deep[200];

		memset(deep, '[', sizeof(deep));
		memcpy(deep, "{\"a\":", 5);
		CHECK(baseline_parse_json(b, deep, sizeof(deep), NULL, 0) == -EINVAL, "nesting past the bound: refused");
	}
	baseline_free(b);
}

static void pprof(void)
{
	struct pprof *p = pprof_new();
	struct pprof_frame hot = { .sym = "hot", .dso = "/bin/w", .key = 1 }, cold = { .sym = "cold", .dso = "/bin/w", .key = 2 },
			   caller = { .sym = "main", .dso = "/bin/w", .key = 3 };
	struct pprof_frame stack[2] = { hot, caller };
	struct pprof_meta m = { .period = 1000 };
	struct baseline *b = baseline_new();
	uint8_t *raw = NULL, *gz = NULL;
	size_t rawlen = 0, gzlen = 0;
	char path[] = "/tmp/test_baseline_XXXXXX", err[256];
	int fd;

	pprof_add(p, stack, 2, "w", 60, 60000);
	pprof_add(p, &hot, 1, "w2", 15, 15000);
	pprof_add(p, &cold, 1, "w", 25, 25000);
	CHECK(pprof_encode(p, &m, &raw, &rawlen) == 0, "our profile encoded");
	CHECK(baseline_parse_pprof(b, raw, rawlen) == 0 && baseline_len(b) == 2, "parsed: two leaf functions");
	CHECK(near(baseline_share(b, "hot", "w"), 75.0), "hot: its leaf samples of all, 75%% (%.2f)",
	      baseline_share(b, "hot", "w"));
	CHECK(near(baseline_share(b, "cold", "w"), 25.0) && baseline_share(b, "main", "w") == 0,
	      "cold 25%%; main, only a caller, none");
	CHECK(baseline_parse_pprof(b, raw, rawlen / 2) == -EINVAL && baseline_len(b) == 0, "cut in half: refused");
	/* gzip'd, from a file, as --baseline reads it */
	fd = mkstemp(path);
	CHECK(fd >= 0 && pprof_gzip(raw, rawlen, &gz, &gzlen) == 0 && write(fd, gz, gzlen) == (ssize_t)gzlen,
	      "a gzip'd profile written");
	CHECK(baseline_load(b, path, NULL, 0, err, sizeof(err)) == 0 && near(baseline_share(b, "hot", "/x/w"), 75.0),
	      "loaded from the file (%s)", err);
	if (fd >= 0 && ftruncate(fd, 10) == 0)
		CHECK(baseline_load(b, path, NULL, 0, err, sizeof(err)) != 0 && strstr(err, "--baseline"),
		      "a cut gzip: one line naming --baseline (%s)", err);
	CHECK(baseline_load(b, "/nonexistent/base.json", NULL, 0, err, sizeof(err)) == -ENOENT, "no file: -ENOENT (%s)", err);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(raw);
	free(gz);
	pprof_free(p);
	baseline_free(b);
}

int main(void)
{
	table();
	json();
	pprof();
	return check_done();
}
