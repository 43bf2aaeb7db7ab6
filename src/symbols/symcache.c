/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symcache.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cachedir.h"
#include "elfsym.h"
#include "util.h"

#define SYMCACHE_MAGIC "PTUSYMC\n"
#define SYMCACHE_VERSION 2 /* 2: labels in code are symbols (elfsym_build.c) */
#define NSYMS_MAX (1u << 26)
#define NAMES_MAX (1u << 30)
#define LABEL_MAX 4096
#define DEBUGLINK_MAX 255       /* as elfsym reads it */

enum { F_DYNSYM = 1, F_MINIDEBUG = 2, F_SEARCHED = 4, F_ALL = 7 };

/* Native byte order and layout, as the kernel's cache: an entry written by
 * another architecture fails the magic or the sizes and is rebuilt. Then
 * the segments (five u64 each), the symbols, the names, the label and the
 * debuglink (neither with its NUL). */
struct symcache_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t checksum;        /* of the header with this field 0, then the rest */
	uint8_t build_id[ELFSYM_BUILD_ID_MAX];
	uint64_t file_size, deps;
	uint32_t nsyms, nsynth, names_len, nloads;
	uint16_t type, label_len, debuglink_len;
	uint8_t build_id_len, flags;
};

_Static_assert(sizeof(struct symcache_hdr) == 96, "entry header layout");
_Static_assert(sizeof(struct elfsym_sym) == 16, "entry symbol layout");

#define LOAD_BYTES (5 * sizeof(uint64_t))

static uint64_t checksum(const struct symcache_hdr *h, const void *body, size_t len)
{
	struct symcache_hdr z = *h;

	z.checksum = 0;
	return util_hash64(body, len, util_hash64(&z, sizeof(z), 0));
}

static size_t label_len(const struct symcache_key *k)
{
	return k->label ? strlen(k->label) : 0;
}

int symcache_encode(const struct elfsym *t, const struct symcache_key *k, uint64_t deps, void **bufp,
		    size_t *lenp)
{
	struct symcache_hdr h = { .magic = SYMCACHE_MAGIC, .version = SYMCACHE_VERSION, .hdr_size = sizeof(h) };
	size_t llen = t->nsynth ? label_len(k) : 0, dlen = t->debuglink ? strlen(t->debuglink) : 0, len;
	char *buf, *p;

	*bufp = NULL;
	if (t->nsyms == 0 || t->names_len == 0 || k->build_id_len == 0 || k->build_id_len > ELFSYM_BUILD_ID_MAX ||
	    t->nloads > ELFSYM_MAX_LOADS || (t->type != ET_EXEC && t->type != ET_DYN))
		return -EINVAL;
	if (t->nsyms > NSYMS_MAX || t->names_len > NAMES_MAX || llen > LABEL_MAX || dlen > DEBUGLINK_MAX)
		return -E2BIG;
	len = sizeof(h) + t->nloads * LOAD_BYTES + t->nsyms * sizeof(*t->syms) + t->names_len + llen + dlen;
	if ((buf = malloc(len)) == NULL)
		return -ENOMEM;
	p = buf + sizeof(h);
	for (size_t i = 0; i < t->nloads; i++) {
		const struct elfsym_load *l = &t->loads[i];
		uint64_t v[5] = { l->vaddr, l->offset, l->filesz, l->memsz, l->flags };

		memcpy(p, v, sizeof(v));
		p += sizeof(v);
	}
	memcpy(p, t->syms, t->nsyms * sizeof(*t->syms));
	p += t->nsyms * sizeof(*t->syms);
	memcpy(p, t->names, t->names_len);
	p += t->names_len;
	if (llen)
		memcpy(p, k->label, llen);
	p += llen;
	if (dlen)
		memcpy(p, t->debuglink, dlen);
	memcpy(h.build_id, k->build_id, k->build_id_len);
	h.build_id_len = (uint8_t)k->build_id_len;
	h.file_size = k->file_size;
	h.deps = deps;
	h.nsyms = (uint32_t)t->nsyms;
	h.nsynth = (uint32_t)t->nsynth;
	h.names_len = (uint32_t)t->names_len;
	h.nloads = (uint32_t)t->nloads;
	h.type = t->type;
	h.label_len = (uint16_t)llen;
	h.debuglink_len = (uint16_t)dlen;
	h.flags = (uint8_t)((t->from_dynsym ? F_DYNSYM : 0) | (t->minidebug ? F_MINIDEBUG : 0) |
			    (t->searched_debug ? F_SEARCHED : 0));
	h.checksum = checksum(&h, buf + sizeof(h), len - sizeof(h));
	memcpy(buf, &h, sizeof(h));
	*bufp = buf;
	*lenp = len;
	return 0;
}

void symcache_seal(void *buf, size_t len)
{
	struct symcache_hdr h;

	if (len < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	h.checksum = checksum(&h, (char *)buf + sizeof(h), len - sizeof(h));
	memcpy(buf, &h, sizeof(h));
}

static bool key_matches(const struct symcache_hdr *h, const char *label, const struct symcache_key *k)
{
	size_t llen = label_len(k);

	if (h->build_id_len != k->build_id_len || memcmp(h->build_id, k->build_id, k->build_id_len) != 0 ||
	    h->file_size != k->file_size)
		return false;
	/* The label names only the .eh_frame_hdr starts. */
	return h->nsynth == 0 || (h->label_len == llen && memcmp(label, k->label, llen) == 0);
}

int symcache_decode(struct elfsym **out, uint64_t *deps, void *map, size_t len, const struct symcache_key *k)
{
	const unsigned char *p = map, *loads;
	const char *names, *label, *debuglink;
	const struct elfsym_sym *syms;
	struct symcache_hdr h;
	struct elfsym *t;
	size_t want;

	*out = NULL;
	if (len < sizeof(h) || (uintptr_t)map % _Alignof(struct elfsym_sym))
		return -EBADMSG;
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, SYMCACHE_MAGIC, sizeof(h.magic)) != 0 || h.version != SYMCACHE_VERSION ||
	    h.hdr_size != sizeof(h))
		return -EBADMSG;
	if (h.nsyms == 0 || h.nsyms > NSYMS_MAX || h.nsynth > h.nsyms || h.names_len == 0 ||
	    h.names_len > NAMES_MAX || h.nloads > ELFSYM_MAX_LOADS || h.label_len > LABEL_MAX ||
	    h.debuglink_len > DEBUGLINK_MAX || h.build_id_len == 0 || h.build_id_len > ELFSYM_BUILD_ID_MAX ||
	    (h.flags & ~F_ALL) || (h.type != ET_EXEC && h.type != ET_DYN))
		return -EBADMSG;
	want = sizeof(h) + h.nloads * LOAD_BYTES + (size_t)h.nsyms * sizeof(struct elfsym_sym) + h.names_len +
	       h.label_len + h.debuglink_len;
	if (want != len || checksum(&h, p + sizeof(h), len - sizeof(h)) != h.checksum)
		return -EBADMSG;
	loads = p + sizeof(h);
	/* Aligned: the header and each segment are multiples of 8 bytes. */
	syms = (const struct elfsym_sym *)(const void *)(loads + h.nloads * LOAD_BYTES);
	names = (const char *)(syms + h.nsyms);
	label = names + h.names_len;
	debuglink = label + h.label_len;
	if (!key_matches(&h, label, k))
		return -ESTALE;
	if (names[h.names_len - 1] != '\0' || memchr(debuglink, '\0', h.debuglink_len) ||
	    memchr(debuglink, '/', h.debuglink_len))
		return -EBADMSG;
	/* What a load guarantees: ascending unique addresses, names in the
	 * arena (which ends in a NUL). */
	for (size_t i = 0; i < h.nsyms; i++)
		if ((i && syms[i].addr <= syms[i - 1].addr) || syms[i].name >= h.names_len)
			return -EBADMSG;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return -ENOMEM;
	if (h.debuglink_len && (t->debuglink = strndup(debuglink, h.debuglink_len)) == NULL) {
		free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h.nloads; i++) {
		uint64_t v[5];

		memcpy(v, loads + i * LOAD_BYTES, sizeof(v));
		t->loads[i] = (struct elfsym_load){ .vaddr = v[0], .offset = v[1], .filesz = v[2], .memsz = v[3],
						    .flags = (uint32_t)v[4] };
	}
	/* Used where they lie: a copy would fault in fresh pages (two of
	 * libc's table's three loads went to that). */
	t->syms = (struct elfsym_sym *)(uintptr_t)syms;
	t->nsyms = h.nsyms;
	t->names = (char *)(uintptr_t)names;
	t->names_len = h.names_len;
	t->map = map;
	t->map_len = len;
	t->nloads = h.nloads;
	t->type = h.type;
	t->from_dynsym = h.flags & F_DYNSYM;
	t->minidebug = h.flags & F_MINIDEBUG;
	t->searched_debug = h.flags & F_SEARCHED;
	memcpy(t->build_id, h.build_id, h.build_id_len);
	t->build_id_len = h.build_id_len;
	t->nsynth = h.nsynth;
	*deps = h.deps;
	*out = t;
	return 0;
}

/* BUILDID-SIZE in hex. */
static int entry_name(const struct symcache_key *k, char *buf, size_t len)
{
	size_t n = 0;

	if (k->build_id_len == 0 || k->build_id_len > ELFSYM_BUILD_ID_MAX || len < 2 * k->build_id_len + 18)
		return -EINVAL;
	for (size_t i = 0; i < k->build_id_len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%02x", k->build_id[i]);
	return util_pathf(buf + n, len - n, "-%llx", (unsigned long long)k->file_size);
}

int symcache_load(struct elfsym **out, uint64_t *deps, int dfd, const struct symcache_key *k)
{
	char name[2 * ELFSYM_BUILD_ID_MAX + 24];
	struct stat st;
	void *map;
	int fd, rc;

	*out = NULL;
	if ((rc = entry_name(k, name, sizeof(name))) != 0)
		return rc;
	if ((fd = cachedir_open_file(dfd, name, SYMCACHE_MAX_BYTES, &st)) < 0)
		return fd;
	if (st.st_size == 0) {
		close(fd);
		return -EBADMSG;
	}
	/* Mapped, populated at once (one call, not a fault per page). Runs
	 * replace an entry by a rename, never in place, so what was checked
	 * stays what the mapping shows. */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	rc = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	if ((rc = symcache_decode(out, deps, map, (size_t)st.st_size, k)) != 0)
		munmap(map, (size_t)st.st_size);
	return rc;
}

int symcache_store(const struct elfsym *t, int dfd, const struct symcache_key *k, uint64_t deps)
{
	char name[2 * ELFSYM_BUILD_ID_MAX + 24];
	void *buf;
	size_t len;
	int rc;

	if ((rc = entry_name(k, name, sizeof(name))) != 0 || (rc = symcache_encode(t, k, deps, &buf, &len)) != 0)
		return rc;
	rc = len > SYMCACHE_MAX_BYTES ? -E2BIG : cachedir_replace(dfd, name, buf, len);
	free(buf);
	return rc;
}

struct aged {
	struct timespec mtime;
	char name[64];
};

static int older_first(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t symcache_prune(int dfd, size_t keep)
{
	struct aged *v = NULL, *nv;
	size_t n = 0, cap = 0, gone = 0;
	struct dirent *de;
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(dir);
	while ((de = readdir(dir)) != NULL) {
		struct stat st;

		/* Entries only: not ".", "..", nor another run's temporary file. */
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(v->name) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				goto out;
			v = nv;
		}
		v[n].mtime = st.st_mtim;
		strcpy(v[n].name, de->d_name);
		n++;
	}
	if (n > keep) {
		qsort(v, n, sizeof(*v), older_first);
		for (size_t i = 0; i < n - keep; i++)
			gone += unlinkat(dfd, v[i].name, 0) == 0;
	}
out:
	closedir(dir);
	free(v);
	return gone;
}
