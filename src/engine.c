#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "cpumap.h"
#include "ring.h"

#define MAX_WATCH 4
#define DRAIN_SLICE_NS 20000000ull /* a drain pass between epoll waits: 20 ms */
#define DRAIN_CHECK_EVERY 256      /* records between clock reads */

enum src_kind { SRC_RING, SRC_TIMER, SRC_SIGNAL, SRC_PIDFD, SRC_WATCH, SRC_SPILL, SRC_QUIT };

/* The spill: a reader thread moves each kernel ring's records into a larger
 * ring of ours as soon as the kernel wakes it, so that a main loop busy
 * loading a symbol table, drawing, or blocked on a slow pipe never lets a
 * kernel ring overflow. The main loop decodes from the spill. */
#define SPILL_FACTOR 4               /* spill = 4 kernel rings (~3 s at full rate)... */
#define SPILL_MIN (4u << 20)         /* ...at least 4 MiB... */
#define SPILL_TOTAL_MAX (1ull << 30) /* ...and 1 GiB over all CPUs at most */

struct src {
	enum src_kind kind;
	size_t idx;
};

struct watch {
	int fd;
	void (*cb)(void *arg);
	void *arg;
};

struct idmap_slot {
	uint64_t id;
	int ev; /* -1 tracking; slot empty when id == 0 */
};

struct engine {
	struct engine_opts o;
	struct evspec *events;
	bool *enabled;
	uint64_t *prev_enabled, *prev_running; /* [ev], for engine_running_pct */
	int *cpus;
	size_t ncpus;
	pid_t *tids;          /* one entry of -1 when system-wide */
	size_t ntids;
	int *track;           /* [cpu][tid] dummy fds; [cpu][0] owns the ring */
	int *fds;             /* [ev][cpu][tid] */
	struct ring *rings;   /* [cpu] */
	struct ring *spill;   /* [cpu]: written under spill_lock[cpu], read by the main loop */
	pthread_mutex_t *spill_lock;
	size_t nlocks;        /* initialised */
	pthread_t reader;
	bool reader_on;
	int rd_epfd, rd_quit, rd_notify; /* the reader's epoll; eventfds to it and from it */
	uint64_t rd_wakeups;  /* the reader's: atomic */
	bool backlog;         /* a spill still holds records after the last pass */
	size_t first_cpu;     /* where the last drain pass began */
	struct src *ring_src, timer_src, signal_src, *pid_src, watch_src[MAX_WATCH];
	struct src quit_src, spill_src;
	int *pidfds;
	size_t npidfds;
	struct watch watch[MAX_WATCH];
	size_t nwatch;
	struct idmap_slot *ids;
	size_t ids_mask, nids_used;
	uint64_t last_id;
	int last_ev;
	int epfd, tfd, sfd;
	int cgroup_fd;
	sigset_t sigs;
	const struct engine_handlers *h;
	bool stop;
	bool started;         /* events on and timer armed (engine_start) */
	char notice[256];
	struct engine_stats st;
	size_t pages;
};

static int set_event_state(struct engine *e, size_t ev, bool on);

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags | PERF_FLAG_FD_CLOEXEC);
}

static inline int *fd_at(struct engine *e, size_t ev, size_t c, size_t t)
{
	return &e->fds[(ev * e->ncpus + c) * e->ntids + t];
}

static inline int *track_at(struct engine *e, size_t c, size_t t)
{
	return &e->track[c * e->ntids + t];
}

size_t engine_default_pages(uint64_t freq, size_t nevents, size_t page_size)
{
	/* About a second of samples at the full rate, woken at half: wakeups
	 * (context switches, dear in a VM) stay near one or two a second per
	 * CPU whatever the rate, and the other half is slack for a slow
	 * wakeup. The interval tick drains the rings too, so the screen is
	 * never staler than the interval. */
	uint64_t bytes = freq * (nevents ? nevents : 1) * 56;
	size_t pages = 16;

	while ((uint64_t)pages * page_size < bytes && pages < 1024)
		pages <<= 1;
	return pages;
}

static uint32_t watermark_bytes(size_t pages, size_t page_size)
{
	return (uint32_t)(pages * page_size / 2);
}

void engine_build_attr(struct perf_event_attr *attr, const struct evspec *ev,
		       const struct engine_opts *o, bool inherit)
{
	*attr = ev->attr;
	attr->size = sizeof(*attr);
	attr->sample_type = RECORD_SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->inherit = inherit;
	if (o->period || ev->attr.type == PERF_TYPE_TRACEPOINT) {
		/* Tracepoints: every hit, as perf does, unless -c says otherwise. */
		attr->freq = 0;
		attr->sample_period = o->period ? o->period : 1;
	} else {
		attr->freq = 1;
		attr->sample_freq = o->freq;
	}
	attr->watermark = 1;
	/* read() then tells how long the event really ran: multiplexing. */
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* Whether MMAP2 records may carry build-ids (attr.build_id, Linux 5.12):
 * probed once with a disabled event on ourselves; a kernel that rejects
 * the bit gets the inode form, silently. */
static bool mmap_build_id_supported(void)
{
	static int state; /* 0 unknown, 1 yes, -1 no */
	struct perf_event_attr attr;
	int fd;

	if (state)
		return state > 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	state = fd >= 0 ? 1 : -1;
	if (fd >= 0)
		close(fd);
	return state > 0;
}

static void tracking_attr(struct perf_event_attr *attr, bool inherit)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = RECORD_SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	/* The build-id keys the file as it was mapped, even once replaced. */
	attr->build_id = mmap_build_id_supported();
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->inherit = inherit;
	attr->watermark = 1;
	/* It counts nothing, and side-band records come regardless: excluding
	 * the kernel (as perf's aux dummy does) lets perf_event_paranoid=2
	 * allow it for an unprivileged -p PID --exclude kernel. */
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static void idmap_put(struct idmap_slot *tab, size_t mask, uint64_t id, int ev)
{
	size_t i;

	for (i = (size_t)(id * 0x9e3779b97f4a7c15ULL) & mask; tab[i].id && tab[i].id != id;
	     i = (i + 1) & mask)
		;
	tab[i].id = id;
	tab[i].ev = ev;
}

/* Re-opens (exclude changes) keep adding ids: old ones stay so that samples
 * still queued under them are counted, hence the table grows. */
static int idmap_add(struct engine *e, int fd, int ev)
{
	uint64_t id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	if (2 * (e->nids_used + 1) > e->ids_mask + 1) {
		size_t nmask = 2 * (e->ids_mask + 1) - 1;
		struct idmap_slot *n = calloc(nmask + 1, sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		for (size_t i = 0; i <= e->ids_mask; i++)
			if (e->ids[i].id)
				idmap_put(n, nmask, e->ids[i].id, e->ids[i].ev);
		free(e->ids);
		e->ids = n;
		e->ids_mask = nmask;
	}
	idmap_put(e->ids, e->ids_mask, id, ev);
	e->nids_used++;
	return 0;
}

/* -2: an id we never opened (cannot happen unless the ring is corrupt). */
static inline int idmap_find(struct engine *e, uint64_t id)
{
	size_t i;

	if (id == e->last_id)
		return e->last_ev;
	for (i = (size_t)(id * 0x9e3779b97f4a7c15ULL) & e->ids_mask; e->ids[i].id;
	     i = (i + 1) & e->ids_mask) {
		if (e->ids[i].id == id) {
			e->last_id = id;
			e->last_ev = e->ids[i].ev;
			return e->last_ev;
		}
	}
	return -2;
}

static void paranoid_hint(char *err, size_t errlen, const char *what)
{
	char buf[32] = "?";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	snprintf(err, errlen, "%s: permission denied (perf_event_paranoid is %s): run as root or "
		 "with CAP_PERFMON, or lower it with sysctl kernel.perf_event_paranoid=-1, "
		 "or watch your own process with -p PID and --exclude kernel", what, buf);
}

static void open_error(struct engine *e, int errnum, const char *evname, int cpu, pid_t tid,
		       char *err, size_t errlen)
{
	char what[EVSPEC_NAME_MAX + 64];

	if (tid >= 0)
		snprintf(what, sizeof(what), "event %s (CPU %d, TID %d)", evname, cpu, (int)tid);
	else
		snprintf(what, sizeof(what), "event %s (CPU %d)", evname, cpu);
	switch (errnum) {
	case EACCES:
	case EPERM:
		paranoid_hint(err, errlen, what);
		break;
	case ENOENT:
	case EOPNOTSUPP:
		snprintf(err, errlen, "%s: not supported by this CPU's PMU (%s): see perftop --list-events",
			 what, strerrorname_np(errnum));
		break;
	case ENODEV:
		snprintf(err, errlen, "%s: CPU %d is offline or has no such PMU", what, cpu);
		break;
	case ESRCH:
		snprintf(err, errlen, "%s: no such process %d", what, (int)tid);
		break;
	case EMFILE:
	case ENFILE: {
		size_t need = e->ncpus * e->ntids * (e->o.nevents + 1) + 16;
		struct rlimit rl = { 0, 0 };

		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			rl.rlim_cur = 0;
		snprintf(err, errlen, "out of file descriptors: %zu needed, limit is %llu: "
			 "raise it (ulimit -n %zu) or watch fewer CPUs/threads/events",
			 need, (unsigned long long)rl.rlim_cur, need);
		break;
	}
	case EINVAL:
		snprintf(err, errlen, "%s: the kernel rejected its attributes (EINVAL): "
			 "check -F against kernel.perf_event_max_sample_rate and the modifiers", what);
		break;
	default:
		snprintf(err, errlen, "%s: perf_event_open failed: %s", what, strerror(errnum));
	}
}

static bool is_cycles(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES;
}

/* Opens one sampling event everywhere. Lowers precise_ip and falls back from
 * cycles to cpu-clock the way perf does, recording what it changed. */
static int open_event(struct engine *e, size_t ev, char *err, size_t errlen)
{
	struct evspec *spec = &e->events[ev];
	struct perf_event_attr attr;
	bool inherit = e->o.pids && !e->o.pids_are_tids;
	size_t c, t;

	pid_t cg = e->cgroup_fd;

retry:
	engine_build_attr(&attr, spec, &e->o, inherit);
	attr.wakeup_watermark = watermark_bytes(e->pages, (size_t)sysconf(_SC_PAGESIZE));
	for (c = 0; c < e->ncpus; c++) {
		for (t = 0; t < e->ntids; t++) {
			int fd = cg >= 0 ? sys_perf_event_open(&attr, cg, e->cpus[c], -1, PERF_FLAG_PID_CGROUP)
				 : sys_perf_event_open(&attr, e->tids[t], e->cpus[c], -1, 0);
			int errnum = errno;

			if (fd < 0 && errnum == ESRCH && e->tids[t] >= 0 && e->ntids > 1)
				continue; /* a thread that exited while we opened */
			if (fd < 0) {
				for (size_t cc = 0; cc < e->ncpus; cc++)
					for (size_t tt = 0; tt < e->ntids; tt++) {
						int *p = fd_at(e, ev, cc, tt);
						if (*p >= 0)
							close(*p);
						*p = -1;
					}
				if (spec->attr.precise_ip && (errnum == EINVAL || errnum == EOPNOTSUPP)) {
					spec->attr.precise_ip--;
					goto retry;
				}
				if (is_cycles(&spec->attr) &&
				    (errnum == ENOENT || errnum == EOPNOTSUPP || errnum == ENODEV)) {
					const char *mod = strchr(spec->name, ':');

					snprintf(e->notice, sizeof(e->notice),
						 "%s not supported here (%s: no hardware PMU): sampling cpu-clock instead",
						 spec->name, strerrorname_np(errnum));
					spec->attr.type = PERF_TYPE_SOFTWARE;
					spec->attr.config = PERF_COUNT_SW_CPU_CLOCK;
					spec->attr.precise_ip = 0;
					snprintf(spec->name, sizeof(spec->name), "cpu-clock%s", mod ? mod : "");
					goto retry;
				}
				open_error(e, errnum, spec->name, e->cpus[c], e->tids[t], err, errlen);
				return -errnum;
			}
			*fd_at(e, ev, c, t) = fd;
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *track_at(e, c, 0)) < 0 ||
			    idmap_add(e, fd, (int)ev) < 0) {
				int errnum2 = errno;

				snprintf(err, errlen, "event %s (CPU %d): cannot redirect into the CPU's ring: %s",
					 spec->name, e->cpus[c], strerror(errnum2));
				return -errnum2;
			}
		}
	}
	return 0;
}

static void close_event(struct engine *e, size_t ev)
{
	for (size_t c = 0; c < e->ncpus; c++)
		for (size_t t = 0; t < e->ntids; t++) {
			int *p = fd_at(e, ev, c, t);
			if (*p >= 0)
				close(*p);
			*p = -1;
		}
}

static int open_tracking(struct engine *e, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t c, t;
	int rc;

	tracking_attr(&attr, e->o.pids && !e->o.pids_are_tids);
	attr.wakeup_watermark = watermark_bytes(e->pages, page);
	for (c = 0; c < e->ncpus; c++) {
		for (t = 0; t < e->ntids; t++) {
			int fd = sys_perf_event_open(&attr, e->tids[t], e->cpus[c], -1, 0);

			if (fd < 0 && errno == ESRCH && e->tids[t] >= 0 && t > 0)
				continue;
			if (fd < 0) {
				rc = -errno;
				open_error(e, -rc, "dummy (tracking)", e->cpus[c], e->tids[t], err, errlen);
				return rc;
			}
			*track_at(e, c, t) = fd;
			if (t == 0) {
				rc = ring_mmap(&e->rings[c], fd, e->pages);
				if (rc) {
					snprintf(err, errlen, "cannot map a %zu KiB ring for CPU %d: %s%s",
						 e->pages * page / 1024, e->cpus[c], strerror(-rc),
						 rc == -EPERM ? " (raise kernel.perf_event_mlock_kb or use -m with fewer pages)" : "");
					return rc;
				}
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *track_at(e, c, 0)) < 0) {
				rc = -errno;
				snprintf(err, errlen, "CPU %d: cannot redirect tracking into the ring: %s",
					 e->cpus[c], strerror(-rc));
				return rc;
			}
			if ((rc = idmap_add(e, fd, -1)) != 0) {
				snprintf(err, errlen, "PERF_EVENT_IOC_ID failed: %s", strerror(-rc));
				return rc;
			}
		}
	}
	return 0;
}

static int collect_targets(struct engine *e, char *err, size_t errlen)
{
	size_t i;
	int rc;

	if (e->o.cpus) {
		e->cpus = reallocarray(NULL, e->o.ncpus, sizeof(*e->cpus));
		if (e->cpus == NULL)
			return -ENOMEM;
		memcpy(e->cpus, e->o.cpus, e->o.ncpus * sizeof(*e->cpus));
		e->ncpus = e->o.ncpus;
	} else if ((rc = cpumap_online("/sys", &e->cpus, &e->ncpus)) != 0) {
		snprintf(err, errlen, "cannot read the online CPUs from /sys: %s", strerror(-rc));
		return rc;
	}
	if (e->o.cgroup) {
		e->cgroup_fd = open(e->o.cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (e->cgroup_fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot open cgroup %s: %s (give a cgroup v2 directory, "
				 "e.g. /sys/fs/cgroup/system.slice/NAME.service)", e->o.cgroup, strerror(-rc));
			return rc;
		}
	}
	if (e->o.pids == NULL) {
		e->tids = malloc(sizeof(*e->tids));
		if (e->tids == NULL)
			return -ENOMEM;
		e->tids[0] = -1;
		e->ntids = 1;
		return 0;
	}
	for (i = 0; i < e->o.npids; i++) {
		pid_t *t = NULL, *grown;
		size_t nt = 0;

		if (e->o.pids_are_tids) {
			t = malloc(sizeof(*t));
			if (t == NULL)
				return -ENOMEM;
			t[0] = e->o.pids[i];
			nt = 1;
		} else if ((rc = thread_list(e->o.pids[i], &t, &nt)) != 0) {
			snprintf(err, errlen, "no such process: %d (check the PID with ps)", (int)e->o.pids[i]);
			return rc;
		}
		grown = reallocarray(e->tids, e->ntids + nt, sizeof(*e->tids));
		if (grown == NULL) {
			free(t);
			return -ENOMEM;
		}
		e->tids = grown;
		memcpy(e->tids + e->ntids, t, nt * sizeof(*t));
		e->ntids += nt;
		free(t);
	}
	return 0;
}

/* Raises the soft fd limit to the hard one when the open needs it. */
static void fd_budget(struct engine *e)
{
	size_t need = e->ncpus * e->ntids * (e->o.nevents + 1) + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
		/* Best effort: refused, the opens run short and say how many. */
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int epoll_add(struct engine *e, int fd, struct src *src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = src };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static int rd_add(struct engine *e, int fd, struct src *src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = src };

	return epoll_ctl(e->rd_epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static size_t spill_bytes(const struct engine *e)
{
	uint64_t ring = (uint64_t)e->pages * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t want = ring * SPILL_FACTOR, cap = SPILL_TOTAL_MAX / e->ncpus;
	uint64_t bytes = 1;

	if (want < SPILL_MIN)
		want = SPILL_MIN;
	if (want > cap)
		want = cap > ring ? cap : ring;
	while (bytes * 2 <= want)
		bytes *= 2;
	return (size_t)bytes;
}

/* Moves what the kernel wrote on CPU c into its spill; true when the spill
 * is half full, and the main loop should come and read it. */
static bool spill(struct engine *e, size_t c)
{
	bool full;

	pthread_mutex_lock(&e->spill_lock[c]);
	ring_transfer(&e->rings[c], &e->spill[c]);
	full = ring_pending(&e->spill[c]) * 2 >= e->spill[c].mask + 1;
	pthread_mutex_unlock(&e->spill_lock[c]);
	return full;
}

static void *reader_main(void *arg)
{
	struct engine *e = arg;
	struct epoll_event evs[16];

	for (;;) {
		int n = epoll_wait(e->rd_epfd, evs, 16, -1);
		bool notify = false;

		if (n < 0 && errno != EINTR)
			return NULL; /* the main loop still drains at every tick */
		for (int i = 0; i < n; i++) {
			struct src *s = evs[i].data.ptr;

			if (s->kind == SRC_QUIT)
				return NULL;
			__atomic_fetch_add(&e->rd_wakeups, 1, __ATOMIC_RELAXED);
			notify |= spill(e, s->idx);
			if (evs[i].events & (EPOLLHUP | EPOLLERR))
				/* The owning thread exited; other threads may still
				 * write here, so the tick drains it from now on. */
				epoll_ctl(e->rd_epfd, EPOLL_CTL_DEL, *track_at(e, s->idx, 0), NULL);
		}
		if (notify) {
			uint64_t one = 1;

			if (write(e->rd_notify, &one, sizeof(one)) < 0 && errno != EAGAIN)
				return NULL;
		}
	}
}

static int setup_spill(struct engine *e, char *err, size_t errlen)
{
	size_t bytes = spill_bytes(e), c;
	int rc;

	e->ring_src = calloc(e->ncpus, sizeof(*e->ring_src));
	e->spill = calloc(e->ncpus, sizeof(*e->spill));
	e->spill_lock = calloc(e->ncpus, sizeof(*e->spill_lock));
	if (e->ring_src == NULL || e->spill == NULL || e->spill_lock == NULL)
		return -ENOMEM;
	e->rd_epfd = epoll_create1(EPOLL_CLOEXEC);
	e->rd_quit = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	e->rd_notify = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->rd_epfd < 0 || e->rd_quit < 0 || e->rd_notify < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot set up the ring reader: %s", strerror(-rc));
		return rc;
	}
	for (c = 0; c < e->ncpus; c++) {
		if ((rc = pthread_mutex_init(&e->spill_lock[c], NULL)) != 0)
			return -rc;
		e->nlocks++;
		if ((rc = ring_alloc(&e->spill[c], bytes)) != 0) {
			snprintf(err, errlen, "cannot reserve a %zu MiB spill ring for CPU %d: %s",
				 bytes >> 20, e->cpus[c], strerror(-rc));
			return rc;
		}
		e->ring_src[c] = (struct src){ SRC_RING, c };
		if ((rc = rd_add(e, *track_at(e, c, 0), &e->ring_src[c])) != 0)
			return rc;
	}
	e->quit_src = (struct src){ SRC_QUIT, 0 };
	e->spill_src = (struct src){ SRC_SPILL, 0 };
	if ((rc = rd_add(e, e->rd_quit, &e->quit_src)) != 0 ||
	    (rc = epoll_add(e, e->rd_notify, &e->spill_src)) != 0)
		return rc;
	return 0;
}

/* Every signal blocked in the reader: they are the main loop's (signalfd),
 * and one delivered to the reader would end perftop with the terminal raw. */
static int start_reader(struct engine *e, char *err, size_t errlen)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	if ((rc = pthread_sigmask(SIG_BLOCK, &all, &old)) != 0)
		return -rc;
	rc = pthread_create(&e->reader, NULL, reader_main, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "cannot start the ring reader thread: %s", strerror(rc));
		return -rc;
	}
	e->reader_on = true;
	return 0;
}

static int setup_loop(struct engine *e, char *err, size_t errlen)
{
	int rc;

	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	sigemptyset(&e->sigs);
	sigaddset(&e->sigs, SIGINT);
	sigaddset(&e->sigs, SIGTERM);
	sigaddset(&e->sigs, SIGHUP);
	sigaddset(&e->sigs, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &e->sigs, NULL) < 0 || e->epfd < 0 || e->tfd < 0 ||
	    (e->sfd = signalfd(-1, &e->sigs, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot set up the event loop: %s", strerror(-rc));
		return rc;
	}
	if ((rc = setup_spill(e, err, errlen)) != 0)
		return rc;
	e->timer_src = (struct src){ SRC_TIMER, 0 };
	e->signal_src = (struct src){ SRC_SIGNAL, 0 };
	if ((rc = epoll_add(e, e->tfd, &e->timer_src)) || (rc = epoll_add(e, e->sfd, &e->signal_src)))
		return rc;
	/* The timer is armed by engine_run: reading /proc and kallsyms between
	 * open and run must not count as the first interval. */

	if (e->o.pids && !e->o.pids_are_tids) {
		e->pidfds = malloc(e->o.npids * sizeof(*e->pidfds));
		e->pid_src = calloc(e->o.npids, sizeof(*e->pid_src));
		if (e->pidfds == NULL || e->pid_src == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < e->o.npids; i++) {
			int fd = (int)syscall(SYS_pidfd_open, e->o.pids[i], 0);

			e->pidfds[e->npidfds++] = fd;
			e->pid_src[i] = (struct src){ SRC_PIDFD, i };
			if (fd >= 0 && (rc = epoll_add(e, fd, &e->pid_src[i])) != 0)
				return rc;
		}
	}
	return 0;
}

int engine_open(struct engine **out, const struct engine_opts *o, char *err, size_t errlen)
{
	struct engine *e;
	size_t nfds, nids, ev;
	long page = sysconf(_SC_PAGESIZE);
	int rc = -ENOMEM;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		goto nomem;
	e->o = *o;
	e->epfd = e->tfd = e->sfd = e->cgroup_fd = -1;
	e->rd_epfd = e->rd_quit = e->rd_notify = -1;
	e->last_id = UINT64_MAX;
	e->events = calloc(o->nevents, sizeof(*e->events));
	e->enabled = calloc(o->nevents, sizeof(*e->enabled));
	e->prev_enabled = calloc(o->nevents, sizeof(*e->prev_enabled));
	e->prev_running = calloc(o->nevents, sizeof(*e->prev_running));
	if (e->events == NULL || e->enabled == NULL || e->prev_enabled == NULL || e->prev_running == NULL)
		goto nomem;
	memcpy(e->events, o->events, o->nevents * sizeof(*e->events));
	for (ev = 0; ev < o->nevents; ev++)
		e->enabled[ev] = true;
	e->o.events = e->events;

	if ((rc = collect_targets(e, err, errlen)) != 0)
		goto fail;
	e->pages = o->mmap_pages ? o->mmap_pages
		   : engine_default_pages(o->period ? 4000 : o->freq, o->nevents, (size_t)page);

	nfds = o->nevents * e->ncpus * e->ntids;
	e->fds = malloc((nfds ? nfds : 1) * sizeof(*e->fds));
	e->track = malloc(e->ncpus * e->ntids * sizeof(*e->track));
	e->rings = calloc(e->ncpus, sizeof(*e->rings));
	for (nids = 16; nids < 2 * (nfds + e->ncpus * e->ntids); nids <<= 1)
		;
	e->ids = calloc(nids, sizeof(*e->ids));
	e->ids_mask = nids - 1;
	if (e->fds == NULL || e->track == NULL || e->rings == NULL || e->ids == NULL)
		goto nomem;
	memset(e->fds, -1, (nfds ? nfds : 1) * sizeof(*e->fds));
	memset(e->track, -1, e->ncpus * e->ntids * sizeof(*e->track));

	fd_budget(e);
	if ((rc = open_tracking(e, err, errlen)) != 0)
		goto fail;
	for (ev = 0; ev < o->nevents; ev++)
		if ((rc = open_event(e, ev, err, errlen)) != 0)
			goto fail;
	if ((rc = setup_loop(e, err, errlen)) != 0 || (rc = start_reader(e, err, errlen)) != 0)
		goto fail;
	*out = e;
	return 0;
nomem:
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory while opening events");
fail:
	engine_close(e);
	return rc;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void engine_close(struct engine *e)
{
	size_t i;

	if (e == NULL)
		return;
	if (e->reader_on) {
		uint64_t one = 1;

		/* An eventfd write cannot fail short of overflow: the reader
		 * always hears it, and is joined before its rings go. */
		if (write(e->rd_quit, &one, sizeof(one)) != (ssize_t)sizeof(one))
			pthread_cancel(e->reader);
		pthread_join(e->reader, NULL);
	}
	if (e->spill)
		for (i = 0; i < e->ncpus; i++)
			ring_unmap(&e->spill[i]);
	for (i = 0; i < e->nlocks; i++)
		pthread_mutex_destroy(&e->spill_lock[i]);
	close_fd(e->rd_epfd);
	close_fd(e->rd_quit);
	close_fd(e->rd_notify);
	if (e->fds)
		for (i = 0; i < e->o.nevents; i++)
			close_event(e, i);
	if (e->rings)
		for (i = 0; i < e->ncpus; i++)
			ring_unmap(&e->rings[i]);
	if (e->track)
		for (i = 0; i < e->ncpus * e->ntids; i++)
			if (e->track[i] >= 0)
				close(e->track[i]);
	for (i = 0; i < e->npidfds; i++)
		if (e->pidfds[i] >= 0)
			close(e->pidfds[i]);
	close_fd(e->cgroup_fd);
	close_fd(e->epfd);
	close_fd(e->tfd);
	if (e->sfd >= 0) {
		close(e->sfd);
		sigprocmask(SIG_UNBLOCK, &e->sigs, NULL);
	}
	free(e->pidfds);
	free(e->pid_src);
	free(e->ring_src);
	free(e->spill);
	free(e->spill_lock);
	free(e->ids);
	free(e->rings);
	free(e->track);
	free(e->fds);
	free(e->tids);
	free(e->cpus);
	free(e->enabled);
	free(e->prev_enabled);
	free(e->prev_running);
	free(e->events);
	free(e);
}

static void on_record(struct engine *e, const struct perf_event_header *hdr)
{
	struct record rec;
	enum record_status st = record_decode(hdr, &rec);
	int ev;

	e->st.records++;
	if (st == RECORD_IGNORED)
		return;
	if (st == RECORD_BAD) {
		e->st.bad_records++;
		return;
	}
	ev = idmap_find(e, rec.type == PERF_RECORD_LOST ? rec.lost.id
			   : rec.type == PERF_RECORD_THROTTLE || rec.type == PERF_RECORD_UNTHROTTLE
			   ? rec.throttle.id : rec.sid.id);
	if (ev == -2) {
		e->st.bad_records++;
		return;
	}
	if (rec.type == PERF_RECORD_SAMPLE)
		e->st.samples++;
	e->h->record(e->h->record_arg, ev, &rec);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What the reader has not moved yet, then the spill: everything up to now,
 * or what budget_ns allows (0: no limit). Under overload the main loop may
 * decode slower than the kernel samples; a bounded pass keeps the interval
 * clock, the keys and signals on time while the rest waits in the spill
 * (and, once that is full, the kernel counts its losses). */
static void drain_all_for(struct engine *e, uint64_t budget_ns)
{
	uint64_t deadline = budget_ns ? mono_ns() + budget_ns : UINT64_MAX;
	unsigned since_check = 0;

	e->backlog = false;
	/* Each pass starts one CPU on, so no CPU waits behind another's backlog. */
	e->first_cpu = e->first_cpu + 1 < e->ncpus ? e->first_cpu + 1 : 0;
	for (size_t i = 0; i < e->ncpus; i++) {
		size_t c = (e->first_cpu + i) % e->ncpus;
		struct ring *r = &e->spill[c];
		const struct perf_event_header *hdr;

		spill(e, c);
		if (mono_ns() < deadline && ring_read_begin(r) == 0) {
			while (ring_next(r, &hdr)) {
				on_record(e, hdr);
				if (++since_check == DRAIN_CHECK_EVERY) {
					since_check = 0;
					if (mono_ns() >= deadline)
						break;
				}
			}
			ring_read_done(r);
		}
		e->backlog |= ring_pending(r) != 0;
	}
}

static void drain_all(struct engine *e)
{
	drain_all_for(e, 0);
}

static void handle_signal(struct engine *e)
{
	struct signalfd_siginfo si;

	while (read(e->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		bool stop = si.ssi_signo != SIGWINCH;

		if (si.ssi_signo != SIGWINCH)
			engine_flush(e); /* the last interval holds all it can */
		if (e->h->signal)
			stop = e->h->signal(e->h->arg, (int)si.ssi_signo);
		if (stop)
			e->stop = true;
	}
}

static int arm_timer(struct engine *e, double seconds)
{
	struct itimerspec its;
	long ns = (long)(seconds * 1e9);

	its.it_interval.tv_sec = ns / 1000000000L;
	its.it_interval.tv_nsec = ns % 1000000000L;
	its.it_value = its.it_interval;
	return timerfd_settime(e->tfd, 0, &its, NULL) < 0 ? -errno : 0;
}

int engine_start(struct engine *e)
{
	for (size_t ev = 0; ev < e->o.nevents; ev++)
		if (e->enabled[ev])
			set_event_state(e, ev, true);
	e->started = true;
	return arm_timer(e, e->o.interval);
}

int engine_run(struct engine *e, const struct engine_handlers *h)
{
	struct epoll_event evs[16];
	size_t ev;
	int rc;

	e->h = h;
	e->stop = false;
	if (!e->started) {
		if ((rc = engine_start(e)) != 0)
			return rc;
		if (h->start)
			h->start(h->arg);
	}

	while (!e->stop) {
		/* A backlog: look at the other sources, then decode on. */
		int n = epoll_wait(e->epfd, evs, 16, e->backlog ? 0 : -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < n && !e->stop; i++) {
			struct src *s = evs[i].data.ptr;
			uint64_t ticks;

			switch (s->kind) {
			case SRC_SPILL:
				if (read(e->rd_notify, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
					return -errno;
				drain_all_for(e, DRAIN_SLICE_NS);
				break;
			case SRC_RING:
			case SRC_QUIT:
				break; /* the reader's */
			case SRC_TIMER:
				if (read(e->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
					return -errno;
				/* Up to a quarter interval of catching up: what is left
				 * counts in the next interval, which then comes on time. */
				drain_all_for(e, (uint64_t)(e->o.interval * 0.25e9) + 1);
				if (h->tick)
					h->tick(h->arg);
				break;
			case SRC_SIGNAL:
				handle_signal(e);
				break;
			case SRC_PIDFD:
				epoll_ctl(e->epfd, EPOLL_CTL_DEL, e->pidfds[s->idx], NULL);
				drain_all(e);
				if (h->pid_exit)
					h->pid_exit(h->arg, e->o.pids[s->idx]);
				break;
			case SRC_WATCH:
				e->watch[s->idx].cb(e->watch[s->idx].arg);
				break;
			}
		}
		if (e->backlog && !e->stop)
			drain_all_for(e, DRAIN_SLICE_NS);
	}
	/* Off, but remembered as they were: a later run turns the same ones on. */
	for (ev = 0; ev < e->o.nevents; ev++)
		set_event_state(e, ev, false);
	e->started = false;
	/* Nobody reads what comes after the stop: a quit is not held up. */
	drain_all_for(e, DRAIN_SLICE_NS);
	return 0;
}

/* One more interval at most: an exit under overload is not held up for
 * the whole spill either; what is left shows as stats.backlog_bytes. */
void engine_flush(struct engine *e)
{
	double secs = e->o.interval > 0.1 ? e->o.interval : 0.1;

	drain_all_for(e, (uint64_t)(secs * 1e9));
}

void engine_stop(struct engine *e)
{
	e->stop = true;
}

int engine_watch_fd(struct engine *e, int fd, void (*cb)(void *arg), void *arg)
{
	size_t i = e->nwatch;

	if (i == MAX_WATCH)
		return -ENOSPC;
	e->watch[i] = (struct watch){ fd, cb, arg };
	e->watch_src[i] = (struct src){ SRC_WATCH, i };
	e->nwatch++;
	return epoll_add(e, fd, &e->watch_src[i]);
}

int engine_set_interval(struct engine *e, double seconds)
{
	int rc;

	if (!(seconds >= 0.001 && seconds <= 3600))
		return -EINVAL;
	if (e->started && (rc = arm_timer(e, seconds)) != 0)
		return rc;
	e->o.interval = seconds; /* not started: engine_start arms it */
	return 0;
}

/* The ioctls alone; the wish (enabled[]) is the caller's business. */
static int set_event_state(struct engine *e, size_t ev, bool on)
{
	int rc = 0;

	for (size_t c = 0; c < e->ncpus; c++)
		for (size_t t = 0; t < e->ntids; t++) {
			int fd = *fd_at(e, ev, c, t);

			if (fd >= 0 && ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
				rc = -errno;
		}
	return rc;
}

int engine_enable_event(struct engine *e, size_t ev, bool on)
{
	if (ev >= e->o.nevents)
		return -EINVAL;
	e->enabled[ev] = on;
	return set_event_state(e, ev, on);
}

int engine_set_exclude(struct engine *e, size_t ev, unsigned excl, char *err, size_t errlen)
{
	struct evspec old;
	int *saved;
	size_t n = e->ncpus * e->ntids, c, t;
	int rc;

	if (ev >= e->o.nevents)
		return -EINVAL;
	saved = malloc(n * sizeof(*saved));
	if (saved == NULL)
		return -ENOMEM;
	old = e->events[ev];
	for (c = 0; c < e->ncpus; c++)
		for (t = 0; t < e->ntids; t++) {
			saved[c * e->ntids + t] = *fd_at(e, ev, c, t);
			*fd_at(e, ev, c, t) = -1;
		}
	evspec_set_exclude(&e->events[ev].attr, excl);
	rc = open_event(e, ev, err, errlen);
	if (rc) {
		close_event(e, ev);
		e->events[ev] = old;
		for (c = 0; c < e->ncpus; c++)
			for (t = 0; t < e->ntids; t++)
				*fd_at(e, ev, c, t) = saved[c * e->ntids + t];
	} else {
		for (size_t i = 0; i < n; i++)
			if (saved[i] >= 0)
				close(saved[i]);
		/* Samples still queued from the old fds keep their old ids: the
		 * map keeps those entries, so they are counted, not dropped. */
		if (e->enabled[ev])
			set_event_state(e, ev, true);
	}
	free(saved);
	return rc;
}

int engine_running_pct(struct engine *e, size_t ev)
{
	uint64_t en = 0, run = 0, d_en, d_run;

	if (ev >= e->o.nevents)
		return -1;
	/* A task's event on CPU c is enabled whenever the task runs, but runs
	 * only while it runs on c: per task, the enabled time is that of one
	 * CPU and the running times add up. A CPU-wide event counts alone. */
	for (size_t t = 0; t < e->ntids; t++) {
		uint64_t t_en = 0;

		for (size_t c = 0; c < e->ncpus; c++) {
			uint64_t v[3];
			int fd = *fd_at(e, ev, c, t);

			if (fd < 0 || read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
				continue;
			run += v[2];
			if (e->tids[t] < 0)
				en += v[1];
			else if (v[1] > t_en)
				t_en = v[1];
		}
		en += t_en;
	}
	/* A re-open restarts the fds' times: then the whole reading is new. */
	d_en = en >= e->prev_enabled[ev] ? en - e->prev_enabled[ev] : en;
	d_run = run >= e->prev_running[ev] ? run - e->prev_running[ev] : run;
	e->prev_enabled[ev] = en;
	e->prev_running[ev] = run;
	if (d_en == 0)
		return -1;
	/* Rounded: the fds are read one after another, a few µs apart. */
	return d_run >= d_en ? 100 : (int)((200 * d_run + d_en) / (2 * d_en));
}

const struct evspec *engine_event(const struct engine *e, size_t ev)
{
	return ev < e->o.nevents ? &e->events[ev] : NULL;
}

size_t engine_nevents(const struct engine *e) { return e->o.nevents; }
const char *engine_notice(const struct engine *e) { return e->notice[0] ? e->notice : NULL; }
size_t engine_ncpus(const struct engine *e) { return e->ncpus; }
int engine_cpu(const struct engine *e, size_t i) { return i < e->ncpus ? e->cpus[i] : -1; }

void engine_get_stats(const struct engine *e, struct engine_stats *st)
{
	*st = e->st;
	st->wakeups = __atomic_load_n(&e->rd_wakeups, __ATOMIC_RELAXED);
	st->backlog = 0;
	for (size_t c = 0; c < e->ncpus; c++) {
		pthread_mutex_lock(&e->spill_lock[c]);
		st->malformed += e->rings[c].malformed + e->spill[c].malformed;
		pthread_mutex_unlock(&e->spill_lock[c]);
		st->backlog += ring_pending(&e->spill[c]);
	}
}
