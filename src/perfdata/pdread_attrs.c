/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdread_attrs: a file's attrs, their ids and names: which are sampling
 * events (a dummy is tracking only), and where their records keep the id
 * that tells them apart. */
#include "pdread_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- events ------------------------------------------------------------------ */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

static void attr_name(const struct perf_event_attr *a, char *buf, size_t len)
{
	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		snprintf(buf, len, "%s", hw_names[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		snprintf(buf, len, "%s", sw_names[a->config]);
	else if (a->type == PERF_TYPE_TRACEPOINT)
		snprintf(buf, len, "tracepoint:%" PRIu64, (uint64_t)a->config);
	else
		snprintf(buf, len, "raw:%u:0x%" PRIx64, a->type, (uint64_t)a->config);
}

static bool is_tracking(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
}

/* An attr of the file (bytes long, as recorded) and its ids. */
int pdread_add_attr(struct pdread *r, const void *attr, size_t bytes, const uint64_t *ids, size_t nids,
		    uint64_t off, char *err, size_t errlen)
{
	struct pdread_attr *a, *na;
	uint32_t size;

	if (bytes < PERF_ATTR_SIZE_VER0)
		return pdread_fail(r, err, errlen, off, "an attr of %zu bytes is shorter than any perf writes", bytes);
	memcpy(&size, (const unsigned char *)attr + offsetof(struct perf_event_attr, size), 4);
	if (r->nattrs >= 4096)
		return pdread_fail(r, err, errlen, off, "more than 4096 attrs");
	if ((na = reallocarray(r->attrs, r->nattrs + 1, sizeof(*na))) == NULL)
		return pdread_fail(r, err, errlen, off, "out of memory");
	r->attrs = na;
	a = &r->attrs[r->nattrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, bytes < sizeof(a->attr) ? bytes : sizeof(a->attr));
	a->attr.size = sizeof(a->attr);
	pdsample_layout_init(&a->lay, &a->attr);
	a->ev = -1;
	if (!is_tracking(&a->attr)) {
		if (r->nevents >= PDREAD_MAX_EVENTS)
			return pdread_fail(r, err, errlen, off, "more than %d sampling events", PDREAD_MAX_EVENTS);
		a->ev = (int)r->nevents;
		r->events[r->nevents].attr = a->attr;
		attr_name(&a->attr, r->events[r->nevents].name, sizeof(r->events[r->nevents].name));
		r->nevents++;
		if (a->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			r->callchains = true;
	}
	for (size_t i = 0; i < nids; i++) {
		uint64_t id;

		memcpy(&id, ids + i, 8);
		if (i == 0)
			a->first_id = id;
		if (htab_put(&r->ids, id, r->nattrs + 1) != 0)
			return pdread_fail(r, err, errlen, off, "out of memory");
	}
	r->nattrs++;
	(void)size;
	return 0;
}

/* Records tell their attr by an id at one place for all attrs (perf's own
 * rule): a file whose attrs put it in different places cannot be read. */
int pdread_check_attrs(struct pdread *r, char *err, size_t errlen)
{
	if (r->nattrs == 0)
		return pdread_fail(r, err, errlen, 0, "no events: is this a perf.data file?");
	for (size_t i = 1; i < r->nattrs; i++) {
		const struct pdsample_layout *a = &r->attrs[0].lay, *b = &r->attrs[i].lay;

		if (a->id_at != b->id_at || a->trailer_id_from_end != b->trailer_id_from_end ||
		    a->sample_id_all != b->sample_id_all || a->id_at < 0)
			return pdread_fail(r, err, errlen, 0, "its events' records cannot be told apart (no id at one place in all)");
	}
	return 0;
}

/* EVENT_DESC names the events, in the attrs' order. */
void pdread_name_events(struct pdread *r)
{
	for (size_t i = 0; i < r->nattrs && i < r->feat.ndescs; i++) {
		const struct pdfeat_read_desc *d = &r->feat.descs[i];
		const struct pdread_attr *a = &r->attrs[i];

		if (a->ev < 0 || d->name[0] == '\0' || (d->first_id && a->first_id && d->first_id != a->first_id))
			continue;
		snprintf(r->events[a->ev].name, sizeof(r->events[a->ev].name), "%s", d->name);
	}
}

