/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_kin: who is whose parent. The one place a process's parent (from
 * FORK records and /proc/PID/stat, both handed in by the session) and the
 * name of an ancestor that took no samples are kept, for the task tree of
 * the live view and the dump's "ppid". Off the sample path: FORKs, and the
 * interval's end. */
#include "agg_int.h"

#include <stdlib.h>
#include <string.h>

/* Ancestry deeper than this is a loop (a reused pid) or not worth a walk. */
#define KIN_DEPTH 64

struct agg_kinset {
	struct htab map;          /* pid + 1 -> struct agg_kin * */
	const struct agg_kin **all;
	size_t all_cap;
	uint64_t walks;           /* agg_kin_missing calls: a kin walked once a call */
	uint64_t last_sweep;
};

struct kin {
	struct agg_kin k;
	uint64_t walked;
};

static struct agg_kinset *kinset(struct agg *a)
{
	struct agg_kinset *ks = a->kin;

	if (ks)
		return ks;
	if ((ks = calloc(1, sizeof(*ks))) == NULL || htab_init(&ks->map, 64)) {
		free(ks);
		return NULL;
	}
	a->kin = ks;
	return ks;
}

static struct kin *kin_get(const struct agg *a, pid_t pid)
{
	return a->kin && pid > 0 ? (struct kin *)htab_get(&a->kin->map, (uint64_t)pid + 1) : NULL;
}

static struct kin *kin_make(struct agg *a, pid_t pid)
{
	struct agg_kinset *ks;
	struct kin *k = kin_get(a, pid);

	if (k || pid <= 0 || (ks = kinset(a)) == NULL)
		return k;
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return NULL;
	k->k.pid = pid;
	if (htab_put(&ks->map, (uint64_t)pid + 1, (uintptr_t)k)) {
		free(k);
		return NULL;
	}
	return k;
}

void agg_kin_note(struct agg *a, pid_t pid, pid_t ppid, const char *comm)
{
	struct kin *k = kin_make(a, pid);

	if (k == NULL)
		return;
	k->k.ppid = ppid > 0 && ppid != pid ? ppid : 0;
	if (comm && comm[0])
		strlcpy(k->k.comm, comm, sizeof(k->k.comm));
	k->k.used = a->rolls;
}

void agg_kin_name(struct agg *a, pid_t pid, const char *comm)
{
	struct kin *k = kin_get(a, pid);

	if (k && comm)
		strlcpy(k->k.comm, comm, sizeof(k->k.comm));
}

pid_t agg_ppid(const struct agg *a, pid_t pid)
{
	const struct kin *k = kin_get(a, pid);

	return k ? k->k.ppid : -1;
}

const struct agg_kin *agg_kin_of(const struct agg *a, pid_t pid)
{
	const struct kin *k = kin_get(a, pid);

	return k ? &k->k : NULL;
}

/* Up from pid: each kin reached is kept; the first pid not known is out. */
static size_t walk_up(struct agg *a, pid_t pid, pid_t *out, size_t n, size_t max)
{
	for (int d = 0; pid > 0 && d < KIN_DEPTH && n < max; d++) {
		struct kin *k = kin_get(a, pid);

		if (k == NULL) {
			out[n++] = pid;
			break;
		}
		k->k.used = a->rolls;
		if (k->walked == a->kin->walks) /* from here up: done this call */
			break;
		k->walked = a->kin->walks;
		pid = k->k.ppid;
	}
	return n;
}

size_t agg_kin_missing(struct agg *a, pid_t *out, size_t max)
{
	size_t n = 0;

	if (kinset(a) == NULL)
		return 0;
	a->kin->walks++;
	for (size_t i = 0; i <= a->tasks.mask && n < max; i++) {
		const struct agg_task *t = agg_row_at(&a->tasks, i);

		if (t && t->pid > 0 && !t->gone)
			n = walk_up(a, t->pid, out, n, max);
	}
	return n;
}

size_t agg_kin_all(struct agg *a, const struct agg_kin ***rows)
{
	struct agg_kinset *ks = a->kin;
	size_t n = 0;

	*rows = NULL;
	if (ks == NULL)
		return 0;
	if (ks->map.used > ks->all_cap) {
		const struct agg_kin **p = reallocarray(ks->all, ks->map.used, sizeof(*p));

		if (p == NULL)
			return 0;
		ks->all = p;
		ks->all_cap = ks->map.used;
	}
	for (size_t i = 0; i <= ks->map.mask && n < ks->map.used; i++) {
		const struct kin *k = agg_row_at(&ks->map, i);

		if (k)
			ks->all[n++] = &k->k;
	}
	*rows = ks->all;
	return n;
}

/* Kin no task row has reached for a while go, every AGG_EXPIRE_IDLE rolls. */
void agg_kin_roll(struct agg *a)
{
	struct agg_kinset *ks = a->kin;
	bool gone = false;

	if (ks == NULL || a->rolls < ks->last_sweep + AGG_EXPIRE_IDLE)
		return;
	ks->last_sweep = a->rolls;
	for (size_t i = 0; i <= ks->map.mask; i++) {
		struct kin *k = agg_row_at(&ks->map, i);

		if (k && k->k.used + AGG_EXPIRE_IDLE < a->rolls) {
			htab_del(&ks->map, (uint64_t)k->k.pid + 1, (uintptr_t)k);
			free(k);
			gone = true;
			i--; /* the run moved back into this slot */
		}
	}
	if (gone)
		htab_shrink(&ks->map, 64);
}

void agg_kin_free(struct agg *a)
{
	struct agg_kinset *ks = a->kin;

	if (ks == NULL)
		return;
	for (size_t i = 0; i <= ks->map.mask; i++)
		free(agg_row_at(&ks->map, i));
	htab_free(&ks->map);
	free(ks->all);
	free(ks);
	a->kin = NULL;
}
