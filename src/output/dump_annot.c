/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump_annot: --sym-annotate's part of each interval: the named symbols'
 * instructions (annotate layer) with their samples by offset (agg's
 * per-instruction counts, of the first event, in the interval), as
 * `perf annotate --stdio` lays them out, or as JSON. The names are wanted
 * from the dump's start (dump_annot_begin), so counts cover every sample. */
#include "dump_annot.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "json.h"
#include "sanitize.h"

/* The names of --sym-annotate's arguments, split at commas, into buf. */
static size_t names(const struct options *o, char buf[][NAME_MAX_OUT], size_t max)
{
	size_t n = 0;

	for (size_t i = 0; o && i < o->nsym_annotate; i++) {
		const char *p = o->sym_annotate[i];

		while (*p && n < max) {
			size_t len = strcspn(p, ",");

			if (len >= NAME_MAX_OUT)
				len = NAME_MAX_OUT - 1;
			memcpy(buf[n], p, len);
			buf[n++][len] = '\0';
			p += strcspn(p, ",");
			p += *p == ',';
		}
	}
	return n;
}

int dump_annot_begin(const struct session *s)
{
	char nm[OPTIONS_SYM_ANNOTATE_MAX][NAME_MAX_OUT];
	size_t n = names(s->opts, nm, OPTIONS_SYM_ANNOTATE_MAX);

	for (size_t i = 0; i < n; i++) {
		int rc = agg_annot_want_name(s->agg, nm[i], true);

		if (rc)
			return rc;
	}
	return 0;
}

/* One symbol's annotation as both writers need it. */
struct annot_out {
	const struct agg_sym *row;
	const struct annot_func *fn;   /* NULL: why says what failed */
	char why[256];
	const struct agg_annot_count *cnt;
	size_t ncnt;
	uint64_t samples;              /* the instructions' in all */
};

/* The samples of insn i: the count at its offset (cursor *k walks the
 * sorted counts alongside the instructions). A sampled IP is where an
 * instruction starts; a count elsewhere (code the disassembly misread)
 * is in the symbol's samples but in no line, as perf annotate has it. */
static uint64_t insn_samples(const struct annot_out *o, size_t i, size_t *k)
{
	uint64_t off = o->fn->insn[i].offset;

	while (*k < o->ncnt && o->cnt[*k].offset < off)
		++*k;
	return *k < o->ncnt && o->cnt[*k].offset == off ? o->cnt[*k].samples : 0;
}

/* The rows of the wanted names with samples this interval, each with its
 * annotation; fn(arg, o) for each. */
static void each(struct dctx *c, void (*fn)(struct dctx *c, struct annot_out *o, void *arg), void *arg)
{
	char nm[OPTIONS_SYM_ANNOTATE_MAX][NAME_MAX_OUT];
	size_t nn = names(c->s->opts, nm, OPTIONS_SYM_ANNOTATE_MAX), nrows;
	const struct agg_sym **rows, **mine;
	struct annot_out o;

	if (nn == 0)
		return;
	nrows = agg_symbols_in_scope(c->a, AGG_INTERVAL, &rows);
	/* A copy: agg_annot_counts may invalidate the array. */
	if ((mine = calloc(nrows ? nrows : 1, sizeof(*mine))) == NULL)
		return;
	memcpy(mine, rows, nrows * sizeof(*rows));
	for (size_t i = 0; i < nrows; i++) {
		const struct agg_sym *r = mine[i];
		struct annot_target t;
		size_t k;

		for (k = 0; k < nn && strcmp(nm[k], r->sym) != 0; k++)
			;
		if (k == nn || r->iv.samples[0] == 0)
			continue;
		o = (struct annot_out){ .row = r };
		o.ncnt = agg_annot_counts(c->a, r->key, 0, AGG_INTERVAL, &o.cnt, NULL);
		for (size_t j = 0; j < o.ncnt; j++)
			o.samples += o.cnt[j].samples;
		t = (struct annot_target){ .sym = r->sym, .dso = r->dso, .pid = r->pid, .start = r->start,
					   .size = r->size, .kernel = r->kernel,
					   .build_id = r->build_id_len ? r->build_id : NULL,
					   .build_id_len = r->build_id_len };
		o.fn = c->s->annot ? annot_get(c->s->annot, &t, o.why, sizeof(o.why)) : NULL;
		if (o.fn == NULL && o.why[0] == '\0')
			snprintf(o.why, sizeof(o.why), "no annotation");
		fn(c, &o, arg);
	}
	free(mine);
}

static void source_ref(char *buf, size_t len, const struct annot_insn *in)
{
	char file[NAME_MAX_OUT];

	if (in->file == NULL || in->line == 0) {
		buf[0] = '\0';
		return;
	}
	sanitize(file, sizeof(file), in->file);
	snprintf(buf, len, "%s:%u", file, in->line);
}

/* --- text ------------------------------------------------------------------- */

static void text_one(struct dctx *c, struct annot_out *o, void *arg)
{
	char sym[NAME_MAX_OUT], dso[NAME_MAX_OUT], src[NAME_MAX_OUT + 16], last[NAME_MAX_OUT + 16] = "";
	FILE *f = c->f;
	size_t k = 0;

	(void)arg;
	sanitize(sym, sizeof(sym), o->row->sym);
	sanitize(dso, sizeof(dso), o->row->dso);
	fprintf(f, "\n Percent |\tSource code & Disassembly of %s in %s for %s (%" PRIu64 " samples)\n", sym, dso,
		c->evs[0].name, o->samples);
	fputs("-------------------------------------------------------------------------------\n", f);
	if (o->fn == NULL) {
		sanitize(src, sizeof(src), o->why);
		fprintf(f, "         :   %s\n", src);
		return;
	}
	if (o->fn->lacks) {
		sanitize(src, sizeof(src), o->fn->lacks);
		fprintf(f, "         :   (%s)\n", src);
	}
	for (size_t i = 0; i < o->fn->ninsn; i++) {
		const struct annot_insn *in = &o->fn->insn[i];
		uint64_t n = insn_samples(o, i, &k);
		char text[sizeof(in->text)];

		source_ref(src, sizeof(src), in);
		if (src[0] && strcmp(src, last) != 0) {
			const char *line = in->file ? annot_source_text(c->s->annot, in->file, in->line) : NULL;
			char body[512];

			sanitize(body, sizeof(body), line ? line : "");
			fprintf(f, "         :   %s   %s\n", src, body);
			memcpy(last, src, sizeof(last));
		}
		sanitize(text, sizeof(text), in->text);
		if (n)
			fprintf(f, "%8.2f :   %" PRIx64 ":   %s\n", 100.0 * (double)n / (double)o->samples, in->addr, text);
		else
			fprintf(f, "    0.00 :   %" PRIx64 ":   %s\n", in->addr, text);
	}
}

void dump_annot_stats_text(struct dctx *c)
{
	struct agg_annot_stats st;

	agg_annot_stats(c->a, &st);
	fprintf(c->f, "Annotate counts: symbols %zu  offsets %zu  %zu KiB (bound %zu KiB)  dropped %" PRIu64 "\n",
		st.records, st.offsets, st.bytes / 1024, agg_annot_bytes_max(c->nev) / 1024, st.dropped);
}

void dump_annot_text(struct dctx *c)
{
	each(c, text_one, NULL);
}

/* --- JSON ------------------------------------------------------------------- */

static void json_one(struct dctx *c, struct annot_out *o, void *arg)
{
	struct json *j = arg;
	char hex[24], src[NAME_MAX_OUT + 16];
	size_t k = 0;

	json_obj_begin(j, NULL);
	json_str(j, "symbol", o->row->sym);
	json_str(j, "dso", o->row->dso);
	json_str(j, "event", c->evs[0].name);
	json_u64(j, "samples", o->samples);
	if (o->fn == NULL)
		json_str(j, "error", o->why);
	else if (o->fn->lacks)
		json_str(j, "lacks", o->fn->lacks);
	json_arr_begin(j, "lines");
	for (size_t i = 0; o->fn && i < o->fn->ninsn; i++) {
		const struct annot_insn *in = &o->fn->insn[i];
		uint64_t n = insn_samples(o, i, &k);

		json_obj_begin(j, NULL);
		json_u64(j, "offset", in->offset);
		snprintf(hex, sizeof(hex), "%#" PRIx64, in->addr);
		json_str(j, "addr", hex);
		json_u64(j, "samples", n);
		json_double(j, "share", o->samples ? 100.0 * (double)n / (double)o->samples : 0.0, 2);
		json_str(j, "asm", in->text);
		source_ref(src, sizeof(src), in);
		if (src[0])
			json_str(j, "source", src);
		else
			json_null(j, "source");
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void dump_annot_json(struct dctx *c, struct json *j)
{
	if (c->m->stats) {
		struct agg_annot_stats st;

		agg_annot_stats(c->a, &st);
		json_obj_begin(j, "annotate_counts");
		json_u64(j, "symbols", st.records);
		json_u64(j, "offsets", st.offsets);
		json_u64(j, "bytes", st.bytes);
		json_u64(j, "bytes_max", agg_annot_bytes_max(c->nev));
		json_u64(j, "dropped", st.dropped);
		json_obj_end(j);
	}
	if (c->s->opts == NULL || c->s->opts->nsym_annotate == 0)
		return;
	json_arr_begin(j, "annotate");
	each(c, json_one, j);
	json_arr_end(j);
}
