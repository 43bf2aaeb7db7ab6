#include "evspec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char sysfs_root[256] = "/sys";
static char tracefs_root[256] = "";

void evspec_set_roots(const char *sysfs, const char *tracefs)
{
	strlcpy(sysfs_root, sysfs ? sysfs : "/sys", sizeof(sysfs_root));
	strlcpy(tracefs_root, tracefs ? tracefs : "", sizeof(tracefs_root));
}

struct named {
	const char *name;
	uint64_t config;
};

static const struct named hw_events[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct named sw_events[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_COUNT_SW_BPF_OUTPUT },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* perf's hardware cache naming: CACHE-OP[-RESULT], e.g. L1-dcache-load-misses. */
static const struct named cache_ids[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D }, { "L1-icache", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL }, { "dTLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB }, { "branch", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },
};
static const struct named cache_ops[] = {
	{ "load", PERF_COUNT_HW_CACHE_OP_READ }, { "loads", PERF_COUNT_HW_CACHE_OP_READ },
	{ "store", PERF_COUNT_HW_CACHE_OP_WRITE }, { "stores", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH }, { "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

static const struct named *find_named(const struct named *tab, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(tab[i].name) == len && strncmp(tab[i].name, name, len) == 0)
			return &tab[i];
	return NULL;
}

static int parse_cache(const char *name, uint64_t *config)
{
	const struct named *id = NULL, *op;
	size_t i, idlen = 0;
	const char *rest;
	uint64_t result;

	for (i = 0; i < NELEM(cache_ids); i++) {
		size_t l = strlen(cache_ids[i].name);

		if (strncmp(name, cache_ids[i].name, l) == 0 && name[l] == '-') {
			id = &cache_ids[i];
			idlen = l;
			break;
		}
	}
	if (id == NULL)
		return -1;
	rest = name + idlen + 1;
	/* "loads"/"stores"/"prefetches" count accesses; "load-misses" misses. */
	const char *dash = strchr(rest, '-');
	if (dash == NULL) {
		op = find_named(cache_ops, NELEM(cache_ops), rest, strlen(rest));
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	} else {
		op = find_named(cache_ops, NELEM(cache_ops), rest, (size_t)(dash - rest));
		if (strcmp(dash + 1, "misses") == 0 || strcmp(dash + 1, "miss") == 0)
			result = PERF_COUNT_HW_CACHE_RESULT_MISS;
		else if (strcmp(dash + 1, "refs") == 0 || strcmp(dash + 1, "accesses") == 0 ||
			 strcmp(dash + 1, "access") == 0)
			result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
		else
			return -1;
	}
	if (op == NULL)
		return -1;
	*config = id->config | (op->config << 8) | (result << 16);
	return 0;
}

static int read_small_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (f == NULL)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int parse_u64_str(const char *s, uint64_t *v)
{
	char *end;

	if (*s == '\0' || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* Places value's bits into config/config1/config2 per a sysfs format spec
 * such as "config:0-7", "config1:0-31" or "config:0-7,32-35". */
static int apply_format(struct perf_event_attr *attr, const char *spec, uint64_t value,
			char *err, size_t errlen, const char *term)
{
	char buf[128], *ranges, *tok;
	__u64 *field;
	unsigned bit = 0;

	strlcpy(buf, spec, sizeof(buf));
	ranges = strchr(buf, ':');
	if (ranges == NULL)
		goto bad;
	*ranges++ = '\0';
	if (strcmp(buf, "config") == 0)
		field = &attr->config;
	else if (strcmp(buf, "config1") == 0)
		field = &attr->config1;
	else if (strcmp(buf, "config2") == 0)
		field = &attr->config2;
	else
		goto bad;
	while ((tok = strsep(&ranges, ",")) != NULL) {
		unsigned lo, hi;

		if (sscanf(tok, "%u-%u", &lo, &hi) != 2) {
			if (sscanf(tok, "%u", &lo) != 1)
				goto bad;
			hi = lo;
		}
		if (hi < lo || hi > 63)
			goto bad;
		for (unsigned b = lo; b <= hi; b++, bit++) {
			if (bit < 64 && (value >> bit) & 1)
				*field |= 1ULL << b;
		}
	}
	if (bit < 64 && (value >> bit) != 0) {
		snprintf(err, errlen, "value 0x%llx does not fit term '%s' (%u bits)",
			 (unsigned long long)value, term, bit);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "term '%s' has a format this version cannot read: %s", term, spec);
	return -1;
}

static int pmu_terms(const char *pmu, char *terms, struct evspec *out, char *err, size_t errlen,
		     int depth);

static int pmu_term(const char *pmu, char *term, struct evspec *out, char *err, size_t errlen, int depth)
{
	char path[512], spec[256], *eq = strchr(term, '=');
	const char *val = eq ? eq + 1 : "1";
	uint64_t v;

	if (eq)
		*eq = '\0';
	if (*term == '\0') {
		snprintf(err, errlen, "empty term in %s/…/", pmu);
		return -1;
	}
	if (strcmp(term, "name") == 0) {
		if (!eq || !*val) {
			snprintf(err, errlen, "name= wants a value");
			return -1;
		}
		strlcpy(out->name, val, sizeof(out->name));
		return 0;
	}
	if (!eq) {
		/* A bare word is an alias from the PMU's events/ directory. */
		snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/events/%s", sysfs_root, pmu, term);
		if (depth == 0 && read_small_file(path, spec, sizeof(spec)) == 0)
			return pmu_terms(pmu, spec, out, err, errlen, depth + 1);
	}
	if (parse_u64_str(val, &v)) {
		snprintf(err, errlen, "term '%s' wants a number, not '%s'", term, val);
		return -1;
	}
	if (strcmp(term, "config") == 0 || strcmp(term, "config1") == 0 || strcmp(term, "config2") == 0) {
		__u64 *f = term[6] == '\0' ? &out->attr.config : term[6] == '1' ? &out->attr.config1
			 : &out->attr.config2;
		*f = v;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/format/%s", sysfs_root, pmu, term);
	if (read_small_file(path, spec, sizeof(spec))) {
		snprintf(err, errlen, "PMU %s has no term '%s' (see %s/bus/event_source/devices/%s/format)",
			 pmu, term, sysfs_root, pmu);
		return -1;
	}
	return apply_format(&out->attr, spec, v, err, errlen, term);
}

static int pmu_terms(const char *pmu, char *terms, struct evspec *out, char *err, size_t errlen, int depth)
{
	char *tok;

	while ((tok = strsep(&terms, ",")) != NULL)
		if (pmu_term(pmu, tok, out, err, errlen, depth))
			return -1;
	return 0;
}

static int parse_pmu(const char *str, size_t len, struct evspec *out, char *err, size_t errlen)
{
	char buf[EVSPEC_NAME_MAX * 2], pmu[64], path[512], type[32], *slash, *terms;
	uint64_t t;

	if (len >= sizeof(buf)) {
		snprintf(err, errlen, "event %.40s…: too long", str);
		return -1;
	}
	memcpy(buf, str, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	*slash = '\0';
	terms = slash + 1;
	if (len < 2 || buf[len - 1] != '/' || terms > buf + len - 1) {
		snprintf(err, errlen, "event %s: a PMU event looks like pmu/term=value,…/", str);
		return -1;
	}
	buf[len - 1] = '\0';
	strlcpy(pmu, buf, sizeof(pmu));
	if (pmu[0] == '\0' || strchr(pmu, '.') == pmu || strstr(pmu, "..")) {
		snprintf(err, errlen, "event %s: no PMU name before '/'", str);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type", sysfs_root, pmu);
	if (read_small_file(path, type, sizeof(type)) || parse_u64_str(type, &t) || t > UINT32_MAX) {
		snprintf(err, errlen, "PMU '%s' not found in %s/bus/event_source/devices", pmu, sysfs_root);
		return -1;
	}
	out->attr.type = (uint32_t)t;
	if (*terms == '\0') {
		snprintf(err, errlen, "event %s: no terms between the slashes", str);
		return -1;
	}
	return pmu_terms(pmu, terms, out, err, errlen, 0);
}

static const char *tracefs_dir(void)
{
	static const char *const candidates[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	static char found[256];
	char path[300];
	struct stat st;

	if (tracefs_root[0])
		return tracefs_root;
	for (size_t i = 0; i < NELEM(candidates); i++) {
		snprintf(path, sizeof(path), "%s/events", candidates[i]);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			strlcpy(found, candidates[i], sizeof(found));
			return found;
		}
	}
	return NULL;
}

static int parse_tracepoint(const char *sys, size_t syslen, const char *name, size_t namelen,
			    struct evspec *out, char *err, size_t errlen)
{
	const char *root = tracefs_dir();
	char path[600], id[32], events[300];
	struct stat st;
	uint64_t v;

	for (size_t i = 0; i < syslen; i++)
		if (!(isalnum((unsigned char)sys[i]) || sys[i] == '_' || sys[i] == '-'))
			goto unknown;
	for (size_t i = 0; i < namelen; i++)
		if (!(isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-'))
			goto unknown;
	snprintf(events, sizeof(events), "%s/events", root ? root : "");
	if (root == NULL || stat(events, &st) != 0) {
		snprintf(err, errlen, "tracepoint %.*s:%.*s: tracefs is not mounted: "
			 "mount -t tracefs nodev /sys/kernel/tracing", (int)syslen, sys, (int)namelen, name);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/%.*s/%.*s/id", root, (int)syslen, sys, (int)namelen, name);
	if (read_small_file(path, id, sizeof(id)) || parse_u64_str(id, &v)) {
		snprintf(err, errlen, "tracepoint %.*s:%.*s not found in %s/events", (int)syslen, sys,
			 (int)namelen, name, root);
		return -1;
	}
	out->attr.type = PERF_TYPE_TRACEPOINT;
	out->attr.config = v;
	return 0;
unknown:
	snprintf(err, errlen, "event %.*s:%.*s: not a known event or tracepoint (see perftop --list-events)",
		 (int)syslen, sys, (int)namelen, name);
	return -1;
}

/* perf's get_event_modifier(): the first of u/k/h excludes the other two
 * privilege levels; G/H likewise for guest/host; u and p imply exclude_guest
 * unless G/H said otherwise. */
static int apply_modifiers(const char *mods, const char *event, struct evspec *out, char *err, size_t errlen)
{
	int eu = 0, ek = 0, eh = 0, eG = 0, eH = 0, exclude = 0, exclude_GH = 0, precise = 0;
	int precise_max = 0, idle = 0;

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
			snprintf(err, errlen, "event %s: unknown modifier '%c' (valid: u k h I G H p P)", event, *p);
			return -1;
		}
	}
	if (precise > 3) {
		snprintf(err, errlen, "event %s: at most :ppp (precise level 3)", event);
		return -1;
	}
	out->attr.exclude_user = (unsigned)eu;
	out->attr.exclude_kernel = (unsigned)ek;
	out->attr.exclude_hv = (unsigned)eh;
	out->attr.exclude_guest = (unsigned)eG;
	out->attr.exclude_host = (unsigned)eH;
	out->attr.exclude_idle = (unsigned)idle;
	out->attr.precise_ip = (unsigned)(precise_max ? 3 : precise);
	out->has_modifiers = exclude || exclude_GH;
	return 0;
}

/* Everything but pmu/…/ and tracepoints: a name from the tables or rHEX. */
static int parse_plain(const char *name, size_t len, struct evspec *out)
{
	const struct named *n;
	char buf[EVSPEC_NAME_MAX];
	uint64_t config;

	if ((n = find_named(hw_events, NELEM(hw_events), name, len)) != NULL) {
		out->attr.type = PERF_TYPE_HARDWARE;
		out->attr.config = n->config;
		return 0;
	}
	if ((n = find_named(sw_events, NELEM(sw_events), name, len)) != NULL) {
		out->attr.type = PERF_TYPE_SOFTWARE;
		out->attr.config = n->config;
		return 0;
	}
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (parse_cache(buf, &config) == 0) {
		out->attr.type = PERF_TYPE_HW_CACHE;
		out->attr.config = config;
		return 0;
	}
	if (buf[0] == 'r' && buf[1]) {
		char *end;

		for (size_t i = 1; buf[i]; i++)
			if (!isxdigit((unsigned char)buf[i]))
				return -2;
		errno = 0;
		config = strtoull(buf + 1, &end, 16);
		if (errno || len > 17)
			return -2;
		out->attr.type = PERF_TYPE_RAW;
		out->attr.config = config;
		return 0;
	}
	return -1;
}

int evspec_parse(const char *str, struct evspec *out, char *err, size_t errlen)
{
	size_t len = strlen(str);
	const char *colon, *mods = NULL, *slash;
	size_t namelen;
	int rc;

	memset(out, 0, sizeof(*out));
	out->attr.size = sizeof(out->attr);
	if (len == 0) {
		snprintf(err, errlen, "empty event name");
		return -1;
	}
	if (len >= EVSPEC_NAME_MAX) {
		snprintf(err, errlen, "event %.40s…: name too long", str);
		return -1;
	}
	strlcpy(out->name, str, sizeof(out->name));

	slash = strchr(str, '/');
	if (slash) {
		/* pmu/terms/ or pmu/terms/:mods */
		const char *close = strrchr(str, '/');

		if (close == slash) {
			snprintf(err, errlen, "event %s: a PMU event looks like pmu/term=value,…/", str);
			return -1;
		}
		if (close[1] == ':')
			mods = close + 2;
		else if (close[1] != '\0') {
			snprintf(err, errlen, "event %s: unexpected text after the closing '/'", str);
			return -1;
		}
		if (parse_pmu(str, (size_t)(close - str) + 1, out, err, errlen))
			return -1;
		return mods ? apply_modifiers(mods, str, out, err, errlen) : 0;
	}

	colon = strchr(str, ':');
	namelen = colon ? (size_t)(colon - str) : len;
	if (colon) {
		const char *second = strchr(colon + 1, ':');

		/* "name:mods" unless it is "sys:tracepoint[:mods]". */
		if (second == NULL && parse_plain(str, namelen, out) == 0) {
			mods = colon + 1;
			if (*mods == '\0') {
				snprintf(err, errlen, "event %s: empty modifier after ':'", str);
				return -1;
			}
			return apply_modifiers(mods, str, out, err, errlen);
		}
		{
			const char *name = colon + 1;
			size_t nlen = second ? (size_t)(second - name) : strlen(name);

			memset(&out->attr, 0, sizeof(out->attr));
			out->attr.size = sizeof(out->attr);
			if (namelen == 0 || nlen == 0) {
				snprintf(err, errlen, "event %s: empty name around ':'", str);
				return -1;
			}
			if (parse_tracepoint(str, namelen, name, nlen, out, err, errlen))
				return -1;
			return second ? apply_modifiers(second + 1, str, out, err, errlen) : 0;
		}
	}
	rc = parse_plain(str, len, out);
	if (rc == -2) {
		snprintf(err, errlen, "event %s: a raw event is r followed by up to 16 hex digits", str);
		return -1;
	}
	if (rc) {
		snprintf(err, errlen, "unknown event '%s' (see perftop --list-events)", str);
		return -1;
	}
	return 0;
}

int evspec_parse_list(const char *list, struct evspec **out, size_t *n, char *err, size_t errlen)
{
	struct evspec *arr = NULL;
	size_t cnt = 0;
	const char *p = list;

	*out = NULL;
	*n = 0;
	for (;;) {
		const char *start = p;
		int depth = 0;
		char item[EVSPEC_NAME_MAX * 2];
		struct evspec *grown;

		/* Commas inside pmu/…/ belong to the event. */
		while (*p && (*p != ',' || depth)) {
			if (*p == '/')
				depth = !depth;
			p++;
		}
		if (p == start) {
			snprintf(err, errlen, "empty event in list '%s'", list);
			goto fail;
		}
		if ((size_t)(p - start) >= sizeof(item)) {
			snprintf(err, errlen, "event %.40s…: name too long", start);
			goto fail;
		}
		memcpy(item, start, (size_t)(p - start));
		item[p - start] = '\0';
		grown = reallocarray(arr, cnt + 1, sizeof(*arr));
		if (grown == NULL) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		arr = grown;
		if (evspec_parse(item, &arr[cnt], err, errlen))
			goto fail;
		cnt++;
		if (*p == '\0')
			break;
		p++; /* the comma */
	}
	*out = arr;
	*n = cnt;
	return 0;
fail:
	free(arr);
	return -1;
}

static const char *const excl_words[] = { "user", "kernel", "hv", "idle", "host", "guest" };

int exclude_parse(const char *list, unsigned *bits, char *err, size_t errlen)
{
	char buf[256], *p = buf, *tok;

	*bits = 0;
	if (strlcpy(buf, list, sizeof(buf)) >= sizeof(buf)) {
		snprintf(err, errlen, "--exclude list too long");
		return -1;
	}
	if (buf[0] == '\0')
		return 0;
	while ((tok = strsep(&p, ",")) != NULL) {
		size_t i;

		for (i = 0; i < NELEM(excl_words); i++)
			if (strcmp(tok, excl_words[i]) == 0)
				break;
		if (i == NELEM(excl_words)) {
			snprintf(err, errlen, "--exclude: unknown word '%s' (valid: user,kernel,hv,idle,host,guest)", tok);
			return -1;
		}
		*bits |= 1u << i;
	}
	return 0;
}

void exclude_format(unsigned bits, char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NELEM(excl_words); i++)
		if (bits & (1u << i))
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", off ? "," : "",
						excl_words[i]);
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

/* One real open on this process, any CPU: the honest answer to "supported?". */
static int probe(const struct perf_event_attr *tmpl)
{
	struct perf_event_attr a = *tmpl;
	int fd;

	a.size = sizeof(a);
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		/* Unprivileged users may still count their own user time. */
		if (e == EACCES || e == EPERM) {
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
			fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0)
				return -errno;
			close(fd);
			return 0;
		}
		return -e;
	}
	close(fd);
	return 0;
}

static void list_one(FILE *out, const char *name, const char *kind, uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.config = config;
	rc = probe(&a);
	fprintf(out, "  %-32s [%s]  %s%s%s\n", name, kind, rc ? "not supported (" : "supported",
		rc ? strerrorname_np(-rc) : "", rc ? ")" : "");
}

void evspec_list_print(FILE *out)
{
	static const char *const ops[] = { "loads", "load-misses", "stores", "store-misses",
					   "prefetches", "prefetch-misses" };
	const char *root = tracefs_dir();
	char path[512];
	DIR *d;
	struct dirent *de;

	fputs("Hardware events\n", out);
	for (size_t i = 0; i < NELEM(hw_events); i++)
		list_one(out, hw_events[i].name, "Hardware event", PERF_TYPE_HARDWARE, hw_events[i].config);
	fputs("\nSoftware events\n", out);
	for (size_t i = 0; i < NELEM(sw_events); i++)
		list_one(out, sw_events[i].name, "Software event", PERF_TYPE_SOFTWARE, sw_events[i].config);
	fputs("\nHardware cache events\n", out);
	for (size_t i = 0; i < NELEM(cache_ids); i++)
		for (size_t k = 0; k < NELEM(ops); k++) {
			char name[64];
			uint64_t config;

			snprintf(name, sizeof(name), "%s-%s", cache_ids[i].name, ops[k]);
			if (parse_cache(name, &config) == 0)
				list_one(out, name, "Hardware cache event", PERF_TYPE_HW_CACHE, config);
		}
	fputs("\nRaw events\n  rNNNN                            [Raw hardware event descriptor]\n", out);
	fputs("\nPMUs (use as pmu/term=value,…/; terms in .../format, aliases in .../events)\n", out);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices", sysfs_root);
	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			char tpath[1024], type[32];

			if (de->d_name[0] == '.')
				continue;
			snprintf(tpath, sizeof(tpath), "%s/%s/type", path, de->d_name);
			if (read_small_file(tpath, type, sizeof(type)) == 0)
				fprintf(out, "  %-32s [type %s]\n", de->d_name, type);
		}
		closedir(d);
	}
	fputs("\nTracepoints\n", out);
	snprintf(path, sizeof(path), "%s/events", root ? root : "");
	if (root == NULL || (d = opendir(path)) == NULL) {
		fputs("  tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing\n", out);
		return;
	}
	{
		size_t systems = 0;

		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.' && de->d_type == DT_DIR)
				systems++;
		closedir(d);
		fprintf(out, "  %zu subsystems under %s/events: use subsys:name (e.g. sched:sched_switch)\n",
			systems, root);
	}
}
