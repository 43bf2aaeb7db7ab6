/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kcache: the kernel's parsed symbols kept on disk between runs, so that a
 * repeat start does not have the kernel format all of /proc/kallsyms.
 *
 * The cache is keyed by what identifies the kernel's text as this process
 * sees it: the build-id (/sys/kernel/notes) and the first whole lines of
 * kallsyms (the load address, after KASLR, and the view: an unprivileged
 * reader sees zeros, which are never cached). Module symbols are kept only
 * for modules /proc/modules shows at the same address and size as when the
 * cache was written; BPF programs, ftrace trampolines and modules loaded
 * since are not cached and come from a full read on demand. A file that is
 * not ours, not 0600, or fails any check is ignored and rebuilt. */
#ifndef PERFTOP_KCACHE_H
#define PERFTOP_KCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kallsyms.h"

#define KCACHE_BUILD_ID_MAX 20
#define KCACHE_HEAD_MAX 4096      /* bytes of kallsyms read for the key */
#define KCACHE_MODNAME_MAX 64
#define KCACHE_FILE "kallsyms"    /* the cache's name in its directory */
#define KCACHE_MAX_BYTES ((size_t)64 << 20)

struct kcache_key {
	uint8_t build_id[KCACHE_BUILD_ID_MAX];
	uint8_t build_id_len;     /* 0: no build-id, no cache */
	uint32_t head_len;        /* whole lines in the first read of kallsyms */
	uint64_t head_hash;
	bool restricted;          /* those lines' addresses all read as 0 */
};

struct kcache_module {
	char name[KCACHE_MODNAME_MAX]; /* without the brackets kallsyms adds */
	uint64_t addr, size;           /* addr 0: hidden from this reader */
};

struct kcache_modules {
	struct kcache_module *v;
	size_t n;
};

/* The key: 0, or -errno when kallsyms cannot be read (-ENODATA when its
 * first lines are no kallsyms). A missing or unreadable notes file leaves
 * build_id_len 0. */
int kcache_key_read(struct kcache_key *k, const char *notes_path, const char *kallsyms_path);

/* /proc/modules as a list; a missing file (no module support) is an empty
 * list. 0 or -errno. */
int kcache_modules_read(struct kcache_modules *m, const char *path);
int kcache_modules_parse(struct kcache_modules *m, const char *buf, size_t len);
void kcache_modules_free(struct kcache_modules *m);
bool kcache_modules_equal(const struct kcache_modules *a, const struct kcache_modules *b);

/* The cache's bytes for ks under key k, module symbols only of the modules
 * m shows at a known address. 0 or -errno (-EINVAL for a lazy table:
 * its records are in its file); *buf is malloc'd. */
int kcache_encode(const struct kallsyms *ks, const struct kcache_key *k, const struct kcache_modules *m,
		  void **buf, size_t *len);
/* A table from the cache's bytes, if they are whole, of key k, and
 * consistent; symbols of modules that m no longer shows where they were
 * are left out. The table may lie in buf: buf outlives it. 0, -ESTALE
 * (another key), -EBADMSG (corrupt) or -ENOMEM. */
int kcache_decode(struct kallsyms **out, const void *buf, size_t len, const struct kcache_key *k,
		  const struct kcache_modules *m);

/* Sets the checksum of a cache's bytes to what they hold, so that a fuzzer
 * reaches the checks behind it. Does nothing to fewer bytes than a header. */
void kcache_seal(void *buf, size_t len);


/* Where a cache's parts lie, from its header: 0, or -EBADMSG when its
 * counts cannot be a cache's. For tests and the fuzzer, which damage the
 * records in place. */
struct kcache_layout {
	size_t nindex, nblocks;      /* strides of records, blocks of names */
	size_t index_off, shash_off, bhash_off, mods_off, modnames_off, syms_off, names_off, len;
};
int kcache_layout(const void *buf, size_t len, struct kcache_layout *l);
/* The table of the cache file fd (len bytes) read as lookups reach it
 * (kallsyms_lazy_open): only its header, index and hashes are read now.
 * 0, -ESTALE, -EBADMSG, -ENOMEM, or -EAGAIN when modules moved since it
 * was written (kcache_decode then takes the part still valid). */
int kcache_open_lazy(struct kallsyms **out, int fd, size_t len, const struct kcache_key *k,
		     const struct kcache_modules *m);
/* dir/KCACHE_FILE, if it is a regular file of ours, mode 0600, and decodes
 * under k. 0 or -errno. */
int kcache_load(struct kallsyms **out, const char *dir, const struct kcache_key *k,
		const struct kcache_modules *m);
/* Writes dir/KCACHE_FILE through a temporary file and a rename, creating
 * dir (0700) if needed; a dir not ours or open to others is refused
 * (-EPERM). 0 or -errno. */
int kcache_store(const struct kallsyms *ks, const char *dir, const struct kcache_key *k,
		 const struct kcache_modules *m);

#endif
