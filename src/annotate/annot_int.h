/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_int: what the annotate layer's modules share. Internal. */
#ifndef PERFTOP_ANNOT_INT_H
#define PERFTOP_ANNOT_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "annotate.h"
#include "htab.h"

/* A function's bytes read at most (a 10 000-instruction function is ~40 KiB). */
#define ANNOT_MAX_BYTES (1u << 20)
#if defined(__aarch64__)
#define ANNOT_HOST_MACHINE 183 /* EM_AARCH64: JIT and kcore code is the host's */
#else
#define ANNOT_HOST_MACHINE 62  /* EM_X86_64 */
#endif

/* Bytes taken when nothing says how long the function is. */
#define ANNOT_GUESS_BYTES 4096

/* Names of a file's functions (or the kernel's), sorted by address. */
struct annot_sym {
	uint64_t addr, size;   /* size 0: up to the next one */
	const char *name;
};
struct annot_symtab {
	struct annot_sym *syms;
	size_t n;
	char *names;           /* one block: the names */
};

/* Where a target's code was found. */
struct annot_code {
	uint8_t *bytes;        /* the caller frees */
	size_t len;
	uint64_t start;        /* the address of bytes[0] (t->start) */
	uint16_t machine;      /* EM_X86_64, EM_AARCH64 */
	char path[PATH_MAX];   /* the ELF file read ("" for memory, /proc/kcore): its lines, its names */
	char origin[PATH_MAX + 32];
	char lacks[PATH_MAX + 96]; /* what the source of the bytes cannot give ("" none) */
	uint64_t file_bias;    /* file vaddr = address - file_bias (vmlinux under KASLR) */
	uint64_t dev, ino;     /* the file's identity when read from a file */
	bool jit, kernel;
};

struct annot_cache {
	struct annot_opts o;
	char *proc_root, *vmlinux, *kcore, *kallsyms, *jit_dir;
	struct srcline_cache *lines;
	struct htab funcs;      /* key hash -> struct annot_entry * */
	struct htab strs;       /* interned strings: hash -> char * */
	struct htab sources;    /* source files: hash -> struct annot_src * */
	struct htab symtabs;    /* files' names: dev ^ ino hash -> struct annot_symfile * */
	struct annot_symtab *ksyms; /* kallsyms, read once when needed */
	bool ksyms_tried;
	int64_t kaslr;          /* -k: running address - vmlinux address */
	bool kaslr_known;
	char *debug_root;       /* "/usr/lib/debug" */
	char *kdebug;           /* a debug vmlinux of this kernel (its lines), NULL none */
	int64_t kdebug_kaslr;
	bool kdebug_tried;
	void *dis;              /* annot_disasm's handles */
};

/* annot_phdr: the PT_LOAD segment of an ELF64 (little-endian) file holding
 * [addr, addr + len) by vaddr, from its first hlen bytes (header and
 * program headers): the file offset into *off, 0; -ENOENT when no segment
 * holds it all (*avail then says how many bytes from addr one holds, 0
 * none), -ENOEXEC for a header that is not one. */
int annot_phdr_map(const void *hdr, size_t hlen, uint64_t addr, uint64_t len, uint64_t *off,
		   uint64_t *avail);
/* e_machine of that header, 0 when not an ELF64 header. */
uint16_t annot_phdr_machine(const void *hdr, size_t hlen);
/* The header and program headers of fd into *hdr (the caller frees): its
 * length, or -errno. */
ssize_t annot_phdr_read(int fd, void **hdr);

/* annot_jitmap: the size perf-PID.map text gives the function starting
 * at addr (its latest line), 0 none; and the same read from the file. */
uint64_t annot_jitmap_parse(const char *buf, size_t len, uint64_t addr);
uint64_t annot_jitmap_len(const char *path, uint64_t addr);

/* annot_bytes: the device and inode of t's file: as the process maps it
 * (its maps), else as its path is now; false when neither is known. */
bool annot_bytes_ident(struct annot_cache *c, const struct annot_target *t, uint64_t *dev, uint64_t *ino);
/* annot_phdr: len bytes at addr of the ELF file (or kcore) fd, by its program headers,
 * into code (bytes, len, machine); guess: len is a guess, take what the
 * segment holds. 0, -EFAULT (no segment holds it), -errno. */
int annot_phdr_read_at(int fd, uint64_t addr, uint64_t len, bool guess, struct annot_code *code);
/* len, at most ANNOT_MAX_BYTES. */
uint64_t annot_phdr_bound(uint64_t len);

/* annot_kernel: kernel code: from -k's vmlinux, else /proc/kcore (with
 * source lines from a debug vmlinux when one is installed). */
int annot_kernel_bytes(struct annot_cache *c, const struct annot_target *t, struct annot_code *code, char *why,
		       size_t whylen);

/* annot_bytes: t's code. 0, or -errno with one line in why. */
int annot_bytes_get(struct annot_cache *c, const struct annot_target *t, struct annot_code *code, char *why,
		    size_t whylen);

/* annot_syms: names of functions. */
struct annot_symtab *annot_syms_elf(int fd);
struct annot_symtab *annot_syms_kallsyms(const char *path);
void annot_syms_free(struct annot_symtab *t);
/* The symbol holding addr, or NULL. */
const struct annot_sym *annot_syms_find(const struct annot_symtab *t, uint64_t addr);
/* The value of the symbol called name (any type) in the ELF file fd, 0 none. */
uint64_t annot_syms_elf_value(int fd, const char *name);
/* The symbol called name, or NULL (a walk: not for the hot path). */
const struct annot_sym *annot_syms_named(const struct annot_symtab *t, const char *name);
/* How long the function at addr is: its size, else up to the next one, 0 unknown. */
uint64_t annot_syms_len(const struct annot_symtab *t, uint64_t addr);
/* The names of the file at path (dev, ino), read once per cache. */
const struct annot_symtab *annot_syms_of_file(struct annot_cache *c, const char *path);
/* The kernel's (kallsyms), read once per cache; NULL when unreadable. */
const struct annot_symtab *annot_syms_kernel(struct annot_cache *c);
/* Frees what the two above kept. */
void annot_syms_drop(struct annot_cache *c);

/* annot_disasm: code's instructions into *insn (the caller frees), names of
 * call targets from names (NULL: none, bias: names' address = insn address
 * - bias). Returns how many, or -errno. */
long annot_disasm(struct annot_cache *c, const struct annot_code *code, const struct annot_symtab *names,
		  uint64_t bias, struct annot_insn **insn);
void annot_disasm_free(struct annot_cache *c);

/* annot_str: a string kept until the cache is freed, one copy of each. */
const char *annot_str_intern(struct annot_cache *c, const char *s);
void annot_str_free(struct annot_cache *c);

/* annot_source: the cache of source files. */
void annot_source_free(struct annot_cache *c);

#endif
