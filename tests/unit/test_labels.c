/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Code named only by labels without a type (STT_NOTYPE in a section of
 * code) is named, as perf names it: the fixture library's labels, and the
 * real ld.so's _start and _dl_start_user (in its debug file here), which
 * showed as [unknown].
 *
 * usage: test_labels LIB STRIPPED_LIB */
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <sys/mman.h>

#include "check.h"
#include "elfsym.h"
#include "symbols.h"
#include "symtest.h"

/* pids above pid_max: never in /proc, so only records speak of them. */
#define FAKE_PID 0x7ffff100

/* The value of symbol name in path's .symtab (else .dynsym), read here
 * with libelf, apart from what elfsym does with it. */
static bool symtab_value(const char *path, const char *name, uint64_t *value)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = fd >= 0 && elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	bool found = false;

	for (int pass = 0; e && pass < 2 && !found; pass++) {
		Elf_Scn *scn = NULL;

		while (!found && (scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) ||
			    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
				continue;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *n;

				if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
				    strcmp(n, name) == 0 && sym.st_value) {
					*value = sym.st_value;
					found = true;
					break;
				}
			}
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return found;
}

static const char *name_at(const struct elfsym *t, uint64_t vaddr)
{
	const struct elfsym_sym *s = t ? elfsym_find(t, vaddr) : NULL;

	return s ? elfsym_name(t, s) : "(none)";
}

static void test_fixture(const char *lib, const char *stripped)
{
	uint64_t global, local, typed, inner, data;
	struct elfsym *t = NULL, *st = NULL;

	if (!symtab_value(lib, "fixture_label_global", &global) || !symtab_value(lib, "fixture_label_local", &local) ||
	    !symtab_value(lib, "fixture_label_typed", &typed) || !symtab_value(lib, "fixture_label_inner", &inner) ||
	    !symtab_value(lib, "fixture_label_data", &data) || elfsym_load(&t, lib) != 0 ||
	    elfsym_load(&st, stripped) != 0) {
		CHECK(0, "cannot read the fixture %s and %s", lib, stripped);
		goto out;
	}
	CHECK_STR(name_at(t, global), "fixture_label_global", "a global label in .text");
	CHECK_STR(name_at(t, global + 2), "fixture_label_global", "and the code after it, up to the next symbol");
	CHECK_STR(name_at(t, local), "fixture_label_local", "a local label in .text (.symtab only)");
	CHECK_STR(name_at(t, local + 4), "fixture_label_local", "and the code after it");
	CHECK_STR(name_at(t, inner), "fixture_label_typed", "a label inside a function of known size is the function's");
	CHECK_STR(name_at(t, typed), "fixture_label_typed", "the function itself");
	CHECK(sym_named(t, "fixture_label_data") == NULL, "a label in data is no code");
	CHECK(sym_named(t, "fixture_labels_function") != NULL, "functions as before");
	CHECK_STR(name_at(st, global), "fixture_label_global", "stripped: the global label from .dynsym");
	CHECK_STR(name_at(st, inner), "fixture_label_typed", "stripped: the function keeps its inner label's code");
out:
	elfsym_free(t);
	elfsym_free(st);
}

/* This program's interpreter: the ld.so of this machine. */
static bool interp_path(char *buf, size_t len)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	Elf *e = fd >= 0 && elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t n = 0;
	bool ok = false;

	for (size_t i = 0; e && elf_getphdrnum(e, &n) == 0 && i < n; i++) {
		GElf_Phdr ph;
		ssize_t r;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP && ph.p_filesz < len &&
		    (r = pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset)) == (ssize_t)ph.p_filesz) {
			buf[ph.p_filesz] = '\0';
			ok = buf[0] == '/';
			break;
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* ld.so's entry: _start and _dl_start_user are labels of its assembly.
 * Resolved as perftop resolves a sample (a mapping record, the table read
 * on the first sample, the debug file found by build-id). */
static void test_ldso(void)
{
	const char *names[] = { "_start", "_dl_start_user" };
	struct symbols_opts o = { "/proc", "/proc/kallsyms" };
	const uint64_t base = 0x20000000, len = 0x1000000;
	char ldso[PATH_MAX], truth[PATH_MAX], hex[2 * ELFSYM_BUILD_ID_MAX + 1];
	struct symbols *s = NULL;
	struct elfsym *t = NULL;
	uint64_t vaddr, off;

	if (!interp_path(ldso, sizeof(ldso)) || elfsym_load(&t, ldso) != 0) {
		CHECK(0, "cannot read this program's ld.so");
		goto out;
	}
	snprintf(truth, sizeof(truth), "%s", ldso);
	if (!symtab_value(truth, "_dl_start_user", &vaddr) && t->build_id_len) {
		for (size_t i = 0; i < t->build_id_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", t->build_id[i]);
		snprintf(truth, sizeof(truth), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	}
	if (!symtab_value(truth, "_dl_start_user", &vaddr)) {
		CHECK_SKIP("ld.so has no symbol table here (no .symtab, no debug file)");
		goto out;
	}
	if ((s = symbols_new(&o)) == NULL || symbols_set_debug_root(s, "/usr/lib/debug") != 0) {
		CHECK(0, "cannot make a symbols object");
		goto out;
	}
	map_ino(s, FAKE_PID, base, len, 0, 0, 0, 0, 0, PROT_READ | PROT_EXEC, ldso);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct sym_result r;

		if (!symtab_value(truth, names[i], &vaddr) || !vaddr_to_offset(t, vaddr, &off)) {
			CHECK(0, "%s: %s not found in %s", ldso, names[i], truth);
			continue;
		}
		symbols_resolve(s, FAKE_PID, base + off, false, &r);
		CHECK(r.sym && strcmp(r.sym, names[i]) == 0, "%s+0x%" PRIx64 " (%s, from %s) is %s", ldso, vaddr,
		      names[i], truth, r.sym ? r.sym : "(null)");
	}
out:
	symbols_free(s);
	elfsym_free(t);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s LIB STRIPPED_LIB\n", argv[0]);
		return 2;
	}
	test_fixture(argv[1], argv[2]);
	test_ldso();
	return check_done();
}
