/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_group (--sort) and agg_kin (the task tree's parents). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agg.h"
#include "agg_int.h"
#include "symbols.h"
#include "check.h"

static struct sym_result sym(const char *name, const char *dso, uint64_t key, const char *comm)
{
	struct sym_result r = { .sym = name, .dso = dso, .key = key, .comm = comm };

	return r;
}

static const struct agg_group *find(struct agg *a, enum agg_scope sc, const char *comm, const char *dso)
{
	const struct agg_group **g;
	size_t n = agg_groups_in_scope(a, sc, &g);

	for (size_t i = 0; i < n; i++)
		if (strcmp(g[i]->comm, comm) == 0 && (dso == NULL || (g[i]->dso && strcmp(g[i]->dso, dso) == 0)))
			return g[i];
	return NULL;
}

static uint64_t rows_total(struct agg *a, enum agg_scope sc)
{
	const struct agg_group **g;
	size_t n = agg_groups_in_scope(a, sc, &g);
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += (sc == AGG_INTERVAL ? g[i]->iv : g[i]->total).samples[0];
	return t;
}

static void parse(void)
{
	enum agg_gkey k[AGG_GK_COUNT];

	CHECK(agg_group_parse("comm,dso", k, AGG_GK_COUNT) == 2 && k[0] == AGG_GK_COMM && k[1] == AGG_GK_DSO,
	      "comm,dso: two keys in order");
	CHECK(agg_group_parse("pid,sym,cpu,srcline", k, AGG_GK_COUNT) == 4 && k[3] == AGG_GK_SRCLINE,
	      "perf's names: pid, sym, cpu, srcline");
	CHECK(agg_group_parse("symbol", k, AGG_GK_COUNT) == 1 && k[0] == AGG_GK_SYM, "symbol is sym");
	CHECK(agg_group_parse("comm,comm", k, AGG_GK_COUNT) == -EINVAL, "a key twice: refused");
	CHECK(agg_group_parse("comm,", k, AGG_GK_COUNT) == -EINVAL, "a trailing comma: refused");
	CHECK(agg_group_parse("", k, AGG_GK_COUNT) == -EINVAL, "nothing: refused");
	CHECK(agg_group_parse("dsos", k, AGG_GK_COUNT) == -EINVAL, "an unknown key: refused");
}

/* comm,dso: samples of two symbols of one DSO in one task are one row;
 * another DSO, another; the long way and the flat memo count alike. */
static void counts(void)
{
	int cpus[] = { 0, 1 };
	struct agg *a = agg_new(1, cpus, 2);
	enum agg_gkey k[] = { AGG_GK_COMM, AGG_GK_DSO };
	struct sym_result f = sym("f", "/bin/x", 1, "prog"), g = sym("g", "/bin/x", 2, "prog"),
			  m = sym("memcpy", "/lib/libc.so.6", 3, "prog"), o = sym("f", "/bin/x", 1, "other");
	struct agg_where w = { .pid = 10, .tid = 10, .ip = 0x1000, .tag = 7 };
	const struct agg_group *r;
	bool hit;

	CHECK(a && agg_group_keys(a, k, 2) == 0, "keys set");
	agg_sample(a, 0, 0, 10, 10, &f, 1);
	agg_sample(a, 0, 1, 10, 10, &g, 1);
	agg_sample(a, 0, 0, 10, 10, &m, 1);
	agg_sample(a, 0, 0, 20, 20, &o, 1);
	agg_sample_at(a, 0, 0, &w, &f, 1);     /* fills the flat memo */
	hit = agg_sample_memo(a, 0, 1, &w, 1); /* counted from it */
	agg_samples_memo(a, 0, 1, &w, 3, 3);   /* the session's tally: 3 at once */
	CHECK(hit && a->flat_hits == 2, "the flat memo counted two hits (%llu)", (unsigned long long)a->flat_hits);
	r = find(a, AGG_INTERVAL, "prog", "/bin/x");
	CHECK(r && r->iv.samples[0] == 7, "prog in /bin/x: f, g, and f by the long way and the memo: 7 (%llu)",
	      r ? (unsigned long long)r->iv.samples[0] : 0ULL);
	r = find(a, AGG_INTERVAL, "prog", "/lib/libc.so.6");
	CHECK(r && r->iv.samples[0] == 1, "prog in libc: its own row");
	r = find(a, AGG_INTERVAL, "other", "/bin/x");
	CHECK(r && r->iv.samples[0] == 1 && r->pid == -1 && r->sym == NULL, "another comm: another row, unkeyed fields empty");
	CHECK(rows_total(a, AGG_INTERVAL) == agg_event(a, 0)->samples_iv,
	      "the rows add up to the event's samples (%llu)", (unsigned long long)rows_total(a, AGG_INTERVAL));
	/* decay halves the interval, the total stays */
	agg_roll(a, 50);
	r = find(a, AGG_TOTAL, "prog", "/bin/x");
	CHECK(r && r->iv.samples[0] == 3 && r->total.samples[0] == 7, "a roll at 50%%: interval 3, total 7");
	agg_free(a);
}

/* Rows idle for AGG_EXPIRE_IDLE rolls go (keep_top 0) into the expired
 * sums: rows + expired = the totals; keys changed: counted from then. */
static void expiry(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	enum agg_gkey k[] = { AGG_GK_PID, AGG_GK_CPU };
	struct sym_result f = sym("f", "/bin/x", 1, "prog");
	struct agg_counts ex;
	uint64_t nex = 0;
	const struct agg_group **g;

	a->keep_top = 0;
	agg_group_keys(a, k, 2);
	for (int p = 1; p <= 5; p++)
		agg_sample(a, 0, 0, p, p, &f, 1);
	agg_roll(a, 0);
	for (int i = 0; i < AGG_EXPIRE_IDLE + 1; i++) {
		agg_sample(a, 0, 0, 1, 1, &f, 1); /* pid 1 stays busy */
		agg_roll(a, 0);
	}
	agg_group_expired(a, &ex, &nex);
	CHECK(nex == 4, "the four idle rows expired (%llu)", (unsigned long long)nex);
	CHECK(rows_total(a, AGG_TOTAL) + ex.samples[0] == agg_event(a, 0)->samples_total,
	      "rows + expired = the event's total (%llu + %llu)", (unsigned long long)rows_total(a, AGG_TOTAL),
	      (unsigned long long)ex.samples[0]);
	CHECK(agg_groups_in_scope(a, AGG_TOTAL, &g) == 1 && g[0]->pid == 1 && g[0]->cpu == 0, "pid 1 on CPU 0 stays");
	k[0] = AGG_GK_COMM;
	agg_group_keys(a, k, 1);
	CHECK(agg_groups_in_scope(a, AGG_TOTAL, &g) == 0, "new keys: no rows until samples come");
	agg_sample(a, 0, 0, 1, 1, &f, 1);
	CHECK(agg_groups_top(a, AGG_INTERVAL, 10, &g) == 1 && strcmp(g[0]->comm, "prog") == 0, "then rows by comm");
	agg_group_keys(a, NULL, 0);
	agg_sample(a, 0, 0, 1, 1, &f, 1);
	CHECK(agg_groups_in_scope(a, AGG_TOTAL, &g) == 0, "no keys: no group rows");
	agg_free(a);
}

/* Stacks (-g) count their leaf's group, through the stack memo too. */
static void stacks(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	enum agg_gkey k[] = { AGG_GK_SYM };
	struct sym_result fr[2] = { sym("leaf", "/bin/x", 1, "prog"), sym("main", "/bin/x", 2, "prog") };
	const struct agg_group **g;
	size_t n;

	agg_group_keys(a, k, 1);
	for (int i = 0; i < 5; i++)
		agg_sample_stack(a, 0, 0, 10, 10, fr, 2, 1);
	n = agg_groups_top(a, AGG_INTERVAL, 10, &g);
	CHECK(n == 1 && g[0]->sym && strcmp(g[0]->sym, "leaf") == 0 && g[0]->iv.samples[0] == 5,
	      "five stacks: the leaf's row has 5 (memo hits %llu)", (unsigned long long)a->memo_hits);
	agg_free(a);
}

static void label(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	enum agg_gkey k[] = { AGG_GK_COMM, AGG_GK_PID, AGG_GK_DSO, AGG_GK_SYM };
	struct sym_result f = sym("f", "/usr/lib/libx.so", 1, "prog");
	const struct agg_group **g;
	char buf[128];

	agg_group_keys(a, k, 4);
	agg_sample(a, 0, 0, 42, 42, &f, 1);
	agg_groups_top(a, AGG_INTERVAL, 1, &g);
	agg_group_label(a, g[0], 0, buf, sizeof(buf));
	CHECK_STR(buf, "prog  42  libx.so  f", "the label: every key, the DSO's file name");
	agg_group_label(a, g[0], 1u << AGG_GK_DSO, buf, sizeof(buf));
	CHECK_STR(buf, "prog  42  f", "the label without the DSO");
	agg_free(a);
}

static void kin(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	struct sym_result f = sym("f", "/bin/x", 1, "kid");
	pid_t miss[8];
	size_t n;

	agg_sample(a, 0, 0, 30, 30, &f, 1);
	CHECK(agg_ppid(a, 30) == -1, "no parent told: -1");
	n = agg_kin_missing(a, miss, 8);
	CHECK(n == 1 && miss[0] == 30, "the sampled task's parent is asked for");
	agg_kin_note(a, 30, 20, "kid");  /* from a FORK */
	n = agg_kin_missing(a, miss, 8);
	CHECK(n == 1 && miss[0] == 20, "then its parent's (a level a call)");
	agg_kin_note(a, 20, 1, "sh");
	agg_kin_note(a, 1, 0, "init");
	CHECK(agg_kin_missing(a, miss, 8) == 0, "up to a root: nothing more to ask");
	CHECK(agg_ppid(a, 30) == 20 && agg_ppid(a, 20) == 1 && agg_ppid(a, 1) == 0, "the chain as told");
	CHECK(agg_kin_of(a, 20) && strcmp(agg_kin_of(a, 20)->comm, "sh") == 0, "an ancestor's name kept");
	agg_kin_name(a, 20, "bash");
	CHECK(strcmp(agg_kin_of(a, 20)->comm, "bash") == 0, "renamed (exec)");
	agg_kin_note(a, 7, 7, NULL);
	CHECK(agg_ppid(a, 7) == 0, "its own parent: none");
	/* the sampled task's row idle and expired: its kin go a while later */
	a->keep_top = 0;
	for (int i = 0; i < 3 * AGG_EXPIRE_IDLE; i++) {
		agg_roll(a, 0);
		agg_kin_missing(a, miss, 8);
	}
	CHECK(agg_ppid(a, 30) == -1 && agg_ppid(a, 20) == -1, "no row reaches them: forgotten");
	agg_free(a);
}

/* srcline: the fake DWARF names /bin/x's addresses 0x1000..0x100f
 * "x.c:10", 0x1010.. "x.c:11", nothing else; it counts its calls. */
static unsigned named;

static bool fake_lines(void *ctx, const struct agg_srcline_q *q, char *out, size_t len)
{
	(void)ctx;
	named++;
	if (strcmp(q->dso, "/bin/x") != 0 || q->addr < 0x1000 || q->addr >= 0x1020)
		return false;
	snprintf(out, len, "x.c:%d", q->addr < 0x1010 ? 10 : 11);
	return true;
}

static const struct agg_group *line_row(struct agg *a, const char *line)
{
	const struct agg_group **g;
	size_t n = agg_groups_in_scope(a, AGG_INTERVAL, &g);

	for (size_t i = 0; i < n; i++)
		if (g[i]->srcline && strcmp(g[i]->srcline, line) == 0)
			return g[i];
	return NULL;
}

/* --sort srcline: addresses counted on the sample path without a name;
 * the read names each address once and sums the addresses of a line;
 * perf's "??:0" without a line, sym+OFF in the kernel. */
static void srclines(void)
{
	int cpus[] = { 0 };
	struct agg *a = agg_new(1, cpus, 1);
	enum agg_gkey k[] = { AGG_GK_SRCLINE };
	struct sym_result f = sym("f", "/bin/x", 1, "prog"), libc = sym("memcpy", "/lib/libc.so.6", 3, "prog"),
			  kern = sym("do_idle", "[kernel.kallsyms]", 4, "swapper");
	struct agg_where w = { .pid = 10, .tid = 10, .ip = 0x401004, .tag = 7 };
	const struct agg_group *r, **g;
	char buf[64];

	f.sym_start = 0x1000;
	kern.kernel = true;
	kern.sym_start = 0xffffffff81000000ull;
	agg_group_srcline_fn(a, fake_lines, NULL);
	CHECK(a && agg_group_keys(a, k, 1) == 0, "srcline is a key");
	for (uint64_t off = 0; off < 0x20; off += 4) { /* 4 addresses of line 10, 4 of 11 */
		f.sym_off = off;
		agg_sample(a, 0, 0, 10, 10, &f, 1);
	}
	f.sym_off = 4;
	agg_sample_at(a, 0, 0, &w, &f, 1);   /* 0x1004 again, through the flat memo */
	agg_samples_memo(a, 0, 0, &w, 2, 2);
	libc.sym_off = 8;
	agg_sample(a, 0, 0, 10, 10, &libc, 1);
	kern.sym_off = 21;
	agg_sample(a, 0, 0, 0, 0, &kern, 1);
	CHECK(named == 0, "nothing named on the sample path (%u)", named);
	r = line_row(a, "x.c:10");
	CHECK(r && r->iv.samples[0] == 7, "x.c:10: its four addresses and the memo's three: 7 (%llu)",
	      r ? (unsigned long long)r->iv.samples[0] : 0ULL);
	CHECK(r && strcmp(agg_group_value(r, AGG_GK_SRCLINE, false, buf, sizeof(buf)), "x.c:10") == 0,
	      "its value is the line");
	r = line_row(a, "x.c:11");
	CHECK(r && r->iv.samples[0] == 4, "x.c:11: 4");
	r = line_row(a, "??:0");
	CHECK(r && r->iv.samples[0] == 1 && r->dso == NULL && r->sym == NULL, "libc without a line: ??:0, unkeyed fields empty");
	r = line_row(a, "do_idle+21");
	CHECK(r && r->iv.samples[0] == 1, "the kernel: sym+OFF as perf shows it");
	CHECK(named == 9, "each user address named once, however many reads (%u)", named);
	CHECK(rows_total(a, AGG_INTERVAL) == agg_event(a, 0)->samples_iv, "the lines add up to the samples");
	CHECK(agg_groups_top(a, AGG_INTERVAL, 1, &g) == 1 && strcmp(g[0]->srcline, "x.c:10") == 0, "the top line first");
	agg_roll(a, 0);
	f.sym_off = 0x10;
	agg_sample(a, 0, 0, 10, 10, &f, 1);
	r = line_row(a, "x.c:11");
	CHECK(r && r->iv.samples[0] == 1 && r->total.samples[0] == 5 && named == 9,
	      "after a roll: interval 1, total 5, no address named again");
	{ /* idle addresses expire: their lines go with the last, rows + expired = totals */
		struct agg_counts ex;
		uint64_t nex = 0;

		a->keep_top = 0;
		kern.sym_off = 22;
		for (int i = 0; i < AGG_EXPIRE_IDLE + 2; i++) {
			agg_sample(a, 0, 0, 0, 0, &kern, 1);
			agg_roll(a, 0);
			line_row(a, "x.c:10"); /* a read each interval, as the live view's */
		}
		agg_group_expired(a, &ex, &nex);
		CHECK(agg_groups_in_scope(a, AGG_TOTAL, &g) == 1 && strcmp(g[0]->srcline, "do_idle+22") == 0 && nex == 10,
		      "the idle lines' addresses expired, the busy one stays (%llu expired)", (unsigned long long)nex);
		CHECK(rows_total(a, AGG_TOTAL) + ex.samples[0] == agg_event(a, 0)->samples_total,
		      "rows + expired = the event's total");
		agg_roll(a, 0);
	}
	k[0] = AGG_GK_COMM;
	{
		enum agg_gkey k2[] = { AGG_GK_COMM, AGG_GK_SRCLINE };

		agg_group_keys(a, k2, 2);
	}
	f.sym_off = 0;
	agg_sample(a, 0, 0, 10, 10, &f, 1);
	f.comm = "other";
	agg_sample(a, 0, 0, 20, 20, &f, 1);
	CHECK(agg_groups_in_scope(a, AGG_INTERVAL, &g) == 2, "comm,srcline: one line in two comms is two rows");
	agg_free(a);
}

int main(void)
{
	parse();
	counts();
	expiry();
	stacks();
	label();
	kin();
	srclines();
	return check_done();
}
