/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annotate: a symbol of a file turned into its instructions (capstone),
 * each with its source line (srcline) when the DWARF says, cached per (file
 * identity, symbol). Code bytes come from the same file identity the
 * symbols came from (/proc/PID/root, /proc/PID/map_files for a deleted
 * file, the build-id's file), the kernel's from /proc/kcore or a vmlinux
 * (-k), JIT code (perf-PID.map) from the live process's memory. Never on
 * the sample path: the first annot_get of a symbol reads and disassembles
 * it. Not thread-safe: one caller (the session's owner). */
#ifndef PERFTOP_ANNOTATE_H
#define PERFTOP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct annot_opts {
	bool intel;            /* -M intel: Intel syntax, else AT&T */
	const char *vmlinux;   /* -k FILE: the kernel's code from it, else /proc/kcore */
	bool source;           /* --source (the default): source lines joined */
	const char *proc_root; /* "/proc" when NULL */
	const char *debug_root; /* "/usr/lib/debug" when NULL */
	const char *kcore;     /* "/proc/kcore" when NULL (tests: a file of their own) */
	const char *kallsyms;  /* "/proc/kallsyms" when NULL */
	const char *jit_dir;   /* where perf-PID.map files are: "/tmp" when NULL */
};

/* Which code to annotate, as the symbols resolved it. */
struct annot_target {
	const char *sym;           /* its name as shown ("main", "do_syscall_64") */
	const char *dso;           /* its file as the process sees it, "[kernel.kallsyms]", "[fooko]" */
	const uint8_t *build_id;   /* the file's, NULL when unknown */
	size_t build_id_len;
	pid_t pid;                 /* a process mapping it (/proc/PID/root, map_files, JIT memory); 0 none */
	uint64_t start, size;      /* user code: the file's vaddr (ELF st_value), JIT: the address;
				    * kernel code: the kernel address; size 0 unknown */
	bool kernel;
};

enum annot_kind { ANNOT_PLAIN, ANNOT_CALL, ANNOT_JUMP, ANNOT_RET };

struct annot_insn {
	uint64_t offset;       /* bytes from the symbol's start */
	uint64_t addr;         /* start + offset */
	uint8_t len;
	uint8_t bytes[16];
	char text[112];        /* "mnemonic operands", sanitised */
	enum annot_kind kind;
	bool target_in_func;   /* a call or jump whose target is known and in this function */
	bool has_target;       /* the target (direct branch) is known */
	uint64_t target_off;   /* bytes from start, when target_in_func */
	uint64_t target_addr;  /* when has_target */
	const char *callee;    /* a call's target's name when known, else NULL */
	const char *file;      /* source file, NULL: none */
	unsigned line;         /* 0: none */
};

struct annot_func {
	const char *sym, *dso;
	uint64_t start, size;
	size_t ninsn;
	const struct annot_insn *insn;
	/* One line of what is missing, NULL when nothing: "no debug info for
	 * X: no source lines", "code from /proc/kcore", "JIT code from
	 * /tmp/perf-PID.map: bytes from the live process" */
	const char *lacks;
	const char *origin;    /* where the bytes came from (a path, "/proc/kcore", "memory of PID") */
	bool jit, kernel;
};

struct annot_cache;

struct annot_cache *annot_cache_new(const struct annot_opts *o);
void annot_cache_free(struct annot_cache *c);

/* The annotation of t, from the cache or made now (file reads,
 * disassembly: milliseconds, never per sample). NULL with one line in why
 * (cause and fix) when it cannot be made. Valid until annot_cache_free. */
const struct annot_func *annot_get(struct annot_cache *c, const struct annot_target *t, char *why,
				   size_t whylen);

/* The instruction at offset off of f, or NULL (a binary search). */
const struct annot_insn *annot_insn_at(const struct annot_func *f, uint64_t off);

/* The text of line (1-based) of the source file file, sanitised, or NULL
 * when the file is unreadable or shorter. Each file read once. */
const char *annot_source_text(struct annot_cache *c, const char *file, unsigned line);

/* Whether source lines are joined (--source / --no-source). */
bool annot_source_on(const struct annot_cache *c);

#endif
