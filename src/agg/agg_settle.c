/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_settle: the hits the memos counted at once (a flat sample's rows, a
 * stack's children and call-path nodes) added to their rows, before any
 * reader or a roll looks. */
#include "agg_int.h"

#include "callgraph.h"

/* A slot's pending hits added to its rows, as sample_rows would have. */
void agg_settle_flat(struct agg *a, struct agg_flat *f)
{
	agg_rows_count(a, f->pend_ev, f->sym, f->task, f->thread, f->pend_n, f->pend_period);
	agg_annot_count(a, f->sym, f->pend_ev, f->off, f->pend_n);
	f->pend_n = 0;
	f->pend_period = 0;
}

static void flat_settle(struct agg *a)
{
	for (size_t i = 0; i < a->flat_npend; i++) {
		struct agg_flat *f = &a->flat[a->flat_pend[i]];

		if (f->pend_n)
			agg_settle_flat(a, f);
		f->listed = false;
	}
	a->flat_npend = 0;
}

/* A way's pending hits added to its rows' children counts and its path's
 * nodes, as each hit would have. */
void agg_settle_memo(struct agg *a, struct agg_memo *m)
{
	bool mark = m->roll != a->rolls; /* else its rows and nodes are listed */
	size_t ev = m->pend_ev;

	for (size_t j = 0; j < m->nrows; j++) {
		struct agg_sym *s = m->rows[j];

		agg_count_n(&s->ch_iv, &s->ch_total, ev, m->pend_n, m->pend_period);
		if (mark)
			agg_sym_active(a, s);
	}
	callgraph_add_nodes(a->cg, ev, m->nodes, m->nnodes, m->pend_n, mark);
	m->roll = a->rolls;
	m->pend_n = m->pend_period = 0;
}

void agg_settle(struct agg *a)
{
	if (a->flat_npend)
		flat_settle(a);
	if (!a->memo_pending)
		return;
	a->memo_pending = false;
	for (size_t i = 0; i < AGG_MEMO_SLOTS; i++)
		if (a->memo[i].pend_n)
			agg_settle_memo(a, &a->memo[i]);
}
