#include "kcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "cachedir.h"
#include "util.h"

#define KCACHE_MAGIC "PTKSYMC\n"
#define KCACHE_VERSION 1
#define NOTES_MAX 4096
#define MODULES_MAX 4096         /* more than any kernel loads */
#define NSYMS_MAX (1u << 24)
#define NAMES_MAX (1u << 28)

/* Native byte order and layout: a cache written by another architecture
 * fails the magic or the sizes and is rebuilt. */
struct kcache_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t checksum;        /* of the header with this field 0, then the rest */
	uint8_t build_id[KCACHE_BUILD_ID_MAX];
	uint8_t build_id_len, pad[3];
	uint32_t head_len, pad2;
	uint64_t head_hash;
	uint32_t nsyms, nmodules, names_len, pad3;
};

struct kcache_mod_rec {
	uint32_t name;            /* offset of "[name]" in the names */
	uint32_t pad;
	uint64_t addr, size;      /* as /proc/modules showed them; 0: never valid */
};

_Static_assert(sizeof(struct kcache_hdr) == 80, "cache header layout");
_Static_assert(sizeof(struct kcache_mod_rec) == 24, "cache module layout");
_Static_assert(sizeof(struct kallsyms_sym) == 16, "cache symbol layout");

static int read_small(const char *path, void *buf, size_t len, size_t *got)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = util_read_full(fd, buf, len);
	close(fd);
	if (n < 0)
		return (int)n;
	*got = (size_t)n;
	return 0;
}

int kcache_key_read(struct kcache_key *k, const char *notes_path, const char *kallsyms_path)
{
	unsigned char notes[NOTES_MAX];
	char head[KCACHE_HEAD_MAX];
	struct kallsyms *ks;
	size_t n = 0;
	char *nl;
	int rc, len;

	memset(k, 0, sizeof(*k));
	/* Only whole lines: a cut one would differ between two readers. */
	if ((rc = read_small(kallsyms_path, head, sizeof(head), &n)) != 0)
		return rc;
	if ((nl = memrchr(head, '\n', n)) != NULL)
		n = (size_t)(nl - head) + 1;
	if ((rc = kallsyms_load_buf(&ks, head, n)) != 0)
		return rc;
	rc = ks->lines ? 0 : -ENODATA;
	k->restricted = ks->restricted;
	kallsyms_free(ks);
	if (rc)
		return rc;
	k->head_len = (uint32_t)n;
	k->head_hash = util_hash64(head, n, 0);
	if (notes_path && read_small(notes_path, notes, sizeof(notes), &n) == 0 &&
	    (len = buildid_find_notes(notes, n, k->build_id)) > 0)
		k->build_id_len = (uint8_t)len;
	return 0;
}

/* --- /proc/modules -------------------------------------------------------- */

/* The next space-separated field of [*p, end). */
static bool field(const char **p, const char *end, const char **f, size_t *flen)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*f = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*flen = (size_t)(s - *f);
	*p = s;
	return *flen > 0;
}

static bool parse_num(const char *f, size_t len, int base, uint64_t *v)
{
	char tmp[24];
	char *end;

	if (len == 0 || len >= sizeof(tmp) || f[0] == '-' || f[0] == '+')
		return false;
	memcpy(tmp, f, len);
	tmp[len] = '\0';
	errno = 0;
	*v = strtoull(tmp, &end, base);
	return errno == 0 && *end == '\0';
}

/* "name size refcount deps state 0xaddr [taints]"; a line that is not
 * quite that is skipped. */
static int module_line(struct kcache_modules *m, const char *p, const char *end)
{
	const char *name, *f;
	size_t nlen, flen;
	uint64_t size, addr;
	struct kcache_module *v;

	if (!field(&p, end, &name, &nlen) || nlen >= KCACHE_MODNAME_MAX || memchr(name, '\0', nlen) ||
	    !field(&p, end, &f, &flen) || !parse_num(f, flen, 10, &size))
		return 0;
	for (int i = 0; i < 3; i++)
		if (!field(&p, end, &f, &flen))
			return 0;
	if (!field(&p, end, &f, &flen) || flen < 3 || f[0] != '0' || f[1] != 'x' ||
	    !parse_num(f + 2, flen - 2, 16, &addr))
		return 0;
	if (m->n >= MODULES_MAX)
		return -E2BIG;
	v = reallocarray(m->v, m->n + 1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	m->v = v;
	memcpy(v[m->n].name, name, nlen);
	v[m->n].name[nlen] = '\0';
	v[m->n].addr = addr;
	v[m->n].size = size;
	m->n++;
	return 0;
}

int kcache_modules_parse(struct kcache_modules *m, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int rc;

	memset(m, 0, sizeof(*m));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((rc = module_line(m, p, le)) != 0) {
			kcache_modules_free(m);
			return rc;
		}
		p = le + 1;
	}
	return 0;
}

int kcache_modules_read(struct kcache_modules *m, const char *path)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -errno; /* no module support */
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *b = cap < ((size_t)1 << 24) ? realloc(buf, cap ? cap * 2 : 16384) : NULL;

			if (b == NULL) {
				rc = cap ? -E2BIG : -ENOMEM;
				goto out;
			}
			buf = b;
			cap = cap ? cap * 2 : 16384;
		}
		if ((n = util_read_full(fd, buf + len, cap - len)) < 0) {
			rc = (int)n;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = kcache_modules_parse(m, buf, len);
out:
	close(fd);
	free(buf);
	return rc;
}

void kcache_modules_free(struct kcache_modules *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

bool kcache_modules_equal(const struct kcache_modules *a, const struct kcache_modules *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, b->v[i].name) != 0 || a->v[i].addr != b->v[i].addr ||
		    a->v[i].size != b->v[i].size)
			return false;
	return true;
}

/* The live module named "[name]" (kallsyms' spelling), at a shown address. */
static const struct kcache_module *module_shown(const struct kcache_modules *m, const char *bracketed)
{
	size_t len = strlen(bracketed);

	if (len < 3 || bracketed[0] != '[' || bracketed[len - 1] != ']')
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->v[i].name) == len - 2 && memcmp(m->v[i].name, bracketed + 1, len - 2) == 0)
			return m->v[i].addr ? &m->v[i] : NULL;
	return NULL;
}

/* --- the file's bytes ------------------------------------------------------ */

static uint64_t checksum(const struct kcache_hdr *h, const void *body, size_t len)
{
	struct kcache_hdr z = *h;

	z.checksum = 0;
	return util_hash64(body, len, util_hash64(&z, sizeof(z), 0));
}

int kcache_encode(const struct kallsyms *ks, const struct kcache_key *k, const struct kcache_modules *m,
		  void **bufp, size_t *lenp)
{
	struct kcache_hdr h = { .magic = KCACHE_MAGIC, .version = KCACHE_VERSION, .hdr_size = sizeof(h) };
	struct kcache_mod_rec *mods;
	struct kallsyms_sym *syms;
	size_t nsyms = 0, len;
	char *buf;

	*bufp = NULL;
	if (ks->restricted || ks->lazy || k->restricted || k->build_id_len == 0 || k->build_id_len > KCACHE_BUILD_ID_MAX)
		return -EINVAL;
	if (ks->nsyms > NSYMS_MAX || ks->names_len > NAMES_MAX || ks->nmodules > UINT16_MAX + 1u)
		return -E2BIG;
	len = sizeof(h) + ks->nsyms * sizeof(*syms) + ks->nmodules * sizeof(*mods) + ks->names_len;
	if ((buf = malloc(len)) == NULL)
		return -ENOMEM;
	syms = (struct kallsyms_sym *)(void *)(buf + sizeof(h));
	/* The module records go after the symbols kept, whose count the pass
	 * below tells: built aside first. */
	mods = calloc(ks->nmodules ? ks->nmodules : 1, sizeof(*mods));
	if (mods == NULL) {
		free(buf);
		return -ENOMEM;
	}
	for (size_t i = 1; i < ks->nmodules; i++) {
		const struct kcache_module *live = module_shown(m, ks->names + ks->modules[i]);

		mods[i].name = ks->modules[i];
		if (live) {
			mods[i].addr = live->addr;
			mods[i].size = live->size;
		}
	}
	for (size_t i = 0; i < ks->nsyms; i++) {
		const struct kallsyms_sym *s = &ks->syms[i];

		/* A pseudo-module (BPF, ftrace) or a hidden one: read on demand. */
		if (s->module && (s->module >= ks->nmodules || mods[s->module].addr == 0))
			continue;
		syms[nsyms] = *s;
		syms[nsyms].pad = 0;
		nsyms++;
	}
	memcpy(syms + nsyms, mods, ks->nmodules * sizeof(*mods));
	free(mods);
	memcpy((char *)(syms + nsyms) + ks->nmodules * sizeof(*mods), ks->names, ks->names_len);
	len -= (ks->nsyms - nsyms) * sizeof(*syms);
	memcpy(h.build_id, k->build_id, k->build_id_len);
	h.build_id_len = k->build_id_len;
	h.head_len = k->head_len;
	h.head_hash = k->head_hash;
	h.nsyms = (uint32_t)nsyms;
	h.nmodules = (uint32_t)ks->nmodules;
	h.names_len = (uint32_t)ks->names_len;
	h.checksum = checksum(&h, buf + sizeof(h), len - sizeof(h));
	memcpy(buf, &h, sizeof(h));
	*bufp = buf;
	*lenp = len;
	return 0;
}

void kcache_seal(void *buf, size_t len)
{
	struct kcache_hdr h;

	if (len < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	h.checksum = checksum(&h, (char *)buf + sizeof(h), len - sizeof(h));
	memcpy(buf, &h, sizeof(h));
}

static bool key_matches(const struct kcache_hdr *h, const struct kcache_key *k)
{
	return k->build_id_len && !k->restricted && h->build_id_len == k->build_id_len &&
	       memcmp(h->build_id, k->build_id, k->build_id_len) == 0 && h->head_len == k->head_len &&
	       h->head_hash == k->head_hash;
}

static bool module_name_ok(const char *names, size_t names_len, uint32_t off)
{
	size_t len;

	if (off >= names_len)
		return false;
	len = strlen(names + off); /* the names end in a NUL: checked first */
	return len >= 3 && len <= KCACHE_MODNAME_MAX && names[off] == '[' && names[off + len - 1] == ']';
}

/* The cached module i still is where it was: else its symbols are stale. */
static bool module_current(const struct kcache_mod_rec *r, const char *names, const struct kcache_modules *m)
{
	const struct kcache_module *live = module_shown(m, names + r->name);

	return r->addr && live && live->addr == r->addr && live->size == r->size;
}

int kcache_decode(struct kallsyms **out, const void *data, size_t len, const struct kcache_key *k,
		  const struct kcache_modules *m)
{
	const unsigned char *p = data, *syms, *mods;
	struct kallsyms *ks = NULL;
	struct kcache_hdr h;
	const char *names;
	bool *keep = NULL;
	uint64_t prev = 0;
	size_t want, kept = 0;

	*out = NULL;
	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, KCACHE_MAGIC, sizeof(h.magic)) != 0 || h.version != KCACHE_VERSION ||
	    h.hdr_size != sizeof(h))
		return -EBADMSG;
	if (!key_matches(&h, k))
		return -ESTALE;
	if (h.nsyms > NSYMS_MAX || h.names_len > NAMES_MAX || h.names_len == 0 || h.nmodules > UINT16_MAX + 1u ||
	    h.nmodules == 1)
		return -EBADMSG;
	want = sizeof(h) + (size_t)h.nsyms * sizeof(struct kallsyms_sym) +
	       (size_t)h.nmodules * sizeof(struct kcache_mod_rec) + h.names_len;
	if (want != len || checksum(&h, p + sizeof(h), len - sizeof(h)) != h.checksum)
		return -EBADMSG;
	/* The caller's buffer may have any alignment: records are copied out. */
	syms = p + sizeof(h);
	mods = syms + (size_t)h.nsyms * sizeof(struct kallsyms_sym);
	names = (const char *)(mods + (size_t)h.nmodules * sizeof(struct kcache_mod_rec));
	if (names[h.names_len - 1] != '\0')
		return -EBADMSG;
	if ((ks = calloc(1, sizeof(*ks))) == NULL || (keep = calloc(h.nmodules + 1, sizeof(*keep))) == NULL ||
	    (h.nmodules && (ks->modules = calloc(h.nmodules, sizeof(*ks->modules))) == NULL))
		goto out_nomem;
	for (size_t i = 1; i < h.nmodules; i++) {
		struct kcache_mod_rec r;

		memcpy(&r, mods + i * sizeof(r), sizeof(r));
		if (!module_name_ok(names, h.names_len, r.name))
			goto out_bad;
		keep[i] = module_current(&r, names, m);
		ks->modules[i] = r.name;
	}
	ks->nmodules = ks->modules_cap = h.nmodules;
	for (size_t i = 0; i < h.nsyms; i++) {
		struct kallsyms_sym s;

		memcpy(&s, syms + i * sizeof(s), sizeof(s));
		/* What a parsed table guarantees: ascending unique addresses,
		 * names in the arena (which ends in a NUL), known modules, text
		 * types. */
		if ((i && s.addr <= prev) || s.name >= h.names_len || names[s.name] == '\0' ||
		    (s.module && s.module >= h.nmodules) || s.pad ||
		    (s.type != 't' && s.type != 'T' && s.type != 'w' && s.type != 'W'))
			goto out_bad;
		prev = s.addr;
		if (!s.module || keep[s.module])
			kept++;
	}
	/* The table lies in the cache's bytes, unless modules moved. */
	ks->backing = data;
	ks->backing_len = len;
	ks->names = (char *)(uintptr_t)names;
	ks->names_len = ks->names_cap = h.names_len;
	if (kept == h.nsyms && (uintptr_t)syms % _Alignof(struct kallsyms_sym) == 0) {
		ks->syms = (struct kallsyms_sym *)(uintptr_t)syms;
		ks->nsyms = h.nsyms;
	} else {
		if ((ks->syms = malloc(kept ? kept * sizeof(*ks->syms) : 1)) == NULL)
			goto out_nomem;
		for (size_t i = 0; i < h.nsyms; i++) {
			struct kallsyms_sym s;

			memcpy(&s, syms + i * sizeof(s), sizeof(s));
			if (!s.module || keep[s.module])
				ks->syms[ks->nsyms++] = s;
		}
	}
	ks->syms_cap = ks->nsyms;
	ks->lines = ks->nsyms;
	free(keep);
	if (kallsyms_index(ks) != 0)
		goto out_nomem_ks;
	*out = ks;
	return 0;
out_nomem_ks:
	kallsyms_free(ks);
	return -ENOMEM;
out_nomem:
	free(keep);
	kallsyms_free(ks);
	return -ENOMEM;
out_bad:
	free(keep);
	kallsyms_free(ks);
	return -EBADMSG;
}

/* --- the file -------------------------------------------------------------- */

int kcache_load(struct kallsyms **out, const char *dir, const struct kcache_key *k,
		const struct kcache_modules *m)
{
	struct stat st;
	void *map;
	int dfd, fd, rc = 0;

	*out = NULL;
	if ((dfd = cachedir_open(dir, false)) < 0)
		return dfd;
	fd = cachedir_open_file(dfd, KCACHE_FILE, KCACHE_MAX_BYTES, &st);
	close(dfd);
	if (fd < 0)
		return fd == -EFBIG ? -EBADMSG : fd;
	if (st.st_size < (off_t)sizeof(struct kcache_hdr)) {
		rc = -EBADMSG;
		goto out;
	}
	/* Mapped, not read: the table is used where it lies. Runs replace the
	 * file by a rename, never in place, so what was checked stays.
	 * Populated at once: the check reads every page, and one call maps
	 * them for less than a fault per folio (A/B, 42 starts: ~1 ms). */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		rc = -errno;
		goto out;
	}
	if ((rc = kcache_decode(out, map, (size_t)st.st_size, k, m)) != 0) {
		munmap(map, (size_t)st.st_size);
	} else if (kallsyms_make_lazy(*out, fd) == 0) {
		/* Checked whole; from now on read as lookups reach it. */
		munmap(map, (size_t)st.st_size);
	} else {
		/* Modules moved (the table is a copy of part of it), or no
		 * memory to read it lazily: used where it is mapped. */
		(*out)->backing_mapped = true;
		(void)madvise(map, (size_t)st.st_size, MADV_DONTNEED); /* advice: failing costs memory only */
	}
out:
	close(fd);
	return rc;
}

int kcache_store(const struct kallsyms *ks, const char *dir, const struct kcache_key *k,
		 const struct kcache_modules *m)
{
	struct iovec iov;
	void *buf;
	size_t len;
	int dfd, rc;

	if ((rc = kcache_encode(ks, k, m, &buf, &len)) != 0)
		return rc;
	if ((dfd = cachedir_open(dir, true)) < 0) {
		free(buf);
		return dfd;
	}
	iov.iov_base = buf;
	iov.iov_len = len;
	rc = cachedir_replace(dfd, KCACHE_FILE, &iov, 1);
	close(dfd);
	free(buf);
	return rc;
}
