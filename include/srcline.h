/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srcline: which source line an instruction came from, from the DWARF line
 * table (libdw) of the file or of its separate debug file (found as the
 * symbols find theirs: build-id, then .gnu_debuglink). One open DWARF per
 * file identity, kept; a memo of single lookups. Never on the sample path:
 * the first lookup in a file reads its line tables. */
#ifndef PERFTOP_SRCLINE_H
#define PERFTOP_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct srcline_cache;

/* One row of a function's line table: the instructions from addr on came
 * from file:line. file stays valid until srcline_cache_free. */
struct srcline_row {
	uint64_t addr;
	const char *file;
	unsigned line;
};

/* debug_root: where separate debug files live (NULL: "/usr/lib/debug").
 * NULL when out of memory. */
struct srcline_cache *srcline_cache_new(const char *debug_root);
void srcline_cache_free(struct srcline_cache *c);

/* The line table of the ELF file at path (a path this process can open:
 * /proc/PID/root/..., /proc/PID/map_files/...), whose build-id is build_id
 * (len 0: read from the file). Opened once per identity (build-id, else
 * device and inode). NULL with one line in why when it has no line table
 * ("no debug info for /usr/bin/foo: no source lines"). The handle lives as
 * long as the cache. */
struct srcline_file *srcline_open(struct srcline_cache *c, const char *path, const uint8_t *build_id,
				  size_t build_id_len, char *why, size_t whylen);

/* The rows for [start, end) of f's file vaddrs, in address order: *rows is
 * the caller's to free. Returns how many, 0 when none, -errno. */
long srcline_range(struct srcline_file *f, uint64_t start, uint64_t end, struct srcline_row **rows);

/* The source line of file vaddr addr: false when the table has none. */
bool srcline_find(struct srcline_file *f, uint64_t addr, const char **file, unsigned *line);

/* The cheap one: "file:line" (file's base name unless full) of vaddr addr
 * in the file at path, into out (empty when unknown). Remembered per
 * (file, address): a repeat costs one hash lookup. False when unknown. */
bool srcline_addr(struct srcline_cache *c, const char *path, const uint8_t *build_id, size_t build_id_len,
		  uint64_t addr, bool full, char *out, size_t len);
/* The same for a file offset (what a mapping's pgoff gives), turned into
 * the vaddr by the file's PT_LOAD headers. */
bool srcline_addr_off(struct srcline_cache *c, const char *path, const uint8_t *build_id,
		      size_t build_id_len, uint64_t off, bool full, char *out, size_t len);

/* The GNU build-id of the ELF file open at fd (the identity srcline keys
 * files by, as the symbols read it): its length into out, 0 when it has
 * none, or -errno. */
#define SRCLINE_BUILD_ID_MAX 20
int srcline_build_id(int fd, uint8_t out[SRCLINE_BUILD_ID_MAX]);

#endif
