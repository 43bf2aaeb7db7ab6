/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kallsyms parsing and lookup. usage: test_kallsyms FIXTURES_DIR */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "kallsyms.h"

static const char *name_at(const struct kallsyms *ks, uint64_t addr)
{
	const struct kallsyms_sym *s = kallsyms_find(ks, addr);

	return s ? kallsyms_name(ks, s) : "(none)";
}

static const char *module_at(const struct kallsyms *ks, uint64_t addr)
{
	const struct kallsyms_sym *s = kallsyms_find(ks, addr);
	const char *m = s ? kallsyms_module(ks, s) : "(none)";

	return m ? m : "(core)";
}

static void test_fixture(const char *dir)
{
	char path[4096];
	struct kallsyms *ks;
	int rc;

	snprintf(path, sizeof(path), "%s/kallsyms.txt", dir);
	rc = kallsyms_load(&ks, path);
	CHECK(rc == 0 && ks && !ks->restricted, "fixture loads (rc %d)", rc);
	if (ks == NULL)
		return;
	CHECK(ks->nsyms == 11, "text symbols kept; data, padding, aliases and garbage not (%zu)", ks->nsyms);
	CHECK(ks->lines == 15 && ks->skipped == 6, "15 good lines, 6 garbage (%zu, %zu)", ks->lines, ks->skipped);
	for (size_t i = 1; i < ks->nsyms; i++)
		if (ks->syms[i - 1].addr >= ks->syms[i].addr) {
			CHECK(0, "sorted, unique addresses at %zu", i);
			break;
		}
	CHECK_STR(name_at(ks, 0xffffffff81000000), "_stext", "exact start");
	CHECK_STR(name_at(ks, 0xffffffff810007ff), "_stext", "last byte before the next symbol");
	CHECK_STR(name_at(ks, 0xffffffff81000800), "startup_helper", "unsorted input sorted");
	CHECK_STR(name_at(ks, 0xffffffff81000ff4), "startup_helper", "__pfx_ padding belongs to the symbol before");
	CHECK_STR(name_at(ks, 0xffffffff81001234), "do_one_thing", "global name wins over a local alias");
	CHECK_STR(name_at(ks, 0xffffffff81002010), "weak_thing", "weak symbols are text");
	CHECK_STR(name_at(ks, 0xffffffff81003050), "weak_thing", "data symbols do not split text");
	CHECK_STR(name_at(ks, 0xffffffff81004000), "late_core_symbol", "a line out of order lands in place");
	CHECK_STR(name_at(ks, 0xffffffff80ffffff), "(none)", "below the first symbol");
	CHECK_STR(name_at(ks, 0xffffffff81005000 + KALLSYMS_TAIL_SPAN - 1), "last_core",
		  "a symbol before a big hole covers a little");
	CHECK_STR(name_at(ks, 0xffffffff81005000 + KALLSYMS_TAIL_SPAN), "(none)",
		  "but the hole is not blamed on it");
	CHECK_STR(name_at(ks, 0xffffffffc0001010), "mod_func", "module symbol");
	CHECK_STR(module_at(ks, 0xffffffffc0001010), "[mymod]", "its module");
	CHECK_STR(module_at(ks, 0xffffffff81001000), "(core)", "core symbols have no module");
	CHECK_STR(name_at(ks, 0xffffffffc0001eff), "mod_other", "module symbol up to the next one");
	CHECK_STR(module_at(ks, 0xffffffffc0002000), "[othermod]", "another module");
	CHECK_STR(module_at(ks, 0xffffffffc0003000), "[mymod]", "a module seen again is the same one");
	CHECK(ks->nmodules == 3, "modules interned once (%zu)", ks->nmodules);
	CHECK_STR(name_at(ks, 0xffffffffc0003000 + 100), "back_in_first", "the last symbol covers a little");
	CHECK_STR(name_at(ks, 0xffffffffc0003000 + KALLSYMS_TAIL_SPAN), "(none)", "far past the last: not found");
	CHECK_STR(name_at(ks, UINT64_MAX), "(none)", "top of the address space");
	CHECK(kallsyms_bytes(ks) > ks->nsyms * sizeof(*ks->syms), "bytes counted");
	kallsyms_free(ks);

	snprintf(path, sizeof(path), "%s/kallsyms-restricted.txt", dir);
	rc = kallsyms_load(&ks, path);
	CHECK(rc == 0 && ks && ks->restricted && ks->nsyms == 0, "all-zero addresses: restricted, no symbols");
	if (ks)
		CHECK_STR(name_at(ks, 0), "(none)", "nothing resolves when restricted");
	kallsyms_free(ks);
}

static int write_tmp(char *path, size_t len, const char *text)
{
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/test_kallsyms.XXXXXX");
	if ((fd = mkstemp(path)) < 0 || (f = fdopen(fd, "w")) == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A reload keeps what is new since base, nothing more: not base's symbols,
 * nor their aliases; a changed name or module at an address is news. */
static void test_since(void)
{
	static const char before[] = "ffffffff81000000 T _stext\n"
				     "ffffffff81001000 T do_thing\n"
				     "ffffffff81002000 t renamed_old\n"
				     "ffffffffc0001000 t mod_func\t[mymod]\n";
	static const char after[] = "ffffffff81000000 T _stext\n"
				    "ffffffff81001000 t __do_thing_alias\n"
				    "ffffffff81001000 T do_thing\n"
				    "ffffffff81002000 t renamed_new\n"
				    "ffffffffc0001000 t mod_func\t[othermod]\n"
				    "ffffffffa0000000 t bpf_prog_1234_handler\t[bpf]\n"
				    "ffffffffa0001000 d some_data\n";
	char pb[64], pa[64];
	struct kallsyms *base = NULL, *news = NULL;
	int rc;

	if (write_tmp(pb, sizeof(pb), before) || write_tmp(pa, sizeof(pa), after)) {
		CHECK(0, "temporary files");
		return;
	}
	rc = kallsyms_load(&base, pb);
	CHECK(rc == 0 && base && base->nsyms == 4, "base loads (rc %d)", rc);
	rc = base ? kallsyms_load_since(&news, pa, base) : -1;
	CHECK(rc == 0 && news && news->nsyms == 3, "three news: renamed, moved module, bpf (%zu)",
	      news ? news->nsyms : 0);
	if (news) {
		CHECK_STR(name_at(news, 0xffffffff81002000), "renamed_new", "a new name at a known address");
		CHECK_STR(module_at(news, 0xffffffffc0001000), "[othermod]", "a new module at a known address");
		CHECK_STR(name_at(news, 0xffffffffa0000000), "bpf_prog_1234_handler", "a JITed program");
		CHECK_STR(name_at(news, 0xffffffff81001000), "(none)", "an alias of a known symbol is not news");
		CHECK_STR(name_at(news, 0xffffffff81000000), "(none)", "a known symbol is not news");
	}
	kallsyms_free(news);
	news = NULL;
	rc = base ? kallsyms_load_since(&news, pb, base) : -1;
	CHECK(rc == 0 && news && news->nsyms == 0, "the same text: nothing new");
	kallsyms_free(news);
	kallsyms_free(base);
	unlink(pb);
	unlink(pa);
}

static void test_buffers(void)
{
	static const char many_mods[] = "ffffffffc0000000 t a\t[m1]\nffffffffc0000010 t b\t[m2]\n"
					"ffffffffc0000020 t c\t[m1]\nffffffffc0000030 t d [m2]\n";
	struct kallsyms *ks;
	int rc;

	CHECK(kallsyms_load(&ks, "/nonexistent/kallsyms") == -ENOENT && ks == NULL, "missing file: -ENOENT");
	rc = kallsyms_load_buf(&ks, "ffffffff81000000 T x", 20);
	CHECK(rc == 0 && ks->nsyms == 1, "last line without newline");
	kallsyms_free(ks);
	rc = kallsyms_load_buf(&ks, "", 0);
	CHECK(rc == 0 && ks->nsyms == 0 && !ks->restricted, "empty text: no symbols, not restricted");
	CHECK_STR(name_at(ks, 0x1000), "(none)", "empty table finds nothing");
	kallsyms_free(ks);
	rc = kallsyms_load_buf(&ks, "ffffffff81000000 T x\r\nffffffff81000010 T y\r\n", 44);
	CHECK(rc == 0 && ks->nsyms == 2, "CRLF tolerated");
	kallsyms_free(ks);
	rc = kallsyms_load_buf(&ks, many_mods, sizeof(many_mods) - 1);
	CHECK(rc == 0 && ks->nsyms == 4 && ks->nmodules == 3, "modules by tab or space, interned");
	CHECK_STR(module_at(ks, 0xffffffffc0000025), "[m1]", "module of c");
	CHECK_STR(module_at(ks, 0xffffffffc0000035), "[m2]", "module of d");
	kallsyms_free(ks);
	rc = kallsyms_load_buf(&ks, "ffffffff81000000 T x\0yz\nffffffff81000010 T y\n", 45);
	CHECK(rc == 0 && ks->nsyms == 1, "a NUL inside a line makes it garbage, not a crash");
	kallsyms_free(ks);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	return check_rng(&rng_state);
}

/* Lookups against a linear scan over a shuffled random table. */
static void test_random(void)
{
	enum { N = 5000, Q = 20000 };
	static uint64_t addrs[N];
	size_t len = 0, bad = 0;
	char *text = malloc((size_t)N * 40);
	struct kallsyms *ks = NULL;

	if (text == NULL) {
		CHECK_SKIP("out of memory");
		return;
	}
	for (size_t i = 0; i < N; i++) {
		/* Unique: the index in the low 16 bits. */
		addrs[i] = 0xffffffff81000000ull + (rng() % 0x4000) * 0x10000 + i * 8;
		len += (size_t)sprintf(text + len, "%016" PRIx64 " t f%zu\n", addrs[i], i);
	}
	CHECK(kallsyms_load_buf(&ks, text, len) == 0 && ks->nsyms == N, "random table loads");
	/* Without the index, then with it (a mapped cache's lookups). */
	for (int pass = 0; pass < 2 && ks; pass++) {
		if (pass == 1) {
			CHECK(kallsyms_index(ks) == 0 && ks->nindex == (N + KALLSYMS_INDEX_STRIDE - 1) / KALLSYMS_INDEX_STRIDE,
			      "index built (%zu entries)", ks->nindex);
			/* Each stride's first symbol and the address before it. */
			for (size_t k = 1; k < ks->nindex; k++) {
				const struct kallsyms_sym *at = &ks->syms[k * KALLSYMS_INDEX_STRIDE];

				bad += kallsyms_find(ks, at->addr) != at;
				bad += kallsyms_find(ks, at->addr - 1) != at - 1 && at->addr - (at - 1)->addr <= KALLSYMS_MAX_SPAN;
			}
			CHECK(bad == 0, "lookups at the index's stride boundaries (%zu wrong)", bad);
		}
		for (size_t q = 0; q < Q; q++) {
			uint64_t a = 0xffffffff81000000ull - 0x1000 + rng() % 0x40200000;
			uint64_t best = 0, next = UINT64_MAX;
			const struct kallsyms_sym *s = kallsyms_find(ks, a);
			const struct kallsyms_sym *want = NULL;
			uint64_t span;

			for (size_t i = 0; i < N; i++) {
				if (addrs[i] <= a && addrs[i] >= best)
					best = addrs[i];
				if (addrs[i] > a && addrs[i] < next)
					next = addrs[i];
			}
			for (size_t i = 0; i < ks->nsyms && best; i++)
				if (ks->syms[i].addr == best)
					want = &ks->syms[i];
			span = want && next != UINT64_MAX && next - best <= KALLSYMS_MAX_SPAN ? next - best
											: KALLSYMS_TAIL_SPAN;
			if (want && a - best >= span)
				want = NULL;
			bad += s != want;
		}
		CHECK(bad == 0, "%d random lookups agree with a linear scan, index %s (%zu differ)", Q,
		      pass ? "built" : "absent", bad);
	}
	kallsyms_free(ks);
	free(text);
}

/* Random bytes and mangled lines: only "no crash" and sane counts. */
static void test_garbage(void)
{
	static const char alphabet[] = "0123456789abcdefTtWwDd [\t]\n_x";
	char buf[4096];
	size_t kept = 0;
	bool ok = true;

	for (int round = 0; round < 300; round++) {
		size_t len = rng() % sizeof(buf);
		struct kallsyms *ks;

		for (size_t i = 0; i < len; i++)
			buf[i] = round & 1 ? (char)rng() : alphabet[rng() % (sizeof(alphabet) - 1)];
		if (kallsyms_load_buf(&ks, buf, len) != 0) {
			ok = false;
			continue;
		}
		kept += ks->nsyms;
		for (size_t i = 0; i < 16; i++)
			(void)kallsyms_find(ks, rng());
		kallsyms_free(ks);
	}
	CHECK(ok, "300 garbage buffers parse without error or crash (%zu symbols kept)", kept);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	test_fixture(argv[1]);
	test_buffers();
	test_since();
	test_random();
	test_garbage();
	return check_done();
}
