/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot: the cache of annotations, one per (file identity, symbol): the
 * bytes (annot_bytes), their instructions (annot_disasm) and the source
 * line of each (srcline), joined once and kept for the session. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "annot_int.h"
#include "sanitize.h"
#include "srcline.h"
#include "util.h"

struct annot_entry {
	char *key;
	struct annot_func f;
	struct annot_insn *insn;
};

static char *dup_or(const char *s, const char *dflt)
{
	return strdup(s ? s : dflt);
}

struct annot_cache *annot_cache_new(const struct annot_opts *o)
{
	struct annot_cache *c = calloc(1, sizeof(*c));
	static const struct annot_opts none = { .source = true };

	if (c == NULL)
		return NULL;
	c->o = o ? *o : none;
	c->proc_root = dup_or(c->o.proc_root, "/proc");
	c->vmlinux = c->o.vmlinux ? strdup(c->o.vmlinux) : NULL;
	c->kcore = dup_or(c->o.kcore, "/proc/kcore");
	c->kallsyms = dup_or(c->o.kallsyms, "/proc/kallsyms");
	c->jit_dir = dup_or(c->o.jit_dir, "/tmp");
	c->debug_root = dup_or(c->o.debug_root, "/usr/lib/debug");
	c->lines = srcline_cache_new(c->o.debug_root);
	if (!c->debug_root || !c->proc_root || (c->o.vmlinux && !c->vmlinux) || !c->kcore || !c->kallsyms || !c->jit_dir || !c->lines) {
		annot_cache_free(c);
		return NULL;
	}
	/* Ours now, not the caller's. */
	c->o.proc_root = c->proc_root;
	c->o.vmlinux = c->vmlinux;
	c->o.kcore = c->kcore;
	c->o.kallsyms = c->kallsyms;
	c->o.jit_dir = c->jit_dir;
	c->o.debug_root = c->debug_root;
	return c;
}

void annot_cache_free(struct annot_cache *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; c->funcs.tab && i <= c->funcs.mask; i++) {
		struct annot_entry *e = (struct annot_entry *)c->funcs.tab[i].val;

		if (e) {
			free(e->key);
			free(e->insn);
			free(e);
		}
	}
	htab_free(&c->funcs);
	annot_str_free(c);
	annot_source_free(c);
	annot_syms_drop(c);
	annot_disasm_free(c);
	srcline_cache_free(c->lines);
	free(c->proc_root);
	free(c->vmlinux);
	free(c->kcore);
	free(c->kallsyms);
	free(c->jit_dir);
	free(c->debug_root);
	free(c->kdebug);
	free(c);
}

bool annot_source_on(const struct annot_cache *c)
{
	return c->o.source;
}

static const char *intern_clean(struct annot_cache *c, const char *s)
{
	char buf[PATH_MAX + 256];

	sanitize(buf, sizeof(buf), s ? s : "");
	return annot_str_intern(c, buf);
}

/* What the code is, whatever its path: the build-id, else the file's
 * device and inode (as the process maps it), then the symbol. */
static void identity(struct annot_cache *c, const struct annot_target *t, char *key, size_t len)
{
	char id[2 * SRCLINE_BUILD_ID_MAX + 64] = "";
	uint64_t dev, ino;
	int n = 0;

	if (t->kernel) {
		snprintf(id, sizeof(id), "K");
	} else if (t->build_id_len && t->build_id_len <= SRCLINE_BUILD_ID_MAX) {
		n = snprintf(id, sizeof(id), "B");
		for (size_t i = 0; i < t->build_id_len; i++)
			n += snprintf(id + n, sizeof(id) - (size_t)n, "%02x", t->build_id[i]);
	} else if (annot_bytes_ident(c, t, &dev, &ino)) {
		snprintf(id, sizeof(id), "I%" PRIx64 ":%" PRIx64, dev, ino);
	} else {
		snprintf(id, sizeof(id), "P%d", (int)t->pid);
	}
	snprintf(key, len, "%s:%s:%" PRIx64 ":%" PRIx64 ":%s", id, t->dso, t->start, t->size, t->sym);
}

/* Each instruction's source line, from the rows of its function. */
static void join_lines(struct annot_cache *c, struct annot_insn *insn, size_t n, const struct srcline_row *rows,
		       size_t nrows, uint64_t bias)
{
	const char *last_raw = NULL, *last = NULL;
	size_t r = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = insn[i].addr - bias;

		while (r < nrows && rows[r].addr <= a)
			r++;
		if (r == 0)
			continue;
		if (rows[r - 1].file != last_raw) {
			last_raw = rows[r - 1].file;
			last = intern_clean(c, last_raw);
		}
		insn[i].file = last;
		insn[i].line = last ? rows[r - 1].line : 0;
	}
}

/* Source lines for e's instructions; what is missing into lacks. */
static void add_lines(struct annot_cache *c, const struct annot_target *t, const struct annot_code *code,
		      struct annot_entry *e, char *lacks, size_t lackslen)
{
	struct srcline_file *f;
	struct srcline_row *rows;
	char why[PATH_MAX + 64];
	long nrows;

	if (!c->o.source || code->jit || code->path[0] == '\0')
		return;
	f = srcline_open(c->lines, code->path, t->kernel ? NULL : t->build_id, t->kernel ? 0 : t->build_id_len, why,
			 sizeof(why));
	if (f == NULL) {
		/* The user's name for the file, not the /proc path read. */
		if (strncmp(why, "no debug info for ", 18) == 0)
			snprintf(why, sizeof(why), "no debug info for %s: no source lines", t->dso);
		snprintf(lacks + strlen(lacks), lackslen - strlen(lacks), "%s%s", lacks[0] ? "; " : "", why);
		return;
	}
	nrows = srcline_range(f, code->start - code->file_bias, code->start - code->file_bias + code->len, &rows);
	if (nrows <= 0) {
		snprintf(lacks + strlen(lacks), lackslen - strlen(lacks), "%sno source lines for %s", lacks[0] ? "; " : "",
			 t->sym);
		return;
	}
	join_lines(c, e->insn, e->f.ninsn, rows, (size_t)nrows, code->file_bias);
	free(rows);
}

static struct annot_entry *make(struct annot_cache *c, const struct annot_target *t, char *why, size_t whylen)
{
	struct annot_code code;
	struct annot_entry *e;
	const struct annot_symtab *names;
	char lacks[sizeof(code.lacks) + PATH_MAX + 64];
	long n;
	int rc;

	if ((rc = annot_bytes_get(c, t, &code, why, whylen)) != 0)
		return NULL;
	if ((e = calloc(1, sizeof(*e))) == NULL) {
		free(code.bytes);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	names = code.kernel ? annot_syms_kernel(c) : code.jit ? NULL : annot_syms_of_file(c, code.path);
	n = annot_disasm(c, &code, names, 0, &e->insn);
	if (n < 0) {
		snprintf(why, whylen, "cannot disassemble %s: %s", t->sym,
			 n == -ENOEXEC ? "not x86-64 or arm64 code" : strerror((int)-n));
		free(code.bytes);
		free(e);
		return NULL;
	}
	e->f.ninsn = (size_t)n;
	e->f.insn = e->insn;
	snprintf(lacks, sizeof(lacks), "%s", code.lacks);
	add_lines(c, t, &code, e, lacks, sizeof(lacks));
	e->f.sym = intern_clean(c, t->sym);
	e->f.dso = intern_clean(c, t->dso);
	e->f.start = t->start;
	e->f.size = code.len;
	e->f.lacks = lacks[0] ? intern_clean(c, lacks) : NULL;
	e->f.origin = intern_clean(c, code.origin);
	e->f.jit = code.jit;
	e->f.kernel = code.kernel;
	free(code.bytes);
	return e;
}

const struct annot_func *annot_get(struct annot_cache *c, const struct annot_target *t, char *why,
				   size_t whylen)
{
	char key[PATH_MAX + 512];
	struct annot_entry *e;
	uint64_t h;

	if (whylen)
		why[0] = '\0';
	if (c == NULL || t == NULL || t->sym == NULL || t->dso == NULL) {
		snprintf(why, whylen, "nothing to annotate");
		return NULL;
	}
	identity(c, t, key, sizeof(key));
	h = util_hash64(key, strlen(key), 2);
	for (size_t i = htab_first(&c->funcs, h); i != SIZE_MAX; i = htab_next(&c->funcs, h, i)) {
		e = (struct annot_entry *)c->funcs.tab[i].val;
		if (strcmp(e->key, key) == 0)
			return &e->f;
	}
	if ((e = make(c, t, why, whylen)) == NULL)
		return NULL;
	if ((e->key = strdup(key)) == NULL || htab_put(&c->funcs, h, (uintptr_t)e)) {
		free(e->key);
		free(e->insn);
		free(e);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	return &e->f;
}

const struct annot_insn *annot_insn_at(const struct annot_func *f, uint64_t off)
{
	size_t lo = 0, hi = f ? f->ninsn : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->insn[mid].offset + f->insn[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (f ? f->ninsn : 0) && f->insn[lo].offset <= off ? &f->insn[lo] : NULL;
}
