/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evspec: perf's -e syntax to perf_event_attr. The names, aliases and modifier
 * rules follow tools/perf (evsel.c, parse-events.c/.l) so that an event line
 * copied from a perf command means the same thing here. Only PMU terms and
 * tracepoints touch the filesystem, under roots that tests can move. */
#include "evspec.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evspec_fs.h"
#include "evspec_tables.h"
#include "util.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define SPEC_MAX 1024 /* longest event text taken; .name keeps what fits */
#define DEVICES "bus/event_source/devices"

void evspec_set_roots(const char *sysfs, const char *tracefs)
{
	evspec_fs_set_roots(sysfs, tracefs);
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A sysfs/tracefs file holding one number in [0, max]: 0 or -errno. */
static int read_number(const char *path, long long max, long long *v)
{
	char buf[32];
	const char *e = NULL;
	int rc = evspec_fs_read_line(path, buf, sizeof(buf));

	if (rc)
		return rc;
	*v = strtonum(buf, 0, max, &e);
	return e ? -EINVAL : 0;
}

/* perf's lexer: decimal or 0x hex, nothing else (no octal, sign or space).
 * -2 means too wide for 64 bits. */
static int parse_num(const char *s, uint64_t *v)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	char *end;

	if (hex)
		s += 2;
	if (!(hex ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s)))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, hex ? 16 : 10);
	if (*end)
		return -1;
	return errno ? -2 : 0;
}

/* Names become path components under sysfs: nothing that could climb out. */
static bool safe_name(const char *s)
{
	if (*s == '\0' || *s == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return false;
	return true;
}

/* perf's get_event_modifier(): the first of u/k/h excludes all three levels
 * and each letter then readmits its own; G/H do the same for guest/host. :u
 * and :p also drop the guest unless G/H spoke, because precise sampling and
 * user-only counting do not follow into a guest. */
static int apply_modifiers(const char *ev, const char *mods, struct evspec *out, char *err,
			   size_t errlen)
{
	int eu = 0, ek = 0, eh = 0, eG = 0, eH = 0, exclude = 0, exclude_GH = 0;
	int precise = 0, precise_max = 0, idle = 0;

	if (*mods == '\0')
		return fail(err, errlen, "event %s: nothing after ':' (modifiers: u k h I G H p P)", ev);
	for (const char *p = mods; *p; p++) {
		switch (*p) {
		case 'u':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			if (!exclude_GH)
				eG = 1;
			eu = 0;
			break;
		case 'k':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			ek = 0;
			break;
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			eh = 0;
			break;
		case 'G':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			eG = 0;
			break;
		case 'H':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			eH = 0;
			break;
		case 'I':
			idle = 1;
			break;
		case 'p':
			precise++;
			if (!exclude_GH)
				eG = 1;
			break;
		case 'P':
			precise_max = 1;
			break;
		default:
			return fail(err, errlen, "event %s: unknown modifier '%c' (valid: u k h I G H p P)", ev,
				    *p);
		}
	}
	if (precise > 3)
		return fail(err, errlen, "event %s: precise level is at most 3 (:ppp)", ev);
	out->attr.exclude_user = eu & 1;
	out->attr.exclude_kernel = ek & 1;
	out->attr.exclude_hv = eh & 1;
	out->attr.exclude_guest = eG & 1;
	out->attr.exclude_host = eH & 1;
	out->attr.exclude_idle = idle & 1;
	/* perf probes downwards from the highest level for :P; we ask for the
	 * top and leave a retry on EOPNOTSUPP to whoever opens the event. */
	out->attr.precise_ip = precise_max ? 3 : precise & 3;
	out->has_modifiers = exclude || exclude_GH;
	return 0;
}

struct pmu_ctx {
	const char *ev;     /* the event as typed, for messages */
	const char *pmu;
	const char *given;  /* the user's terms, untouched */
	struct evspec *out;
	char *err;
	size_t errlen;
};

/* perf terms that steer perf itself (sampling, call graphs, …), not the
 * counter: refused by name rather than reported as missing from format/. */
static const char *const perf_only_terms[] = {
	"period", "freq", "branch_type", "time", "call-graph", "stack-size", "inherit",
	"no-inherit", "max-stack", "nr", "overwrite", "no-overwrite", "driver-config",
	"percore", "aux-output", "aux-sample-size", "metric-id", "raw", "cpu",
	"legacy-cache", "hardware",
};

/* Whether the user's own list sets term=…, wherever it sits in it. */
static bool term_given(const char *list, const char *term)
{
	size_t l = strlen(term);

	for (const char *p = list;; p++) {
		if (strncmp(p, term, l) == 0 && p[l] == '=')
			return true;
		if ((p = strchr(p, ',')) == NULL)
			return false;
	}
}

/* Places v into the attr field a sysfs format names ("config:0-7",
 * "config1:0-31", "config:0-7,32-35", "config:21"). Like perf, the value's
 * bits fill the format's bits lowest first, whatever order the ranges are
 * listed in. Unlike perf (which ORs), a later term replaces an earlier one,
 * so "cpu/alias,umask=1/" overrides the alias's umask. Returns 1 when the
 * PMU has no such term. */
static int pmu_format(struct pmu_ctx *c, const char *term, uint64_t v)
{
	char path[PATH_MAX], spec[256], *ranges, *tok;
	struct perf_event_attr *a = &c->out->attr;
	uint64_t mask = 0, max;
	__u64 *field;
	int bits;

	if (!safe_name(term) ||
	    util_pathf(path, sizeof(path), "%s/" DEVICES "/%s/format/%s", evspec_fs_sysfs_root(), c->pmu, term) ||
	    evspec_fs_read_line(path, spec, sizeof(spec)))
		return 1;
	ranges = strchr(spec, ':');
	if (ranges == NULL)
		goto bad;
	*ranges++ = '\0';
	if (strcmp(spec, "config") == 0)
		field = &a->config;
	else if (strcmp(spec, "config1") == 0)
		field = &a->config1;
	else if (strcmp(spec, "config2") == 0)
		field = &a->config2;
	else
		goto bad;
	while ((tok = strsep(&ranges, ",")) != NULL) {
		char *dash = strchr(tok, '-');
		const char *e1 = NULL, *e2 = NULL;
		long long lo, hi;

		if (dash)
			*dash++ = '\0';
		lo = strtonum(tok, 0, 63, &e1);
		hi = dash ? strtonum(dash, 0, 63, &e2) : lo;
		if (e1 || e2 || hi < lo)
			goto bad;
		for (long long b = lo; b <= hi; b++)
			mask |= 1ULL << b;
	}
	bits = __builtin_popcountll(mask);
	max = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
	if (v > max)
		return fail(c->err, c->errlen,
			    "event %s: value 0x%llx too wide for term '%s' (%d bits, max 0x%llx)",
			    c->ev, (unsigned long long)v, term, bits, (unsigned long long)max);
	*field &= ~mask;
	for (int b = 0; b < 64; b++)
		if (mask & (1ULL << b)) {
			if (v & 1)
				*field |= 1ULL << b;
			v >>= 1;
		}
	return 0;
bad:
	return fail(c->err, c->errlen, "event %s: cannot read %s (want e.g. config:0-7)", c->ev, path);
}

static int pmu_terms(struct pmu_ctx *c, char *terms, int depth);

static int pmu_term(struct pmu_ctx *c, char *term, int depth)
{
	char *eq = strchr(term, '='), path[PATH_MAX], alias[512];
	const char *val = eq ? eq + 1 : NULL;
	uint64_t v = 1; /* a bare format term, like perf's "inv", means 1 */
	int rc;

	if (eq)
		*eq = '\0';
	if (*term == '\0')
		return fail(c->err, c->errlen, "event %s: empty term (want pmu/term=value,…/)", c->ev);
	if (strcmp(term, "name") == 0) {
		if (val == NULL || *val == '\0')
			return fail(c->err, c->errlen, "event %s: name= wants a value", c->ev);
		strlcpy(c->out->name, val, sizeof(c->out->name));
		return 0;
	}
	if (val && strcmp(val, "?") == 0) {
		/* An alias leaves some terms for the user: "ldlat=?" */
		if (depth > 0 && term_given(c->given, term))
			return 0;
		return fail(c->err, c->errlen, "event %s: term '%s' needs a value: add %s=N", c->ev, term,
			    term);
	}
	if (val) {
		rc = parse_num(val, &v);
		if (rc == -2)
			return fail(c->err, c->errlen, "event %s: value %s of term '%s' is wider than 64 bits",
				    c->ev, val, term);
		if (rc)
			return fail(c->err, c->errlen,
				    "event %s: term '%s' wants a number (decimal or 0x hex), not '%s'", c->ev,
				    term, val);
	} else if (depth == 0 && safe_name(term) &&
		   !util_pathf(path, sizeof(path), "%s/" DEVICES "/%s/events/%s", evspec_fs_sysfs_root(), c->pmu, term) &&
		   evspec_fs_read_line(path, alias, sizeof(alias)) == 0) {
		/* A bare word is first an alias from events/, itself a term list. */
		return pmu_terms(c, alias, depth + 1);
	}
	if (strcmp(term, "config") == 0 || strcmp(term, "config1") == 0 || strcmp(term, "config2") == 0) {
		*(term[6] == '\0' ? &c->out->attr.config
		  : term[6] == '1' ? &c->out->attr.config1 : &c->out->attr.config2) = v;
		return 0;
	}
	for (size_t i = 0; i < NELEM(perf_only_terms); i++)
		if (strcmp(term, perf_only_terms[i]) == 0)
			return fail(c->err, c->errlen, "event %s: perf's term '%s' is not supported by perftop",
				    c->ev, term);
	rc = pmu_format(c, term, v);
	if (rc <= 0)
		return rc;
	if (val || depth > 0)
		return fail(c->err, c->errlen, "PMU %s has no term '%s' (see %s/" DEVICES "/%s/format)",
			    c->pmu, term, evspec_fs_sysfs_root(), c->pmu);
	return fail(c->err, c->errlen, "PMU %s has no event or term '%s' (see %s/" DEVICES "/%s/events and format)",
		    c->pmu, term, evspec_fs_sysfs_root(), c->pmu);
}

static int pmu_terms(struct pmu_ctx *c, char *terms, int depth)
{
	char *tok;

	while ((tok = strsep(&terms, ",")) != NULL)
		if (pmu_term(c, tok, depth))
			return -1;
	return 0;
}

/* pmu/term=value,…/ with any modifiers straight after the slash, as perf wants. */
static int parse_pmu(const char *ev, char *text, struct evspec *out, char *err, size_t errlen)
{
	char *open = strchr(text, '/'), *close = strrchr(text, '/'), path[PATH_MAX];
	char given[SPEC_MAX];
	struct pmu_ctx c = { ev, text, given, out, err, errlen };
	const char *mods;
	long long t = 0;

	if (open == close)
		return fail(err, errlen, "event %s: a PMU event looks like pmu/term=value,…/", ev);
	*open = '\0';
	*close = '\0';
	mods = close + 1;
	if (text[0] == '\0')
		return fail(err, errlen, "event %s: no PMU name before '/' (want pmu/term=value,…/)", ev);
	if (!safe_name(text) ||
	    util_pathf(path, sizeof(path), "%s/" DEVICES "/%s/type", evspec_fs_sysfs_root(), text) ||
	    read_number(path, UINT32_MAX, &t))
		return fail(err, errlen, "PMU '%s' not found in %s/" DEVICES " (see perftop --list-events)",
			    text, evspec_fs_sysfs_root());
	out->attr.type = (uint32_t)t;
	if (open[1] == '\0')
		return fail(err, errlen, "event %s: no terms between the slashes", ev);
	strlcpy(given, open + 1, sizeof(given));
	if (pmu_terms(&c, open + 1, 0))
		return -1;
	if (*mods == ':')
		return fail(err, errlen, "event %s: modifiers follow the closing '/' directly, as in %s/…/%s",
			    ev, text, mods + 1);
	return *mods ? apply_modifiers(ev, mods, out, err, errlen) : 0;
}

static int parse_tracepoint(const char *ev, const char *sys, const char *name, struct evspec *out,
			    char *err, size_t errlen)
{
	char path[PATH_MAX];
	const char *root;
	long long v = 0;
	int eno, rc;

	if (strpbrk(sys, "*?[") || strpbrk(name, "*?["))
		return fail(err, errlen, "event %s: tracepoint wildcards are not supported; name one", ev);
	if (!safe_name(sys) || !safe_name(name) || strchr(sys, '.') || strchr(name, '.'))
		return fail(err, errlen, "unknown event '%s' (see perftop --list-events)", ev);
	root = evspec_fs_tracefs_dir(&eno);
	if (root == NULL && eno != ENOENT)
		return fail(err, errlen, "tracepoint %s:%s: cannot read tracefs (%s): run as root", sys, name,
			    strerror(eno));
	if (root == NULL)
		return fail(err, errlen, "tracepoint %s:%s: tracefs is not mounted: "
			    "mount -t tracefs nodev /sys/kernel/tracing", sys, name);
	rc = util_pathf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	if (rc == 0)
		rc = read_number(path, LLONG_MAX, &v);
	if (rc == -EACCES || rc == -EPERM)
		return fail(err, errlen, "tracepoint %s:%s: cannot read %s: run as root", sys, name, path);
	if (rc)
		return fail(err, errlen, "tracepoint %s:%s not found in %s/events (see perftop --list-events)",
			    sys, name, root);
	out->attr.type = PERF_TYPE_TRACEPOINT;
	out->attr.config = (uint64_t)v;
	return 0;
}

static int parse_symbolic(const char *ev, struct evspec *out, char *err, size_t errlen)
{
	int rc = evspec_tables_symbol(ev, &out->attr);
	size_t alnum = strspn(ev + 1, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");

	if (rc == 0)
		return 0;
	if (rc == -2)
		return fail(err, errlen, "event %s: that cache has no such operation (see perftop --list-events)",
			    ev);
	/* "r12g" was meant as raw; "rxyz" or "r" maybe, so say both things. */
	if (ev[0] == 'r' && ev[1 + alnum] == '\0' && isxdigit((unsigned char)ev[1]))
		return fail(err, errlen, "event %s: bad hex in raw event (want r and 1-16 hex digits, e.g. r1a8)",
			    ev);
	if (ev[0] == 'r' && ev[1 + alnum] == '\0')
		return fail(err, errlen, "unknown event '%s' (raw events are r and 1-16 hex digits, e.g. r1a8; "
			    "see perftop --list-events)", ev);
	return fail(err, errlen, "unknown event '%s' (see perftop --list-events)", ev);
}

int evspec_parse(const char *str, struct evspec *out, char *err, size_t errlen)
{
	char text[SPEC_MAX], *colon, *second;
	size_t len = strlen(str);

	memset(out, 0, sizeof(*out));
	out->attr.size = sizeof(out->attr);
	if (len == 0)
		return fail(err, errlen, "empty event name (see perftop --list-events)");
	if (len >= sizeof(text))
		return fail(err, errlen, "event %.40s…: longer than %zu characters", str, sizeof(text) - 1);
	memcpy(text, str, len + 1);
	strlcpy(out->name, str, sizeof(out->name));
	if (strpbrk(text, "{}"))
		return fail(err, errlen, "event %s: event groups {…} are not supported; "
			    "separate events with commas", str);
	if (strchr(text, '/'))
		return parse_pmu(str, text, out, err, errlen);
	colon = strchr(text, ':');
	if (colon == NULL)
		return parse_symbolic(str, out, err, errlen);
	*colon = '\0';
	second = strchr(colon + 1, ':');
	/* cycles:u is an event and modifiers; sched:sched_switch[:u] a tracepoint.
	 * A known name before the colon decides, so cycles:x is a bad modifier
	 * and rcu:rcu_utilization is not a bad raw event. */
	if (second == NULL && evspec_tables_symbol(text, &out->attr) == 0)
		return apply_modifiers(str, colon + 1, out, err, errlen);
	if (second)
		*second = '\0';
	if (text[0] == '\0' || colon[1] == '\0')
		return fail(err, errlen, "event %s: want subsys:name (a tracepoint) or event:modifiers", str);
	if (parse_tracepoint(str, text, colon + 1, out, err, errlen))
		return -1;
	return second ? apply_modifiers(str, second + 1, out, err, errlen) : 0;
}

int evspec_parse_list(const char *list, struct evspec **out, size_t *n, char *err, size_t errlen)
{
	struct evspec *arr = NULL, *grown;
	size_t cnt = 0, cap = 0;
	const char *p = list;
	char item[SPEC_MAX];

	*out = NULL;
	*n = 0;
	if (*list == '\0')
		return fail(err, errlen, "empty event list (see perftop --list-events)");
	for (;;) {
		const char *start = p;
		bool in_pmu = false;

		/* Commas inside pmu/…/ separate terms, not events. */
		for (; *p && (*p != ',' || in_pmu); p++)
			if (*p == '/')
				in_pmu = !in_pmu;
		if (p == start) {
			fail(err, errlen, "empty event in list '%s' (two commas, or one at an end)", list);
			goto out_free;
		}
		if ((size_t)(p - start) >= sizeof(item)) {
			fail(err, errlen, "event %.40s…: longer than %zu characters", start, sizeof(item) - 1);
			goto out_free;
		}
		memcpy(item, start, (size_t)(p - start));
		item[p - start] = '\0';
		if (cnt == cap) {
			cap = cap ? cap * 2 : 4;
			grown = reallocarray(arr, cap, sizeof(*arr));
			if (grown == NULL) {
				fail(err, errlen, "out of memory for %zu events", cap);
				goto out_free;
			}
			arr = grown;
		}
		if (evspec_parse(item, &arr[cnt], err, errlen))
			goto out_free;
		cnt++;
		if (*p == '\0')
			break;
		p++;
	}
	*out = arr;
	*n = cnt;
	return 0;
out_free:
	free(arr);
	return -1;
}

/* In EXCL_* bit order. */
static const char *const excl_words[] = { "user", "kernel", "hv", "idle", "host", "guest" };

int evspec_exclude_parse(const char *list, unsigned *bits, char *err, size_t errlen)
{
	char buf[256], *p = buf, *tok;

	*bits = 0;
	if (strlcpy(buf, list, sizeof(buf)) >= sizeof(buf))
		return fail(err, errlen, "--exclude: list too long (valid: user,kernel,hv,idle,host,guest)");
	if (buf[0] == '\0')
		return 0;
	while ((tok = strsep(&p, ",")) != NULL) {
		size_t i;

		for (i = 0; i < NELEM(excl_words); i++)
			if (strcmp(tok, excl_words[i]) == 0)
				break;
		if (i == NELEM(excl_words)) {
			*bits = 0;
			return fail(err, errlen,
				    "--exclude: unknown word '%s' (valid: user,kernel,hv,idle,host,guest)", tok);
		}
		*bits |= 1u << i;
	}
	return 0;
}

void evspec_exclude_format(unsigned bits, char *buf, size_t len)
{
	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < NELEM(excl_words); i++)
		if (bits & (1u << i)) {
			if (buf[0])
				strlcat(buf, ",", len);
			strlcat(buf, excl_words[i], len);
		}
}

unsigned evspec_exclude_bits(const struct perf_event_attr *a)
{
	return (a->exclude_user ? EXCL_USER : 0) | (a->exclude_kernel ? EXCL_KERNEL : 0) |
	       (a->exclude_hv ? EXCL_HV : 0) | (a->exclude_idle ? EXCL_IDLE : 0) |
	       (a->exclude_host ? EXCL_HOST : 0) | (a->exclude_guest ? EXCL_GUEST : 0);
}

void evspec_set_exclude(struct perf_event_attr *a, unsigned bits)
{
	a->exclude_user = !!(bits & EXCL_USER);
	a->exclude_kernel = !!(bits & EXCL_KERNEL);
	a->exclude_hv = !!(bits & EXCL_HV);
	a->exclude_idle = !!(bits & EXCL_IDLE);
	a->exclude_host = !!(bits & EXCL_HOST);
	a->exclude_guest = !!(bits & EXCL_GUEST);
}
