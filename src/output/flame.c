/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flame: the call-path tree as folded stacks (one line a stack, the format
 * flamegraph.pl, inferno and speedscope read) or as a self-contained SVG
 * flame graph with a small script of our own (hover, click to zoom, search). */
#include "flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "sanitize.h"

#define NAME_OUT 512

/* A frame's name as a folded line holds it: sanitised, no ';' (the
 * separator), kernel frames marked _[k] as perf script's folders do. */
static void folded_name(char *buf, size_t len, const struct cg_frame *f)
{
	size_t n = sanitize(buf, len, f->name);

	for (char *p = buf; *p; p++)
		if (*p == ';')
			*p = ':';
	if (f->sym && f->sym->kernel && n + 5 < len)
		strlcat(buf, "_[k]", len);
}

struct folded_ctx {
	FILE *f;
	uint64_t sum;
};

static void folded_path(void *arg, const struct cg_frame *path, size_t depth, uint64_t samples)
{
	struct folded_ctx *c = arg;
	char name[NAME_OUT];

	for (size_t i = 0; i < depth; i++) {
		folded_name(name, sizeof(name), &path[i]);
		fprintf(c->f, "%s%s", i ? ";" : "", name);
	}
	fprintf(c->f, " %" PRIu64 "\n", samples);
	c->sum += samples;
}

int flame_folded(FILE *f, struct agg *a, enum agg_scope scope, size_t ev)
{
	const struct cg *g = agg_callgraph(a);
	struct folded_ctx c = { f, 0 };

	if (g) {
		callgraph_walk_paths(g, scope, ev, folded_path, &c);
		if (callgraph_other(g, scope, ev))
			fprintf(f, "[other] %" PRIu64 "\n", callgraph_other(g, scope, ev));
	}
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

/* XML text: sanitised first, then the five entities. */
static void xml_text(FILE *f, const char *s)
{
	char buf[NAME_OUT];

	sanitize(buf, sizeof(buf), s);
	for (const char *p = buf; *p; p++) {
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: putc(*p, f);
		}
	}
}

/* Warm colours for user code, orange for the kernel, grey for comms; the
 * hue follows the name so a function keeps its colour across graphs. */
static void colour(const struct cg_frame *fr, char *buf, size_t len)
{
	unsigned h = 2166136261u;

	for (const char *p = fr->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	if (fr->sym == NULL)
		snprintf(buf, len, "rgb(%u,%u,%u)", 180 + h % 40, 180 + h % 40, 190 + h % 40);
	else if (fr->sym->kernel)
		snprintf(buf, len, "rgb(%u,%u,%u)", 220 + h % 35, 120 + h % 60, 40 + (h >> 8) % 30);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 225 + h % 30, 60 + (h >> 4) % 150, 40 + (h >> 8) % 40);
}

#define SVG_W 1200.0
#define SVG_ROW 16
#define SVG_PAD 10

static const char svg_script[] =
	"<script><![CDATA[\n"
	"var info=document.getElementById('info'),W=1180;\n"
	"var fr=Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"function num(g,k){return parseFloat(g.getAttribute('data-'+k));}\n"
	"function draw(x0,w0){fr.forEach(function(g){var x=num(g,'x'),w=num(g,'w');\n"
	" var r=g.firstElementChild,t=g.lastElementChild;\n"
	" if(x+w<=x0||x>=x0+w0){g.style.display='none';return;}\n"
	" var nx=(Math.max(x,x0)-x0)/w0*W+10,nw=(Math.min(x+w,x0+w0)-Math.max(x,x0))/w0*W;\n"
	" g.style.display='';r.setAttribute('x',nx);r.setAttribute('width',Math.max(nw-0.5,0.1));\n"
	" t.setAttribute('x',nx+3);var n=g.getAttribute('data-n'),c=Math.floor((nw-6)/7);\n"
	" t.textContent=c<3?'':(n.length>c?n.substr(0,c-2)+'..':n);});}\n"
	"fr.forEach(function(g){\n"
	" g.addEventListener('mouseover',function(){info.textContent=g.getAttribute('data-n')+' ('+\n"
	"  g.getAttribute('data-s')+' samples, '+g.getAttribute('data-p')+'%)';});\n"
	" g.addEventListener('mouseout',function(){info.textContent=' ';});\n"
	" g.addEventListener('click',function(){draw(num(g,'x'),num(g,'w'));});});\n"
	"document.getElementById('reset').addEventListener('click',function(){draw(0,1);});\n"
	"document.getElementById('search').addEventListener('click',function(){\n"
	" var q=prompt('Search (regular expression)');if(q===null)return;var re,m=0;\n"
	" try{re=new RegExp(q);}catch(e){info.textContent='bad expression';return;}\n"
	" fr.forEach(function(g){var hit=q!==''&&re.test(g.getAttribute('data-n'));\n"
	"  g.firstElementChild.setAttribute('fill',hit?'rgb(230,0,230)':g.getAttribute('data-c'));if(hit)m++;});\n"
	" info.textContent=q===''?' ':m+' frames match '+q;});\n"
	"draw(0,1);\n"
	"]]></script>\n";

int flame_svg(FILE *f, struct agg *a, enum agg_scope scope, size_t ev, const char *title)
{
	const struct cg *g = agg_callgraph(a);
	size_t n = g ? callgraph_nodes(g) : 0, maxd = 0;
	double *x = calloc(n ? n : 1, sizeof(*x)), *cursor = calloc(n ? n : 1, sizeof(*cursor));
	unsigned *depth = calloc(n ? n : 1, sizeof(*depth));
	uint64_t total = g ? callgraph_node_samples(g, 0, scope, ev) : 0;
	int rc = 0;

	if (x == NULL || cursor == NULL || depth == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* Children come after their parent: one pass lays every node out. */
	for (size_t i = 1; i < n; i++) {
		size_t p = callgraph_node_parent(g, i);
		uint64_t s = callgraph_node_samples(g, i, scope, ev);

		depth[i] = depth[p] + 1;
		x[i] = x[p] + cursor[p];
		cursor[p] += (double)s;
		if (s && depth[i] > maxd)
			maxd = depth[i];
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%zu\" "
		"viewBox=\"0 0 %.0f %zu\" font-family=\"monospace\" font-size=\"12\">\n",
		SVG_W, (maxd + 4) * SVG_ROW + SVG_PAD, SVG_W, (maxd + 4) * SVG_ROW + SVG_PAD);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"rgb(248,248,240)\"/>\n<text x=\"600\" y=\"18\" "
	      "text-anchor=\"middle\" font-size=\"15\">", f);
	xml_text(f, title ? title : "perftop flame graph");
	fprintf(f, "</text>\n<text id=\"reset\" x=\"10\" y=\"18\" cursor=\"pointer\">[reset zoom]</text>\n"
		"<text id=\"search\" x=\"1110\" y=\"18\" cursor=\"pointer\">[search]</text>\n"
		"<text id=\"info\" x=\"10\" y=\"%zu\"> </text>\n", (maxd + 4) * SVG_ROW);
	for (size_t i = 1; i < n && total; i++) {
		uint64_t s = callgraph_node_samples(g, i, scope, ev);
		struct cg_frame fr = callgraph_node_frame(g, i);
		char fill[32], name[NAME_OUT];
		double y = (double)((maxd - depth[i] + 2) * SVG_ROW);

		if (s == 0 || (double)s / (double)total < 0.0005)
			continue; /* narrower than a pixel: left out, as its width says */
		colour(&fr, fill, sizeof(fill));
		folded_name(name, sizeof(name), &fr);
		fprintf(f, "<g class=\"f\" data-x=\"%.6f\" data-w=\"%.6f\" data-d=\"%u\" data-s=\"%" PRIu64
			"\" data-p=\"%.2f\" data-c=\"%s\" data-n=\"", x[i] / (double)total,
			(double)s / (double)total, depth[i], s, 100.0 * (double)s / (double)total, fill);
		xml_text(f, name);
		fprintf(f, "\"><title>");
		xml_text(f, name);
		fprintf(f, " (%" PRIu64 " samples, %.2f%%)</title><rect y=\"%.0f\" height=\"%d\" fill=\"%s\" "
			"rx=\"2\"/><text y=\"%.0f\"></text></g>\n", s, 100.0 * (double)s / (double)total, y,
			SVG_ROW - 1, fill, y + 12);
	}
	fputs(svg_script, f);
	fputs("</svg>\n", f);
	if (fflush(f) == EOF || ferror(f))
		rc = errno ? -errno : -EIO;
out:
	free(x);
	free(cursor);
	free(depth);
	return rc;
}
