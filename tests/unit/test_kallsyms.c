#include <errno.h>

#include "check.h"
#include "kallsyms.h"

static const char *name_at(struct kallsyms *k, uint64_t addr)
{
	const struct ksym *s = kallsyms_find(k, addr);

	return s ? kallsyms_str(k, s->name) : "(none)";
}

int main(int argc, char **argv)
{
	char path[512];
	struct kallsyms k;
	const struct ksym *s;

	if (argc < 2)
		return 2;
	snprintf(path, sizeof(path), "%s/kallsyms.txt", argv[1]);
	CHECK(kallsyms_load_path(&k, path) == 0 && !k.restricted, "fixture loads");
	CHECK(k.n == 8, "text symbols kept, data and garbage skipped (%zu)", k.n);
	CHECK_STR(name_at(&k, 0xffffffff81000000), "_stext", "exact start");
	CHECK_STR(name_at(&k, 0xffffffff810007ff), "_stext", "just before the next symbol");
	CHECK_STR(name_at(&k, 0xffffffff81000800), "startup_helper", "unsorted input sorted");
	CHECK(strncmp(name_at(&k, 0xffffffff81001234), "do_one_thing", 12) == 0, "inside do_one_thing (or its alias)");
	CHECK_STR(name_at(&k, 0xffffffff81002010), "weak_thing", "weak symbols are text");
	CHECK_STR(name_at(&k, 0xffffffff81003050), "weak_thing", "data symbols do not split text");
	CHECK_STR(name_at(&k, 0xffffffff80ffffff), "(none)", "below the first symbol");
	s = kallsyms_find(&k, 0xffffffffc0001010);
	CHECK(s && strcmp(kallsyms_str(&k, s->name), "mod_func") == 0 && strcmp(kallsyms_str(&k, s->module), "[mymod]") == 0,
	      "module symbol and its [module]");
	CHECK_STR(name_at(&k, 0xffffffffc0001100 + 100), "mod_other", "last symbol covers a little");
	CHECK_STR(name_at(&k, 0xffffffffc0001100 + 100000), "(none)", "far past the last symbol: not found");
	CHECK_STR(name_at(&k, 0xffffffff81003100 + 0x100000), "(none)",
	          "a gap of over 1 MiB to the next symbol is not blamed on this one");
	kallsyms_free(&k);

	snprintf(path, sizeof(path), "%s/kallsyms-restricted.txt", argv[1]);
	CHECK(kallsyms_load_path(&k, path) == 0 && k.restricted && k.n == 0, "all-zero addresses: restricted");
	kallsyms_free(&k);
	CHECK(kallsyms_load_path(&k, "/nonexistent/kallsyms") == -ENOENT, "missing file: -ENOENT");
	CHECK(kallsyms_load_buf(&k, "ffffffff81000000 T x", 20) == 0 && k.n == 1, "buffer without newline");
	kallsyms_free(&k);
	CHECK(kallsyms_load_buf(&k, "ffffffffffffffffff T toolong\n", 29) == 0 && k.n == 0, "over-long address skipped");
	kallsyms_free(&k);
	return check_done();
}
