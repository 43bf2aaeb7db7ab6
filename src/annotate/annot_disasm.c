/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annot_disasm: code bytes into instructions with capstone (x86-64 and
 * arm64, by the ELF's e_machine), AT&T or Intel as -M says, each call,
 * jump and return told apart and a direct branch's target worked out. */
#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annot_int.h"
#include "sanitize.h"

/* One capstone handle per architecture, opened at first use. */
struct annot_dis {
	csh h[2];
	bool open[2], failed[2];
};

static csh *handle(struct annot_cache *c, uint16_t machine)
{
	struct annot_dis *d = c->dis;
	int i = machine == EM_AARCH64;

	if (machine != EM_X86_64 && machine != EM_AARCH64)
		return NULL;
	if (d == NULL && (d = c->dis = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	if (!d->open[i] && !d->failed[i]) {
		cs_err e = i ? cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->h[i]) : cs_open(CS_ARCH_X86, CS_MODE_64, &d->h[i]);

		if (e != CS_ERR_OK || cs_option(d->h[i], CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
		    (!i && cs_option(d->h[i], CS_OPT_SYNTAX, c->o.intel ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT) !=
				   CS_ERR_OK)) {
			if (e == CS_ERR_OK)
				cs_close(&d->h[i]);
			d->failed[i] = true;
			return NULL;
		}
		d->open[i] = true;
	}
	return d->open[i] ? &d->h[i] : NULL;
}

void annot_disasm_free(struct annot_cache *c)
{
	struct annot_dis *d = c->dis;

	for (int i = 0; d && i < 2; i++)
		if (d->open[i])
			cs_close(&d->h[i]);
	free(d);
	c->dis = NULL;
}

/* arm64's branches by name, where capstone 4's groups are wrong or miss. */
static enum annot_kind arm64_kind(const char *mn)
{
	if (!strcmp(mn, "bl") || !strcmp(mn, "blr") || !strncmp(mn, "blra", 4))
		return ANNOT_CALL;
	if (!strcmp(mn, "ret") || !strncmp(mn, "reta", 4) || !strcmp(mn, "eret"))
		return ANNOT_RET;
	if (!strcmp(mn, "b") || !strncmp(mn, "b.", 2) || !strcmp(mn, "br") || !strncmp(mn, "bra", 3) ||
	    !strcmp(mn, "cbz") || !strcmp(mn, "cbnz") || !strcmp(mn, "tbz") || !strcmp(mn, "tbnz"))
		return ANNOT_JUMP;
	return ANNOT_PLAIN;
}

static void classify(csh h, const cs_insn *in, bool arm64, struct annot_insn *out)
{
	const cs_detail *d = in->detail;

	/* arm64: by name first (capstone 4 files bl under its jumps). */
	if (arm64)
		out->kind = arm64_kind(in->mnemonic);
	if (out->kind == ANNOT_PLAIN) {
		if (cs_insn_group(h, in, CS_GRP_CALL))
			out->kind = ANNOT_CALL;
		else if (cs_insn_group(h, in, CS_GRP_RET) || cs_insn_group(h, in, CS_GRP_IRET))
			out->kind = ANNOT_RET;
		else if (cs_insn_group(h, in, CS_GRP_JUMP))
			out->kind = ANNOT_JUMP;
	}
	if (out->kind != ANNOT_CALL && out->kind != ANNOT_JUMP)
		return;
	/* A direct branch: its immediate operand (arm64's last) is the target. */
	if (!arm64 && d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM) {
		out->has_target = true;
		out->target_addr = (uint64_t)d->x86.operands[0].imm;
	} else if (arm64 && d->arm64.op_count >= 1 && d->arm64.operands[d->arm64.op_count - 1].type == ARM64_OP_IMM) {
		out->has_target = true;
		out->target_addr = (uint64_t)d->arm64.operands[d->arm64.op_count - 1].imm;
	}
}

/* The callee's name: "foo", or "foo+0x10" into the middle of one. */
static const char *callee(struct annot_cache *c, const struct annot_symtab *names, uint64_t bias, uint64_t addr)
{
	const struct annot_sym *s = annot_syms_find(names, addr - bias);
	char buf[512], name[480];

	if (s == NULL)
		return NULL;
	sanitize(name, sizeof(name), s->name);
	if (s->addr == addr - bias)
		return annot_str_intern(c, name);
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, name, addr - bias - s->addr);
	return annot_str_intern(c, buf);
}

long annot_disasm(struct annot_cache *c, const struct annot_code *code, const struct annot_symtab *names,
		  uint64_t bias, struct annot_insn **insn)
{
	csh *h = handle(c, code->machine);
	bool arm64 = code->machine == EM_AARCH64;
	const uint8_t *p = code->bytes;
	size_t left = code->len, n = 0, cap = code->len / 3 + 16;
	uint64_t addr = code->start;
	struct annot_insn *v;
	cs_insn *in;

	*insn = NULL;
	if (h == NULL)
		return code->machine == EM_X86_64 || code->machine == EM_AARCH64 ? -ENOMEM : -ENOEXEC;
	if ((in = cs_malloc(*h)) == NULL)
		return -ENOMEM;
	if ((v = calloc(cap, sizeof(*v))) == NULL) {
		cs_free(in, 1);
		return -ENOMEM;
	}
	while (left) {
		struct annot_insn *o;
		char text[256];
		size_t len;

		if (n == cap) {
			struct annot_insn *nv = reallocarray(v, cap * 2, sizeof(*v));

			if (nv == NULL) {
				free(v);
				cs_free(in, 1);
				return -ENOMEM;
			}
			memset(nv + cap, 0, cap * sizeof(*v));
			v = nv;
			cap *= 2;
		}
		o = &v[n++];
		o->addr = addr;
		o->offset = addr - code->start;
		if (cs_disasm_iter(*h, &p, &left, &addr, in)) {
			len = in->size;
			snprintf(text, sizeof(text), "%-6s %s", in->mnemonic, in->op_str);
			classify(*h, in, arm64, o);
		} else {
			/* Not an instruction (data, padding): one unit skipped. */
			len = arm64 ? (left < 4 ? left : 4) : 1;
			snprintf(text, sizeof(text), "(bad)");
			p += len;
			left -= len;
			addr += len;
		}
		o->len = (uint8_t)(len > sizeof(o->bytes) ? sizeof(o->bytes) : len);
		memcpy(o->bytes, code->bytes + o->offset, o->len);
		/* Trailing blanks of an operand-less one ("ret   "). */
		for (size_t e = strlen(text); e && text[e - 1] == ' '; e--)
			text[e - 1] = '\0';
		sanitize(o->text, sizeof(o->text), text);
		if (o->has_target) {
			o->target_in_func = o->target_addr >= code->start && o->target_addr - code->start < code->len;
			if (o->target_in_func)
				o->target_off = o->target_addr - code->start;
			else
				o->callee = callee(c, names, bias, o->target_addr);
		}
	}
	cs_free(in, 1);
	*insn = v;
	return (long)n;
}
