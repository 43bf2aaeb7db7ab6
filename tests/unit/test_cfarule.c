/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The leaf fix's rule cache: hits, misses, negative entries, a new DSO id
 * (a new mapping's file, an exec'd or replaced binary) never meeting an
 * old rule; the rule read from our own CFI; and its use on a sample. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cfarule.h"
#include "check.h"
#include "elfsym.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>

__attribute__((noinline)) int cfarule_probe(int x);
__attribute__((noinline)) int cfarule_probe(int x)
{
	return x * 3 + 1;
}

/* Where addr is in the file that maps it, from /proc/self/maps. */
static bool self_offset(uint64_t addr, char *path, size_t len, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		int pos = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &start, &end, &pgoff, &pos) < 3 ||
		    addr < start || addr >= end || pos == 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, len, "%s", line + pos);
		*off = addr - start + pgoff;
		found = true;
	}
	fclose(f);
	return found;
}
#endif

int main(void)
{
	struct cfarule_cache *c = cfarule_new(8);
	struct cfarule r, sp8 = { CFARULE_SP, 8 }, none = { CFARULE_NONE, 0 };
	struct cfarule_stats st;

	CHECK(c != NULL, "made");
	if (c == NULL)
		return check_done();
	CHECK(!cfarule_get(c, 1, 0x1234, &r), "an empty cache misses");
	cfarule_put(c, 1, 0x1234, sp8);
	CHECK(cfarule_get(c, 1, 0x1234, &r) && r.kind == CFARULE_SP && r.ra_off == 8, "a put rule is found");
	CHECK(!cfarule_get(c, 2, 0x1234, &r), "another DSO (a replaced or newly mapped file) misses");
	CHECK(!cfarule_get(c, 1, 0x1235, &r), "another offset misses");
	cfarule_put(c, 3, 0x40, none);
	CHECK(cfarule_get(c, 3, 0x40, &r) && r.kind == CFARULE_NONE, "a negative answer is cached");
	cfarule_put(c, 0, 0x40, sp8);
	CHECK(!cfarule_get(c, 0, 0x40, &r), "no DSO, no rule");
	/* A colliding entry replaces the old one: the table stays bounded. */
	for (uint64_t off = 0; off < 4096; off++)
		cfarule_put(c, 7, off, sp8);
	CHECK(cfarule_get(c, 7, 4095, &r) && r.kind == CFARULE_SP, "the last put is kept");
	cfarule_get_stats(c, &st);
	CHECK(st.hits == 3 && st.negative == 1, "stats: %" PRIu64 " hits, %" PRIu64 " negative", st.hits,
	      st.negative);
	CHECK(st.slots == 256, "a table of 2^8 at most stays at 2^8 (%" PRIu64 ")", st.slots);
	cfarule_free(c);

	/* The table grows as it fills rather than taking its largest size
	 * (and its pages, each touched by some hash) from the start; rules
	 * put before a growth are still there after it. */
	c = cfarule_new(16);
	CHECK(c != NULL, "made (2^16 at most)");
	if (c == NULL)
		return check_done();
	cfarule_get_stats(c, &st);
	CHECK(st.slots == 1024, "starts at 1024 slots, not 65536 (%" PRIu64 ")", st.slots);
	{
		size_t found = 0;

		for (uint64_t off = 0; off < 600; off++)
			cfarule_put(c, 5 + (uint32_t)(off % 3), 0x1000 + off * 17, (struct cfarule){ CFARULE_SP, (int32_t)off });
		for (uint64_t off = 0; off < 600; off++)
			found += cfarule_get(c, 5 + (uint32_t)(off % 3), 0x1000 + off * 17, &r) && r.kind == CFARULE_SP &&
				 r.ra_off == (int32_t)off;
		cfarule_get_stats(c, &st);
		CHECK(st.slots == 2048, "600 rules: 2048 slots (%" PRIu64 ")", st.slots);
		CHECK(found >= 540, "600 rules put across a growth: %zu found again", found);
		for (uint64_t off = 0; off < 200000; off++)
			cfarule_put(c, 9, off, none);
		cfarule_get_stats(c, &st);
		CHECK(st.slots == 65536, "bounded at 2^16 slots (%" PRIu64 ")", st.slots);
		CHECK(cfarule_get(c, 9, 199999, &r) && r.kind == CFARULE_NONE, "the last put is kept");
	}
	cfarule_free(c);
	c = cfarule_new(8);
	if (c == NULL)
		return check_done();

#if defined(__x86_64__)
	{
		char path[4096];
		uint64_t off = 0, regs[PERF_REG_X86_64_MAX], mask = 0, stackw[4] = { 11, 0xfeed, 33, 44 };
		struct record rec;
		size_t n = 0;

		CHECK(cfarule_derive("/nonexistent/cfarule", 0, &r) && r.kind == CFARULE_NONE,
		      "an unreadable file: a negative answer");
		CHECK(cfarule_probe(2) == 7, "probe");
		CHECK(self_offset((uint64_t)(uintptr_t)cfarule_probe, path, sizeof(path), &off), "own mapping");
		/* At a function's first instruction the CFA is rsp + 8, and the
		 * return address sits at the stack pointer. */
		CHECK(cfarule_derive(path, off, &r) && r.kind == CFARULE_SP && r.ra_off == 0,
		      "entry of cfarule_probe: RA at [SP] (kind %u off %d)", r.kind, r.ra_off);

		/* Through the cache's handles: the same rules, one open per DSO
		 * (ids 100.. all name our file), the least recently used
		 * handle replaced past CFARULE_HANDLES, an unreadable file
		 * not kept. */
		{
			struct cfarule_stats s0, s1;
			bool same = true;

			cfarule_get_stats(c, &s0);
			for (uint64_t d = 0; d < 64; d++) {
				struct cfarule a, b;

				CHECK(cfarule_derive_dso(c, 100, path, off + d, &a), "derived through a handle");
				cfarule_derive(path, off + d, &b);
				same = same && a.kind == b.kind && (a.kind != CFARULE_SP || a.ra_off == b.ra_off);
			}
			cfarule_get_stats(c, &s1);
			CHECK(same, "a kept handle gives the rules a fresh open gives");
			CHECK(s1.opens - s0.opens == 1, "64 offsets of one DSO: %" PRIu64 " opens, 1 expected",
			      s1.opens - s0.opens);
			for (uint32_t id = 101; id < 101 + CFARULE_HANDLES; id++)
				cfarule_derive_dso(c, id, path, off, &r);
			cfarule_derive_dso(c, 101, path, off, &r); /* still kept */
			cfarule_get_stats(c, &s0);
			CHECK(s0.opens - s1.opens == CFARULE_HANDLES, "one open per new DSO: %" PRIu64,
			      s0.opens - s1.opens);
			cfarule_derive_dso(c, 100, path, off, &r); /* the oldest: replaced */
			cfarule_get_stats(c, &s1);
			CHECK(s1.opens - s0.opens == 1, "the least recently used handle went");
			cfarule_derive_dso(c, 900, "/nonexistent/cfarule", 0, &r);
			CHECK(r.kind == CFARULE_NONE, "an unreadable DSO: a negative answer");
			cfarule_derive_dso(c, 900, "/nonexistent/cfarule", 8, &r);
			cfarule_derive_dso(c, 101, path, off, &r);
			cfarule_get_stats(c, &s0);
			CHECK(s0.opens - s1.opens == 2 && r.kind == CFARULE_SP,
			      "an unreadable DSO is tried again and replaces no handle");

			/* Idle handles close: one used in any of the last
			 * CFARULE_IDLE_KEEP intervals stays, one used in none
			 * goes. 102 is used an interval after 101. */
			cfarule_close_idle(c);
			cfarule_derive_dso(c, 101, path, off + 1, &r);
			cfarule_close_idle(c);
			cfarule_derive_dso(c, 102, path, off + 1, &r);
			for (int i = 0; i < CFARULE_IDLE_KEEP - 1; i++)
				cfarule_close_idle(c);
			cfarule_get_stats(c, &s1);
			cfarule_derive_dso(c, 101, path, off + 2, &r);
			cfarule_get_stats(c, &s0);
			CHECK(s0.opens == s1.opens && r.kind == CFARULE_SP,
			      "a handle left unused for %d intervals kept", CFARULE_IDLE_KEEP - 1);
			for (int i = 0; i < CFARULE_IDLE_KEEP; i++)
				cfarule_close_idle(c);
			cfarule_derive_dso(c, 102, path, off + 2, &r);
			cfarule_get_stats(c, &s1);
			CHECK(s1.opens - s0.opens == 1 && r.kind == CFARULE_SP,
			      "a handle unused for %d intervals closed, opened again when needed", CFARULE_IDLE_KEEP);
		}

		/* The vDSO: no file, our own image's CFI through a kept handle.
		 * At a function's first instruction the return address is at
		 * [SP]. */
		{
			struct elfsym *v = NULL;
			const struct elfsym_sym *fn = NULL;
			struct cfarule_stats s0, s1;

			if (elfsym_load_vdso(&v) == 0 && v != NULL)
				for (size_t i = 0; i < v->nsyms && fn == NULL; i++)
					if (strstr(elfsym_name(v, &v->syms[i]), "clock_gettime") && v->syms[i].size > 1)
						fn = &v->syms[i];
			if (fn == NULL || v->nloads == 0) {
				printf("# no vDSO clock_gettime here: skipped\n");
			} else {
				uint64_t voff = fn->addr - v->loads[0].vaddr + v->loads[0].offset;

				cfarule_get_stats(c, &s0);
				CHECK(cfarule_derive_dso(c, 500, CFARULE_VDSO, voff, &r) && r.kind == CFARULE_SP &&
				      r.ra_off == 0, "vDSO %s entry: RA at [SP] (kind %u off %d)",
				      elfsym_name(v, fn), r.kind, r.ra_off);
				cfarule_derive_dso(c, 500, CFARULE_VDSO, voff + 1, &r);
				cfarule_get_stats(c, &s1);
				CHECK(s1.opens - s0.opens == 1, "the vDSO's image taken once (%" PRIu64 ")",
				      s1.opens - s0.opens);
			}
			elfsym_free(v);
		}

		/* A sample at leaf 0x5000 with SP and IP among its registers. */
		mask = 1ull << PERF_REG_X86_SP | 1ull << PERF_REG_X86_IP;
		regs[n++] = 0x7ff0; /* SP */
		regs[n++] = 0x5000; /* IP */
		memset(&rec, 0, sizeof(rec));
		rec.sample.nregs = n;
		rec.sample.regs = (const unsigned char *)regs;
		rec.sample.stack = (const unsigned char *)stackw;
		rec.sample.stack_size = rec.sample.stack_dyn_size = sizeof(stackw);
		CHECK(cfarule_apply(sp8, &rec, mask, 0x5000) == 0xfeed, "RA read at SP + 8");
		CHECK(cfarule_apply(sp8, &rec, mask, 0x5001) == 0, "a leaf not at the registers' IP: none");
		CHECK(cfarule_apply(none, &rec, mask, 0x5000) == 0, "a negative rule: none");
		CHECK(cfarule_apply((struct cfarule){ CFARULE_SP, 32 }, &rec, mask, 0x5000) == 0,
		      "past the stack copy: none");
		rec.sample.stack_dyn_size = 8;
		CHECK(cfarule_apply(sp8, &rec, mask, 0x5000) == 0, "past the valid bytes (dyn_size): none");
	}
#endif
	cfarule_free(c);
	return check_done();
}
