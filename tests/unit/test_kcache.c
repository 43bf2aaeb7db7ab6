/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel-symbol cache: its key, /proc/modules, the file's bytes (every
 * flipped bit and every cut refused), and the file's handling (owner,
 * mode, links). usage: test_kcache FIXTURES_DIR */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cachedir.h"
#include "kcache.h"
#include "kallsyms_lazy.h"

static const char MODULES[] = "mymod 8192 0 - Live 0xffffffffc0001000\n"
			      "othermod 4096 1 mymod, Live 0xffffffffc0002000 (OE)\n";

static int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int rc = 0;

	if (fd < 0)
		return -1;
	if (write(fd, buf, len) != (ssize_t)len)
		rc = -1;
	if (close(fd) != 0)
		rc = -1;
	return rc;
}

/* A notes file as /sys/kernel/notes has it: a Xen note, then the build-id. */
static int write_notes(const char *path, uint8_t fill)
{
	unsigned char buf[64] = { 0 };
	uint32_t w[3];
	size_t off = 0;

	w[0] = 4, w[1] = 4, w[2] = 1; /* "Xen\0", 4 bytes, type 1 */
	memcpy(buf + off, w, 12), off += 12;
	memcpy(buf + off, "Xen", 4), off += 4;
	off += 4;
	w[0] = 4, w[1] = 20, w[2] = 3; /* NT_GNU_BUILD_ID */
	memcpy(buf + off, w, 12), off += 12;
	memcpy(buf + off, "GNU", 4), off += 4;
	memset(buf + off, fill, 20), off += 20;
	return write_file(path, buf, off);
}

static const char *name_at(const struct kallsyms *ks, uint64_t addr)
{
	const struct kallsyms_sym *s = ks ? kallsyms_find(ks, addr) : NULL;

	return s ? kallsyms_name(ks, s) : "(none)";
}

static void test_modules(void)
{
	struct kcache_modules m, m2;
	static const char odd[] = "short 12\n"
				  "hidden 4096 0 - Live 0x0000000000000000\n"
				  "\n"
				  "neg -5 0 - Live 0xffffffffc0000000\n"
				  "nohex 4096 0 - Live ffffffffc0000000\n";

	CHECK(kcache_modules_parse(&m, MODULES, sizeof(MODULES) - 1) == 0 && m.n == 2, "two modules (%zu)", m.n);
	CHECK(m.n == 2 && strcmp(m.v[0].name, "mymod") == 0 && m.v[0].size == 8192 &&
	      m.v[0].addr == 0xffffffffc0001000 && strcmp(m.v[1].name, "othermod") == 0 &&
	      m.v[1].addr == 0xffffffffc0002000, "names, sizes and addresses; a taint field does not matter");
	CHECK(kcache_modules_parse(&m2, MODULES, sizeof(MODULES) - 1) == 0 && kcache_modules_equal(&m, &m2),
	      "the same text: equal");
	kcache_modules_free(&m2);
	CHECK(kcache_modules_parse(&m2, MODULES, 40) == 0 && m2.n == 1 && !kcache_modules_equal(&m, &m2),
	      "a module fewer: not equal");
	kcache_modules_free(&m2);
	CHECK(kcache_modules_parse(&m2, odd, sizeof(odd) - 1) == 0 && m2.n == 1 && m2.v[0].addr == 0,
	      "malformed lines skipped; a hidden address reads 0 (%zu)", m2.n);
	kcache_modules_free(&m2);
	CHECK(kcache_modules_read(&m2, "/nonexistent/modules") == 0 && m2.n == 0,
	      "no /proc/modules (no module support): no modules");
	kcache_modules_free(&m);
}

static void test_key(const char *fix, const char *tmp)
{
	char path[PATH_MAX], notes[PATH_MAX];
	struct kcache_key k, k2;
	struct stat st;

	snprintf(path, sizeof(path), "%s/kallsyms.txt", fix);
	snprintf(notes, sizeof(notes), "%s/notes", tmp);
	CHECK(write_notes(notes, 0xab) == 0, "notes written");
	CHECK(kcache_key_read(&k, notes, path) == 0 && k.build_id_len == 20 && k.build_id[0] == 0xab &&
	      !k.restricted, "key: build-id from the notes");
	CHECK(stat(path, &st) == 0 && k.head_len == (uint32_t)st.st_size,
	      "a text shorter than a read: all of it in the key (%u)", k.head_len);
	CHECK(kcache_key_read(&k2, "/nonexistent/notes", path) == 0 && k2.build_id_len == 0 &&
	      k2.head_hash == k.head_hash, "no notes: no build-id, same head");
	CHECK(kcache_key_read(&k2, notes, "/nonexistent/kallsyms") == -ENOENT, "no kallsyms: -ENOENT");
	snprintf(path, sizeof(path), "%s/kallsyms-restricted.txt", fix);
	CHECK(kcache_key_read(&k2, notes, path) == 0 && k2.restricted, "zeros in the first lines: restricted");
	snprintf(path, sizeof(path), "%s/garbage", tmp);
	CHECK(write_file(path, "no symbols here\n", 16) == 0 && kcache_key_read(&k2, notes, path) == -ENODATA,
	      "no kallsyms lines: -ENODATA");
}

/* Every single-bit flip and every cut of a good file is refused. */
static void test_damage(const void *buf, size_t len, const struct kcache_key *k, const struct kcache_modules *m)
{
	unsigned char *copy = malloc(len);
	struct kallsyms *ks;
	size_t accepted = 0, tried = 0;

	if (copy == NULL)
		return;
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(copy, buf, len);
			copy[i] ^= (unsigned char)(1u << bit);
			tried++;
			if (kcache_decode(&ks, copy, len, k, m) == 0) {
				accepted++;
				kallsyms_free(ks);
			}
		}
	CHECK(accepted == 0, "every flipped bit refused (%zu of %zu accepted)", accepted, tried);
	accepted = 0;
	for (size_t cut = 0; cut < len; cut++) {
		memcpy(copy, buf, cut);
		if (kcache_decode(&ks, copy, cut, k, m) == 0) {
			accepted++;
			kallsyms_free(ks);
		}
	}
	CHECK(accepted == 0, "every cut refused (%zu accepted)", accepted);
	free(copy);
}

static void test_bytes(const char *fix, const char *tmp)
{
	char path[PATH_MAX], notes[PATH_MAX];
	struct kallsyms *ks = NULL, *back = NULL;
	struct kcache_modules m, moved, none = { 0 };
	struct kcache_key k, other;
	void *buf = NULL;
	size_t len = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/kallsyms.txt", fix);
	snprintf(notes, sizeof(notes), "%s/notes", tmp);
	if (kallsyms_load(&ks, path) != 0 || kcache_key_read(&k, notes, path) != 0 ||
	    kcache_modules_parse(&m, MODULES, sizeof(MODULES) - 1) != 0) {
		CHECK(0, "cannot prepare the byte tests");
		kallsyms_free(ks);
		return;
	}
	CHECK(kcache_encode(ks, &k, &m, &buf, &len) == 0, "encoded (%zu bytes)", len);
	rc = kcache_decode(&back, buf, len, &k, &m);
	CHECK(rc == 0 && back && kallsyms_same(ks, back), "decoded: the same symbols (rc %d)", rc);
	CHECK_STR(name_at(back, 0xffffffffc0001010), "mod_func", "a module's symbol");
	kallsyms_free(back);

	/* The module moved (reloaded elsewhere): its symbols are not trusted. */
	moved = m;
	moved.v = malloc(m.n * sizeof(*m.v));
	if (moved.v) {
		memcpy(moved.v, m.v, m.n * sizeof(*m.v));
		moved.v[0].addr += 0x10000;
		rc = kcache_decode(&back, buf, len, &k, &moved);
		CHECK(rc == 0 && strcmp(name_at(back, 0xffffffffc0001010), "(none)") == 0 &&
		      strcmp(name_at(back, 0xffffffffc0002000), "other_mod_func") == 0 &&
		      strcmp(name_at(back, 0xffffffff81001234), "do_one_thing") == 0,
		      "a moved module's symbols left out, the rest kept");
		kallsyms_free(back);
		moved.v[0].addr -= 0x10000;
		moved.v[0].size += 4096;
		rc = kcache_decode(&back, buf, len, &k, &moved);
		CHECK(rc == 0 && strcmp(name_at(back, 0xffffffffc0001010), "(none)") == 0,
		      "a module of another size: left out");
		kallsyms_free(back);
		free(moved.v);
	}
	rc = kcache_decode(&back, buf, len, &k, &none);
	CHECK(rc == 0 && back->nsyms == ks->nsyms - 4 && strcmp(name_at(back, 0xffffffff81002010), "weak_thing") == 0,
	      "modules unloaded: core only (%zu)", back ? back->nsyms : 0);
	kallsyms_free(back);

	other = k;
	other.build_id[3] ^= 1;
	CHECK(kcache_decode(&back, buf, len, &other, &m) == -ESTALE, "another build-id: -ESTALE");
	other = k;
	other.head_hash ^= 1;
	CHECK(kcache_decode(&back, buf, len, &other, &m) == -ESTALE, "other first lines (KASLR): -ESTALE");
	other = k;
	other.restricted = true;
	CHECK(kcache_decode(&back, buf, len, &other, &m) == -ESTALE, "a restricted view never reads a cache");
	other.build_id_len = 0;
	other.restricted = false;
	{
		void *nobuf;
		size_t nolen;

		CHECK(kcache_encode(ks, &other, &m, &nobuf, &nolen) == -EINVAL && nobuf == NULL,
		      "no build-id: nothing written");
	}
	test_damage(buf, len, &k, &m);
	free(buf);

	/* Hidden module addresses: module symbols never cached. */
	m.v[0].addr = m.v[1].addr = 0;
	CHECK(kcache_encode(ks, &k, &m, &buf, &len) == 0 && kcache_decode(&back, buf, len, &k, &m) == 0 &&
	      back->nsyms == ks->nsyms - 4, "modules at hidden addresses: core only");
	kallsyms_free(back);
	free(buf);
	kcache_modules_free(&m);
	kallsyms_free(ks);

	/* BPF and ftrace are in no /proc/modules: not cached. */
	{
		static const char text[] = "ffffffff81000000 T _stext\n"
					   "ffffffffa0001000 t bpf_prog_6deef7357e7b4530_x\t[bpf]\n"
					   "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n";

		CHECK(kallsyms_load_buf(&ks, text, sizeof(text) - 1) == 0 &&
		      kcache_encode(ks, &k, &none, &buf, &len) == 0 &&
		      kcache_decode(&back, buf, len, &k, &none) == 0 && back->nsyms == 1,
		      "BPF programs and trampolines are read on demand, not cached");
		kallsyms_free(back);
		kallsyms_free(ks);
		free(buf);
	}
}

static void test_file(const char *fix, const char *tmp)
{
	char path[PATH_MAX], notes[PATH_MAX], dir[512], file[PATH_MAX], link[PATH_MAX];
	struct kallsyms *ks = NULL, *back = NULL;
	struct kcache_modules m;
	struct kcache_key k;
	struct stat st;
	int rc;

	snprintf(path, sizeof(path), "%s/kallsyms.txt", fix);
	snprintf(notes, sizeof(notes), "%s/notes", tmp);
	snprintf(dir, sizeof(dir), "%s/home/.cache/perftop", tmp);
	snprintf(file, sizeof(file), "%s/" KCACHE_FILE, dir);
	snprintf(link, sizeof(link), "%s/elsewhere", tmp);
	if (kallsyms_load(&ks, path) != 0 || kcache_key_read(&k, notes, path) != 0 ||
	    kcache_modules_parse(&m, MODULES, sizeof(MODULES) - 1) != 0) {
		CHECK(0, "cannot prepare the file tests");
		kallsyms_free(ks);
		return;
	}
	snprintf(path, sizeof(path), "%s/home", tmp);
	CHECK(mkdir(path, 0700) == 0, "a home without .cache");
	CHECK(kcache_load(&back, dir, &k, &m) == -ENOENT, "nothing cached yet: -ENOENT");
	rc = kcache_store(ks, dir, &k, &m);
	CHECK(rc == 0, "stored, .cache made (rc %d)", rc);
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "directory 0700 (%o)", st.st_mode & 0777);
	CHECK(stat(file, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_uid == geteuid(),
	      "file 0600, ours (%o)", st.st_mode & 0777);
	snprintf(path, sizeof(path), "%s/.%s.%d.tmp", dir, KCACHE_FILE, (int)getpid());
	CHECK(access(path, F_OK) != 0, "no temporary file left");
	rc = kcache_load(&back, dir, &k, &m);
	CHECK(rc == 0 && back && back->lazy && kallsyms_same(ks, back), "loaded back, read lazily (rc %d)", rc);
	CHECK(back && back->index && back->nindex == (back->nsyms + KALLSYMS_INDEX_STRIDE - 1) / KALLSYMS_INDEX_STRIDE,
	      "the lazy table is indexed: a lookup reads one stride of it");
	kallsyms_free(back);

	CHECK(chmod(file, 0640) == 0 && kcache_load(&back, dir, &k, &m) == -EPERM, "readable by others: refused");
	CHECK(chmod(file, 0600) == 0 && rename(file, link) == 0 && symlink(link, file) == 0 &&
	      kcache_load(&back, dir, &k, &m) == -ELOOP, "a link in its place: refused");
	CHECK(unlink(file) == 0 && kcache_store(ks, dir, &k, &m) == 0 && lstat(file, &st) == 0 &&
	      S_ISREG(st.st_mode), "a store replaces it with a file");
	CHECK(chmod(dir, 0777) == 0 && kcache_load(&back, dir, &k, &m) == -EPERM &&
	      kcache_store(ks, dir, &k, &m) == -EPERM, "a directory others may write: neither read nor written");
	chmod(dir, 0700);
	if (geteuid() == 0) {
		CHECK(chown(file, 65534, 65534) == 0 && kcache_load(&back, dir, &k, &m) == -EPERM,
		      "another user's file: refused");
		chown(file, 0, 0);
	} else {
		CHECK_SKIP("another user's file: needs root to chown");
	}
	/* A file of ours that is not a cache: refused, then rebuilt. */
	CHECK(write_file(file, "PTKSYMC\nnot really", 18) == 0 && kcache_load(&back, dir, &k, &m) == -EBADMSG,
	      "a damaged file: -EBADMSG");
	CHECK(kcache_store(ks, dir, &k, &m) == 0 && kcache_load(&back, dir, &k, &m) == 0, "and rebuilt");
	kallsyms_free(back);
	kcache_modules_free(&m);
	kallsyms_free(ks);
}

static void test_dir(void)
{
	char buf[PATH_MAX];

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/u", 1);
	CHECK(cachedir_path(buf, sizeof(buf)) == 0 && strcmp(buf, "/x/cache/perftop") == 0, "XDG_CACHE_HOME first");
	setenv("XDG_CACHE_HOME", "relative", 1);
	CHECK(cachedir_path(buf, sizeof(buf)) == 0 && strcmp(buf, "/home/u/.cache/perftop") == 0,
	      "a relative XDG_CACHE_HOME is ignored: $HOME/.cache");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	CHECK(cachedir_path(buf, sizeof(buf)) == -ENOENT, "neither: no cache");
}

/* A table of n core symbols 64 bytes apart from 0xffffffff81000000 (fn_I,
 * or the names swapped in from alt), then three of mymod. */
static int write_table(const char *path, size_t n, const char *alt)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (f == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%016llx T fn_%zu\n", 0xffffffff81000000ull + i * 64, i);
	for (int i = 0; i < 3; i++)
		fprintf(f, "%016llx t mod_fn_%d\t[mymod]\n", 0xffffffffc0001000ull + (unsigned)i * 32, i);
	if (alt)
		fputs(alt, f);
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* A table of n symbols written as kallsyms at TMP/TAG.txt, parsed, and
 * stored in the cache directory TMP/TAGcache/perftop (its file in file):
 * 0, or -1 with what was made so far in *ks for the caller to free. */
static int stored_table(const char *tmp, const char *tag, size_t n, uint8_t fill, char path[PATH_MAX],
			char dir[PATH_MAX / 2], char file[PATH_MAX], struct kallsyms **ks, struct kcache_key *k,
			struct kcache_modules *m)
{
	char notes[PATH_MAX];

	snprintf(path, PATH_MAX, "%s/%s.txt", tmp, tag);
	snprintf(notes, sizeof(notes), "%s/%snotes", tmp, tag);
	snprintf(dir, PATH_MAX / 2, "%s/%scache/perftop", tmp, tag);
	snprintf(file, PATH_MAX, "%s/" KCACHE_FILE, dir);
	if (write_table(path, n, NULL) != 0 || write_notes(notes, fill) != 0 || kallsyms_load(ks, path) != 0 ||
	    kcache_key_read(k, notes, path) != 0 || kcache_modules_parse(m, MODULES, sizeof(MODULES) - 1) != 0 ||
	    kcache_store(*ks, dir, k, m) != 0)
		return -1;
	return 0;
}

static bool same_at(const struct kallsyms *a, const struct kallsyms *b, uint64_t addr)
{
	const struct kallsyms_sym *x = kallsyms_find(a, addr), *y = kallsyms_find(b, addr);
	const char *ma, *mb;

	if (x == NULL || y == NULL)
		return x == y;
	ma = kallsyms_module(a, x), mb = kallsyms_module(b, y);
	return x->addr == y->addr && strcmp(kallsyms_name(a, x), kallsyms_name(b, y)) == 0 &&
	       (ma && mb ? strcmp(ma, mb) == 0 : ma == mb);
}

/* The cached table read as lookups reach it: the same answers as the
 * parsed one, only the strides looked up held, a reload against it that
 * reads nothing into it, and a stride damaged in the file left empty. */
static void test_lazy(const char *tmp)
{
	const size_t n = 5 * KALLSYMS_INDEX_STRIDE + 17, stride = KALLSYMS_INDEX_STRIDE * sizeof(struct kallsyms_sym);
	const uint64_t base = 0xffffffff81000000ull;
	char path[PATH_MAX], path2[PATH_MAX], dir[PATH_MAX / 2], file[PATH_MAX];
	struct kallsyms *ks = NULL, *back = NULL, *extra = NULL, *extra2 = NULL;
	struct kcache_modules m;
	struct kcache_key k;
	size_t before, after;
	void *buf = NULL;
	size_t len;
	bool same = true;
	int fd;

	snprintf(path2, sizeof(path2), "%s/lazy2.txt", tmp);
	if (stored_table(tmp, "lazy", n, 0x5a, path, dir, file, &ks, &k, &m) != 0 ||
	    kcache_load(&back, dir, &k, &m) != 0) {
		CHECK(0, "cannot prepare the lazy table's tests");
		kallsyms_free(ks);
		kallsyms_free(back);
		return;
	}
	CHECK(back->lazy && back->nsyms == ks->nsyms && back->backing == NULL, "a cache loads as a lazy table (%zu symbols)",
	      back->nsyms);
	before = kallsyms_bytes(back);
	CHECK(before < kallsyms_bytes(ks) / 2, "before any lookup it holds %zu bytes (the parsed table %zu)", before,
	      kallsyms_bytes(ks));
	CHECK(kcache_encode(back, &k, &m, &buf, &len) == -EINVAL && buf == NULL, "a lazy table is not encoded again");
	/* Strides 0, 1 and 5 (the module's symbols are in the last). */
	{
		const uint64_t addrs[] = { base + 5, base + 255 * 64 + 63, base + 300 * 64 + 1, base + (n - 1) * 64 + 9,
					   0xffffffffc0001000ull + 40, 0xffffffffc0001000ull + 64 + 100, base - 1,
					   base + (n - 1) * 64 + 0x10000 };

		for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
			same = same && same_at(ks, back, addrs[i]);
	}
	CHECK(same, "lookups, at stride ends and in the module, as the parsed table answers them");
	CHECK(strcmp(name_at(back, base + 255 * 64 + 63), "fn_255") == 0 &&
	      strcmp(name_at(back, base + 256 * 64), "fn_256") == 0,
	      "the last symbol of a stride ends where the next stride's first begins (index)");
	after = kallsyms_bytes(back);
	CHECK(after - before >= 3 * stride && after - before < 4 * stride + 32768,
	      "only the strides looked up are read (%zu bytes more)", after - before);

	/* A reload against it: nothing new, and nothing read into it. */
	CHECK(kallsyms_load_since(&extra, path, back) == 0 && extra && extra->nsyms == 0 && kallsyms_bytes(back) == after,
	      "a reload against the lazy table finds nothing new and leaves it as it was (%zu bytes)",
	      kallsyms_bytes(back));
	kallsyms_free(extra);
	extra = NULL;
	if (write_table(path2, n, "ffffffff810002a0 T fn_ten\nffffffff90000000 T fresh_fn\n") == 0 &&
	    kallsyms_load_since(&extra, path2, back) == 0 && kallsyms_load_since(&extra2, path2, ks) == 0) {
		CHECK(extra->nsyms == 2 && kallsyms_same(extra, extra2) && kallsyms_bytes(back) == after,
		      "what changed, found as against the parsed table (%zu symbols)", extra->nsyms);
	} else {
		CHECK(0, "reload of a changed table");
	}
	kallsyms_free(extra);
	kallsyms_free(extra2);

	/* Modules moved since: the part still valid, checked whole, in the
	 * heap and the mapping, not read lazily. */
	{
		static const char MOVED[] = "mymod 8192 0 - Live 0xffffffffc0101000\n"
					    "othermod 4096 1 mymod, Live 0xffffffffc0002000 (OE)\n";
		struct kcache_modules mv;
		struct kallsyms *part = NULL;

		CHECK(kcache_modules_parse(&mv, MOVED, sizeof(MOVED) - 1) == 0 && kcache_load(&part, dir, &k, &mv) == 0 &&
		      part && !part->lazy && part->backing_mapped && part->nsyms < ks->nsyms &&
		      kallsyms_find(part, 0xffffffffc0001000ull + 40) == NULL && same_at(ks, part, base + 5),
		      "modules moved: the rest of the table, checked whole, without the moved module's symbols");
		kallsyms_free(part);
		kcache_modules_free(&mv);
	}

	/* Damaged in place (runs only ever rename): that stride stays empty,
	 * and a name in a damaged block is unknown, not another name. */
	fd = open(file, O_RDWR | O_CLOEXEC);
	{
		unsigned char hdr[256];
		struct kcache_layout l = { 0 };
		const struct kallsyms_sym *s = kallsyms_find(back, base + 1200 * 64);

		CHECK(fd >= 0 && pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) &&
		      kcache_layout(hdr, sizeof(hdr), &l) == 0 &&
		      pwrite(fd, "\xff\xff\xff\xff\xff\xff\xff\xff", 8, (off_t)(l.syms_off + 3 * stride + 16)) == 8,
		      "the file damaged in place");
		CHECK(kallsyms_find(back, base + (3 * KALLSYMS_INDEX_STRIDE + 2) * 64) == NULL &&
		      same_at(ks, back, base + (4 * KALLSYMS_INDEX_STRIDE + 2) * 64),
		      "a damaged stride finds nothing, the others still answer");
		CHECK(s && fd >= 0 && pwrite(fd, "X", 1, (off_t)(l.names_off + s->name + 1)) == 1 &&
		      strcmp(kallsyms_name(back, s), "[unknown]") == 0,
		      "a name in a damaged block: unknown (%s)", s ? kallsyms_name(back, s) : "-");
	}
	if (fd >= 0)
		close(fd);
	CHECK(!kallsyms_same(ks, back), "and the table is not the parsed one any more");
	kallsyms_free(back);
	kcache_modules_free(&m);
	kallsyms_free(ks);
}

/* The file's pages resident in the page cache (vec holds one byte a page). */
static size_t resident(void *map, size_t len, unsigned char *vec)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 0;

	if (mincore(map, len, vec) != 0)
		return SIZE_MAX;
	for (size_t i = 0; i < (len + page - 1) / page; i++)
		n += vec[i] & 1;
	return n;
}

/* The whole file out of the page cache, and staying out: a page still under
 * a read's I/O is not up to date, so mincore does not count it, and it
 * cannot be dropped yet; once read, the find reads it from the cache and
 * asks for nothing (seen on a fresh machine). So gone at three looks
 * 50 ms apart. */
static bool evict(int fd, void *map, size_t len, unsigned char *vec)
{
	for (int i = 0, gone = 0; i < 200; i++) {
		if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
			return false;
		gone = resident(map, len, vec) == 0 ? gone + 1 : 0;
		if (gone == 3)
			return true;
		usleep(gone ? 50000 : 10000);
	}
	return false;
}

/* Waits up to 10 s for the read-ahead to bring every page in. */
static void await_whole(void *map, size_t len, unsigned char *vec)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < 1000 && resident(map, len, vec) < (len + page - 1) / page; i++)
		usleep(10000);
}

/* A lazy table's start asks for the whole file at once: out of the page
 * cache, each stride and name read later would be a read from disk that
 * the run waits for. The file is put out of the page cache and loaded;
 * its last page must come in with nothing reading it. */
static void test_readahead(const char *tmp)
{
	const size_t n = 100000;
	char path[PATH_MAX], dir[PATH_MAX / 2], file[PATH_MAX];
	struct kallsyms *ks = NULL, *back = NULL;
	struct kcache_modules m = { 0 };
	struct kcache_key k;
	struct stat st;
	unsigned char *vec = NULL;
	void *map = MAP_FAILED;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), last = 0, len = 0;
	unsigned long missed = 0, asked = 0;
	int fd = -1;

	if (stored_table(tmp, "ra", n, 0x3c, path, dir, file, &ks, &k, &m) != 0 || (fd = open(file, O_RDONLY)) < 0 ||
	    fstat(fd, &st) != 0 || fdatasync(fd) != 0 || (len = (size_t)st.st_size) == 0 ||
	    (vec = calloc(len / page + 1, 1)) == NULL) {
		CHECK(0, "cannot prepare the read-ahead test");
		goto out;
	}
	last = (len - 1) / page;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || resident(map, len, vec) == SIZE_MAX) {
		CHECK(0, "cannot look at the file's pages: %s", strerror(errno));
		goto out;
	}
	if (!evict(fd, map, len, vec)) {
		CHECK_SKIP("the file's pages stay in memory (tmpfs?): nothing to read ahead");
		goto out;
	}
	CHECK(kcache_load(&back, dir, &k, &m) == 0 && back && back->lazy, "the cache loads lazily (%zu KiB)",
	      len / 1024);
	/* The read is the kernel's, in the background: waited for, up to 10 s. */
	for (int i = 0; i < 1000 && resident(map, len, vec) != SIZE_MAX && !(vec[last] & 1); i++)
		usleep(10000);
	CHECK(vec[last] & 1, "its last page (%zu KiB in) came into the page cache unread", last * page / 1024);

	/* Later the reclaim takes the file's cold pages: the first name read
	 * that finds its page gone asks for the whole file again, rather than
	 * a read from disk for each name after it. The first read-ahead ends
	 * before the drop, else its late pages come back after it. */
	await_whole(map, len, vec);
	if (!evict(fd, map, len, vec)) {
		CHECK(0, "the file put out of the page cache again (%zu pages stay)", resident(map, len, vec));
		goto out;
	}
	{
		const struct kallsyms_sym *s = kallsyms_find(back, ks->syms[10].addr);

		CHECK(s && strcmp(kallsyms_name(back, s), kallsyms_name(ks, &ks->syms[10])) == 0,
		      "a name read from the evicted file");
	}
	/* A fast disk can serve an RWF_NOWAIT read at once (the kernel's own
	 * read-ahead done before the read looks again): no read waited, and
	 * there was nothing to ask for (1 run in 16-30 here). */
	kallsyms_lazy_reads(back, &missed, &asked);
	if (missed == 0) {
		CHECK_SKIP("the disk served every read of the evicted file at once: no read would wait");
		goto out;
	}
	CHECK(asked >= 1, "the %lu reads that would wait asked for the whole file (%lu times)", missed, asked);
	for (int i = 0; i < 1000 && resident(map, len, vec) != SIZE_MAX && !(vec[last] & 1); i++)
		usleep(10000);
	CHECK(vec[last] & 1, "and the whole file asked for: its last page came in unread");
out:
	if (map != MAP_FAILED)
		munmap(map, len);
	free(vec);
	if (fd >= 0)
		close(fd);
	kallsyms_free(ks);
	kallsyms_free(back);
	kcache_modules_free(&m);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/perftop-kcache-XXXXXX";
	char cmd[PATH_MAX];

	if (argc < 2 || mkdtemp(tmp) == NULL) {
		printf("usage: test_kcache FIXTURES_DIR\n1..0\n");
		return 1;
	}
	test_modules();
	test_key(argv[1], tmp);
	test_bytes(argv[1], tmp);
	test_file(argv[1], tmp);
	test_lazy(tmp);
	test_readahead(tmp);
	test_dir();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmp);
	return check_done();
}
