/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srcline: source lines from the DWARF line table, through libdw, of the
 * file itself or of its separate debug file (debuginfo.h's candidates, the
 * same the symbols try). */
#include "srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "debuginfo.h"
#include "elfsec.h"
#include "htab.h"
#include "util.h"

/* Single lookups remembered (srcline_addr), direct-mapped. */
#define SRCLINE_MEMO 4096
#define SRCLINE_LOADS 8

struct srcline_file {
	struct srcline_file *next;
	uint8_t bid[BUILDID_MAX];
	uint8_t bidlen;
	dev_t dev;
	ino_t ino;
	struct srcline_cache *c;
	int fd;         /* of the file whose DWARF dw reads */
	Dwarf *dw;      /* NULL: no line table (why says so) */
	char *why;
	/* The file's PT_LOAD segments: file offsets to vaddrs. */
	struct { uint64_t off, filesz, vaddr; } load[SRCLINE_LOADS];
	size_t nload;
};

struct srcline_memo {
	uint64_t key, addr;
	char *text;     /* NULL: empty slot */
	bool found;
};

struct srcline_cache {
	char *debug_root;
	struct htab names;  /* relative names joined to their unit's directory: hash -> char * */
	struct srcline_file *files;
	struct srcline_memo *memo; /* SRCLINE_MEMO slots, made at the first srcline_addr */
};

struct srcline_cache *srcline_cache_new(const char *debug_root)
{
	struct srcline_cache *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->debug_root = strdup(debug_root ? debug_root : "/usr/lib/debug");
	if (c->debug_root == NULL) {
		free(c);
		return NULL;
	}
	return c;
}

void srcline_cache_free(struct srcline_cache *c)
{
	struct srcline_file *f, *next;

	if (c == NULL)
		return;
	for (f = c->files; f; f = next) {
		next = f->next;
		if (f->dw)
			dwarf_end(f->dw);
		if (f->fd >= 0)
			close(f->fd);
		free(f->why);
		free(f);
	}
	for (size_t i = 0; c->names.tab && i <= c->names.mask; i++)
		free((char *)c->names.tab[i].val);
	htab_free(&c->names);
	if (c->memo)
		for (size_t i = 0; i < SRCLINE_MEMO; i++)
			free(c->memo[i].text);
	free(c->memo);
	free(c->debug_root);
	free(c);
}

/* A DWARF with at least one unit, or NULL (the fd is closed then). */
static Dwarf *dwarf_of(int fd)
{
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off next;
	size_t hsize;

	if (dw == NULL)
		return NULL;
	if (dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL) != 0) {
		dwarf_end(dw);
		return NULL;
	}
	return dw;
}

/* f's PT_LOAD segments, from its own file. */
static void loads_of(struct srcline_file *f, int fd)
{
	Elf *e;
	size_t n;
	GElf_Phdr ph;

	if (!elfsec_libelf_ready() || (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return;
	if (elf_getphdrnum(e, &n) == 0)
		for (size_t i = 0; i < n && f->nload < SRCLINE_LOADS; i++)
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_filesz) {
				f->load[f->nload].off = ph.p_offset;
				f->load[f->nload].filesz = ph.p_filesz;
				f->load[f->nload++].vaddr = ph.p_vaddr;
			}
	elf_end(e);
}

/* .gnu_debuglink's file name into out ("" when none or not to trust). */
static void debuglink_of(int fd, uint64_t fsize, char *out, size_t len)
{
	Elf *e;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	size_t n;

	out[0] = '\0';
	if (!elfsec_libelf_ready() || (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return;
	scn = elfsec_find(e, ".gnu_debuglink", fsize, &sh);
	if (scn && (d = elf_getdata(scn, NULL)) && d->d_buf && d->d_size >= 2) {
		n = strnlen(d->d_buf, d->d_size);
		if (n && n < d->d_size && n < len && !memchr(d->d_buf, '/', n) && strcmp(d->d_buf, ".") &&
		    strcmp(d->d_buf, ".."))
			memcpy(out, d->d_buf, n + 1);
	}
	elf_end(e);
}

/* The path as the process sees it: /proc/PID/root/usr/bin/x -> /usr/bin/x
 * (for the debug root's mirror of it). */
static const char *logical_path(const char *path)
{
	const char *p;

	if (strncmp(path, "/proc/", 6) != 0 || (p = strchr(path + 6, '/')) == NULL || strncmp(p, "/root/", 6))
		return path;
	return p + 5;
}

/* The separate debug file of f (whose own file is fd at path), its DWARF
 * into f: true when found. */
static bool find_debug(struct srcline_cache *c, struct srcline_file *f, int fd, const struct stat *st,
		       const char *path)
{
	char link[256], cand[DEBUGINFO_MAX_PATHS][PATH_MAX];
	uint8_t bid[BUILDID_MAX];
	size_t n;

	debuglink_of(fd, (uint64_t)st->st_size, link, sizeof(link));
	n = debuginfo_paths(f->bid, f->bidlen, link[0] ? link : NULL, logical_path(path), c->debug_root, cand);
	for (size_t i = 0; i < n; i++) {
		int dfd = open(cand[i], O_RDONLY | O_CLOEXEC);
		struct stat dst;
		int blen;

		if (dfd < 0)
			continue;
		/* Not the file itself, and of its build-id when it has one. */
		if (fstat(dfd, &dst) || (dst.st_dev == st->st_dev && dst.st_ino == st->st_ino) ||
		    (f->bidlen && ((blen = buildid_read_fd(dfd, bid)) != f->bidlen ||
				   memcmp(bid, f->bid, f->bidlen)))) {
			close(dfd);
			continue;
		}
		if ((f->dw = dwarf_of(dfd)) != NULL) {
			f->fd = dfd;
			return true;
		}
		close(dfd);
	}
	return false;
}

struct srcline_file *srcline_open(struct srcline_cache *c, const char *path, const uint8_t *build_id,
				  size_t build_id_len, char *why, size_t whylen)
{
	struct srcline_file *f;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int blen;

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, whylen, "no source lines: cannot open %s: %s", logical_path(path), strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (f = c->files; f; f = f->next)
		if (build_id_len ? (f->bidlen == build_id_len && memcmp(f->bid, build_id, build_id_len) == 0)
				 : (f->dev == st.st_dev && f->ino == st.st_ino))
			break;
	if (f == NULL && (f = calloc(1, sizeof(*f))) != NULL) {
		f->fd = -1;
		f->c = c;
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		if (build_id_len && build_id_len <= BUILDID_MAX) {
			memcpy(f->bid, build_id, build_id_len);
			f->bidlen = (uint8_t)build_id_len;
		} else if ((blen = buildid_read_fd(fd, f->bid)) > 0) {
			f->bidlen = (uint8_t)blen;
		}
		loads_of(f, fd);
		if (!find_debug(c, f, fd, &st, path)) {
			int dup_fd = dup(fd);

			/* The file's own DWARF when it has one. */
			if (dup_fd >= 0 && (f->dw = dwarf_of(dup_fd)) != NULL)
				f->fd = dup_fd;
			else if (dup_fd >= 0)
				close(dup_fd);
		}
		if (f->dw == NULL &&
		    asprintf(&f->why, "no debug info for %s: no source lines", logical_path(path)) < 0)
			f->why = NULL;
		f->next = c->files;
		c->files = f;
	}
	close(fd);
	if (f == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (f->dw == NULL) {
		snprintf(why, whylen, "%s", f->why ? f->why : "no source lines");
		return NULL;
	}
	return f;
}

/* A line's file as a path: a relative name (as the compiler was given
 * it) joined to the unit's compilation directory, kept by the cache. */
static const char *full_name(struct srcline_cache *c, Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute a;
	const char *dir;
	char buf[PATH_MAX];
	uint64_t key;
	char *d;

	if (file == NULL || file[0] == '/' || (dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a))) == NULL ||
	    util_pathf(buf, sizeof(buf), "%s/%s", dir, file))
		return file;
	key = util_hash64(buf, strlen(buf), 0);
	for (size_t i = htab_first(&c->names, key); i != SIZE_MAX; i = htab_next(&c->names, key, i))
		if (strcmp((const char *)c->names.tab[i].val, buf) == 0)
			return (const char *)c->names.tab[i].val;
	if ((d = strdup(buf)) == NULL || htab_put(&c->names, key, (uintptr_t)d)) {
		free(d);
		return file;
	}
	return d;
}

/* The unit holding addr: by the aranges, else by walking the units (a
 * file without .debug_aranges). */
static bool unit_of(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

struct srcline_ord {
	struct srcline_row r;
	size_t i;
};

static int ord_cmp(const void *a, const void *b)
{
	const struct srcline_ord *x = a, *y = b;

	if (x->r.addr != y->r.addr)
		return x->r.addr < y->r.addr ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* By address, one row per address: the table's last for it. */
static size_t sort_rows(struct srcline_row *r, size_t n)
{
	struct srcline_ord *o = calloc(n ? n : 1, sizeof(*o));
	size_t w = 0;

	if (o == NULL)
		return 0;
	for (size_t i = 0; i < n; i++)
		o[i] = (struct srcline_ord){ r[i], i };
	if (n > 1)
		qsort(o, n, sizeof(*o), ord_cmp);
	for (size_t i = 0; i < n; i++) {
		if (w && r[w - 1].addr == o[i].r.addr)
			w--;
		r[w++] = o[i].r;
	}
	free(o);
	return w;
}

long srcline_range(struct srcline_file *f, uint64_t start, uint64_t end, struct srcline_row **rows)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n, nr = 0;
	struct srcline_row *r, before = { 0 };
	bool have_before = false, any_before = false;
	const char *last_raw = NULL, *last_full = NULL;

	*rows = NULL;
	if (f == NULL || f->dw == NULL || end <= start || !unit_of(f->dw, start, &cu) ||
	    dwarf_getsrclines(&cu, &lines, &n) != 0 || n == 0)
		return 0;
	if ((r = calloc(n + 1, sizeof(*r))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool endseq = false;
		int lineno = 0;
		const char *file;

		if (l == NULL || dwarf_lineaddr(l, &a) || dwarf_lineendsequence(l, &endseq) || a >= end)
			continue;
		file = dwarf_linesrc(l, NULL, NULL);
		if (file != last_raw) {
			last_raw = file;
			last_full = full_name(f->c, &cu, file);
		}
		file = last_full;
		dwarf_lineno(l, &lineno);
		if (a < start) {
			/* The row in force at start: the last one before it,
			 * unless a sequence ended between. */
			if (!any_before || a >= before.addr) {
				any_before = true;
				have_before = !endseq && file && lineno > 0;
				before = (struct srcline_row){ a, file, (unsigned)lineno };
			}
			continue;
		}
		if (endseq || file == NULL || lineno <= 0)
			continue;
		r[nr++] = (struct srcline_row){ a, file, (unsigned)lineno };
	}
	/* First, so that a row of the table's own at start wins. */
	if (have_before) {
		memmove(r + 1, r, nr * sizeof(*r));
		r[0] = (struct srcline_row){ start, before.file, before.line };
		nr++;
	}
	nr = sort_rows(r, nr);
	if (nr == 0) {
		free(r);
		return 0;
	}
	*rows = r;
	return (long)nr;
}

bool srcline_find(struct srcline_file *f, uint64_t addr, const char **file, unsigned *line)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	int lineno = 0;

	*file = NULL;
	*line = 0;
	if (f == NULL || f->dw == NULL || !unit_of(f->dw, addr, &cu) || (l = dwarf_getsrc_die(&cu, addr)) == NULL)
		return false;
	*file = full_name(f->c, &cu, dwarf_linesrc(l, NULL, NULL));
	if (*file == NULL || dwarf_lineno(l, &lineno) || lineno <= 0) {
		*file = NULL;
		return false;
	}
	*line = (unsigned)lineno;
	return true;
}

/* The memo's key of (path, build-id, address, how). */
static uint64_t memo_key(const char *path, const uint8_t *build_id, size_t build_id_len, uint64_t addr,
			 unsigned how)
{
	uint64_t h = util_hash64(path, strlen(path), how);

	if (build_id_len)
		h = util_hash64(build_id, build_id_len, h);
	return h ^ htab_mix64(addr + how);
}

static bool off_to_vaddr(const struct srcline_file *f, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < f->nload; i++)
		if (off >= f->load[i].off && off - f->load[i].off < f->load[i].filesz) {
			*vaddr = f->load[i].vaddr + (off - f->load[i].off);
			return true;
		}
	return false;
}

static bool lookup(struct srcline_cache *c, const char *path, const uint8_t *build_id, size_t build_id_len,
		   uint64_t a, bool is_off, bool full, char *out, size_t len)
{
	unsigned how = (unsigned)is_off | (unsigned)full << 1;
	uint64_t key = memo_key(path, build_id, build_id_len, a, how);
	struct srcline_memo *m;
	struct srcline_file *f;
	const char *file, *base;
	unsigned line;
	char why[256], buf[PATH_MAX + 16];
	bool found = false;
	uint64_t v = a;

	if (len)
		out[0] = '\0';
	if (c->memo == NULL && (c->memo = calloc(SRCLINE_MEMO, sizeof(*c->memo))) == NULL)
		return false;
	m = &c->memo[key & (SRCLINE_MEMO - 1)];
	if (m->text && m->key == key && m->addr == a) {
		if (len)
			strlcpy(out, m->text, len);
		return m->found;
	}
	buf[0] = '\0';
	if ((f = srcline_open(c, path, build_id, build_id_len, why, sizeof(why))) != NULL &&
	    (!is_off || off_to_vaddr(f, a, &v)) && srcline_find(f, v, &file, &line)) {
		base = full ? file : strrchr(file, '/');
		base = base && !full ? base + 1 : file;
		snprintf(buf, sizeof(buf), "%s:%u", base, line);
		found = true;
	}
	free(m->text);
	if ((m->text = strdup(buf)) != NULL) {
		m->key = key;
		m->addr = a;
		m->found = found;
	}
	if (len)
		strlcpy(out, buf, len);
	return found;
}

bool srcline_addr(struct srcline_cache *c, const char *path, const uint8_t *build_id, size_t build_id_len,
		  uint64_t addr, bool full, char *out, size_t len)
{
	return lookup(c, path, build_id, build_id_len, addr, false, full, out, len);
}

bool srcline_addr_off(struct srcline_cache *c, const char *path, const uint8_t *build_id,
		      size_t build_id_len, uint64_t off, bool full, char *out, size_t len)
{
	return lookup(c, path, build_id, build_id_len, off, true, full, out, len);
}

int srcline_build_id(int fd, uint8_t out[SRCLINE_BUILD_ID_MAX])
{
	_Static_assert(SRCLINE_BUILD_ID_MAX == BUILDID_MAX, "one build-id size");
	return buildid_read_fd(fd, out);
}
