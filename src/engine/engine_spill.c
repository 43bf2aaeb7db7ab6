/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine spill: a reader thread moves each kernel ring's records into a
 * larger ring of ours as soon as the kernel wakes it, so that a main loop
 * busy loading a symbol table, drawing, or blocked on a slow pipe never lets
 * a kernel ring overflow. A drain pass that finds a CPU's kernel ring roomy
 * reads what the spill holds and then that ring itself (engine_spill_claim), the
 * reader kept off by its lock: no copy while the main loop keeps up. Else
 * the pass moves the rest in itself (a copy under the lock); with dwarf
 * stacks, whose cut works in the reader's scratch, it asks the reader
 * instead (engine_spill_sync). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"
#include "perfsys.h"

#define SPILL_FACTOR 4               /* spill = 4 kernel rings (~8 s at full rate)... */
#define SPILL_MIN (4u << 20)         /* ...at least 4 MiB... */
#define SPILL_TOTAL_MAX (1ull << 30) /* ...and 1 GiB over all CPUs at most */
#define SPILL_CHUNK ((uint64_t)256 << 10) /* the reader's move between looks at the main loop */
_Static_assert(SPILL_CHUNK >= RING_RECORD_MAX, "a chunk holds the largest record");

static int rd_add(struct engine *e, int fd, struct engine_src *src)
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

#define NEED_SLOTS 1024  /* direct-mapped by pid: a collision only means full copies */
#define NEED_MARGIN 512  /* bytes past twice the most a walk used */

static uint64_t *need_slot(const struct engine *e, pid_t pid)
{
	return &e->stack_need[((uint32_t)pid * 2654435761u) % NEED_SLOTS];
}

void engine_spill_stack_used(struct engine *e, pid_t pid, uint32_t bytes)
{
	uint64_t *slot, cur;

	if (e == NULL || e->stack_need == NULL)
		return;
	slot = need_slot(e, pid);
	cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (bytes == 0) {
		if (cur >> 32 == (uint32_t)pid)
			__atomic_store_n(slot, 0, __ATOMIC_RELAXED);
		return;
	}
	/* Only up: a high-water mark, and "all" stays. */
	if (cur >> 32 == (uint32_t)pid && ((uint32_t)cur == ENGINE_STACK_ALL || (uint32_t)cur >= bytes))
		return;
	__atomic_store_n(slot, (uint64_t)(uint32_t)pid << 32 | bytes, __ATOMIC_RELAXED);
}

uint64_t engine_spill_stack_keep(const struct engine *e, pid_t pid)
{
	uint64_t v;

	if (e->stack_need == NULL)
		return UINT64_MAX;
	v = __atomic_load_n(need_slot(e, pid), __ATOMIC_RELAXED);
	if (v >> 32 != (uint32_t)pid || (uint32_t)v == 0 || (uint32_t)v == ENGINE_STACK_ALL)
		return UINT64_MAX;
	return 2 * (uint64_t)(uint32_t)v + NEED_MARGIN;
}

/* A dwarf sample reserves its whole stack copy (8 KiB by default) in the
 * ring, and the unwinder reads a few hundred bytes of it: cut on the way
 * (to its valid bytes, and to what the process's walks use once learnt),
 * the spill holds many times more samples and the copy costs that much
 * less. */
static size_t cut_stack(void *arg, const struct perf_event_header *rec, struct ring_part *parts)
{
	struct engine *e = arg;
	struct record_piece pieces[RING_PARTS_MAX];
	struct record r;
	size_t n = 1;

	pieces[0] = (struct record_piece){ rec, rec->size };
	if (rec->type == PERF_RECORD_SAMPLE && record_decode_with(rec, &e->layout, &r) == RECORD_OK)
		n = record_cut_stack(rec, &r, engine_spill_stack_keep(e, (pid_t)r.sid.pid), pieces, e->rd_fix);

	for (size_t i = 0; i < n; i++)
		parts[i] = (struct ring_part){ pieces[i].p, pieces[i].len };
	return n;
}

/* Moves up to max bytes of what the kernel wrote on CPU c into its spill
 * (its lock held). Returns the bytes taken from the kernel ring. */
static uint64_t spill_move(struct engine *e, size_t c, uint64_t max)
{
	struct ring *ring = &e->rings[c];
	uint64_t tail = ring->meta->data_tail, wrote;

	/* dwarf only: -g's copies are 512 bytes, not worth a look per record. */
	if (e->stack_need) {
		wrote = ring_transfer_fit(ring, &e->spill[c], cut_stack, e, max);
		__atomic_fetch_add(&e->rd_cut, ring->meta->data_tail - tail - wrote, __ATOMIC_RELAXED);
	} else {
		wrote = ring_transfer(ring, &e->spill[c], max);
	}
	__atomic_fetch_add(&e->rd_spilled, wrote, __ATOMIC_RELAXED);
	return ring->meta->data_tail - tail;
}

/* Whether the main loop should come and read CPU c's spill: it is half
 * full, or holds half of what stays resident (past that a pass's worth no
 * longer rewinds into the kept pages, and every page written faults in
 * anew: big call-graph samples fill that much well within an interval). */
static bool spill_wants_main(const struct engine *e, size_t c)
{
	const struct ring *sp = &e->spill[c];
	uint64_t pending = ring_pending(sp);

	return pending * 2 >= sp->mask + 1 || (sp->keep_max && pending * 2 >= sp->keep_max);
}

/* The reader's move of CPU c's ring, a chunk at a time, the lock let go
 * between chunks. It stops where the pass reads this ring in place, or
 * waits for a lock and can move the rest itself (not dwarf: its cut works
 * in the reader's scratch, and the pass waits for the reader instead).
 * Starved of CPU on a busy machine, a reader that held the lock through a
 * whole ring's copy (16 MiB at -g 20 kHz, a fresh page every 4 KiB) kept
 * the main loop waiting for seconds, while the spill filled and the kernel
 * dropped samples. */
static bool spill_cpu(struct engine *e, size_t c)
{
	/* What was there when called, not what comes meanwhile: at a high
	 * rate the kernel always has another record, and a copy that chased
	 * them need never end. */
	uint64_t left = ring_pending(&e->rings[c]), taken;

	do {
		pthread_mutex_lock(&e->spill_lock[c]);
		taken = __atomic_load_n(&e->direct[c], __ATOMIC_ACQUIRE)
				? 0
				: spill_move(e, c, left < SPILL_CHUNK ? left : SPILL_CHUNK);
		pthread_mutex_unlock(&e->spill_lock[c]);
		left = taken < left ? left - taken : 0;
	} while (taken && left && (e->stack_need || !__atomic_load_n(&e->main_waits, __ATOMIC_ACQUIRE)));
	return spill_wants_main(e, c);
}

/* The main loop's lock of CPU c: a reader copying gives way at its next
 * chunk. */
static void main_lock(struct engine *e, size_t c)
{
	if (pthread_mutex_trylock(&e->spill_lock[c]) == 0)
		return;
	__atomic_fetch_add(&e->main_waits, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&e->spill_lock[c]);
	__atomic_fetch_sub(&e->main_waits, 1, __ATOMIC_RELEASE);
}

/* Whether the main loop may read CPU c's kernel ring itself: not dwarf
 * (its stacks are cut on the way to the spill), and the ring holds at most
 * max_pending. */
static bool roomy(const struct engine *e, size_t c, uint64_t max_pending)
{
	return e->direct_ns && e->stack_need == NULL && ring_pending(&e->rings[c]) <= max_pending;
}

/* The guard's bound after a watermark left to the main loop: its next
 * tick's pass and half an interval more. Set from the sample rate alone
 * the guard could come late for a burst of process churn, which the
 * watermark's bytes count. */
static uint64_t late_ns(const struct engine *e)
{
	return e->o.interval > 0 ? (uint64_t)(e->o.interval * 1.5e9) : 0;
}

/* The reader, woken by CPU c's ring. A ring the main loop reads itself
 * now is left to it. With -g the main loop is called at every wakeup, and
 * while it keeps up it reads the ring itself: a sample's 800 bytes are not
 * copied, nor spill pages touched (measured at 20 kHz: the copies and the
 * spill's page faults were a third of perftop's CPU). Flat, a ring with
 * room is left to the next tick's pass, the guard set to come if that
 * pass does not (measured at 4 kHz: the reader's time 0.27 -> 0.05 ms a
 * second). Else, and whenever the main loop lags, the reader moves the
 * records into the spill. */
static bool spill_woken(struct engine *e, size_t c)
{
	bool notify = false, guard = false, copy = false;

	if (__atomic_load_n(&e->direct[c], __ATOMIC_ACQUIRE))
		return false;
	pthread_mutex_lock(&e->spill_lock[c]);
	/* Left to the main loop, the ring is woken again once e->wake more
	 * bytes are written: a quarter of the ring is kept free past that. */
	if (e->wake_main && roomy(e, c, (e->rings[c].mask + 1) / 4 * 3 - e->wake))
		notify = true;
	else if (e->flat_guard && e->rd_guard >= 0 && roomy(e, c, (e->rings[c].mask + 1) / 2))
		guard = true;
	else
		copy = true;
	pthread_mutex_unlock(&e->spill_lock[c]);
	/* Not armed (an unusable timer): the copy after all. */
	if (copy || (guard && engine_spill_guard(e, late_ns(e)) != 0))
		notify = spill_cpu(e, c);
	return notify;
}

bool engine_spill_claim(struct engine *e, bool transfer)
{
	bool any = false;

	for (size_t c = 0; c < e->ncpus; c++) {
		main_lock(e, c);
		/* Half the ring free for what comes while the pass holds the
		 * reader off. What the spill holds (the records a pass held
		 * back, what the reader moved) is older: read first. */
		if (roomy(e, c, (e->rings[c].mask + 1) / 2)) {
			/* Locked until engine_spill_unclaim: the reader keeps off. */
			__atomic_store_n(&e->direct[c], true, __ATOMIC_RELEASE);
			e->claim_tail[c] = e->rings[c].meta->data_tail;
			order_source(&e->order, c, &e->spill[c], &e->rings[c]);
			any = true;
			continue;
		}
		/* Without dwarf's cut (it works in the reader's scratch), a
		 * transfer is a copy under the spill's lock, which keeps the
		 * reader out: the main loop makes it itself instead of waking
		 * the reader and sleeping until it is done, two trips through
		 * the scheduler every tick. A pass that goes on with a
		 * backlog moves a ring past three quarters too: the reader
		 * gives way to a pass that waits for the lock, and leaves
		 * the rest. */
		if (e->stack_need == NULL && (transfer || ring_pending(&e->spill[c]) == 0 ||
					      ring_pending(&e->rings[c]) > (e->rings[c].mask + 1) / 4 * 3))
			spill_move(e, c, UINT64_MAX);
		order_source(&e->order, c, &e->spill[c], NULL);
		pthread_mutex_unlock(&e->spill_lock[c]);
	}
	return any;
}

/* CPU c's kernel ring back to the reader: what the pass read there counts
 * as read in place. */
static void unclaim_cpu(struct engine *e, size_t c)
{
	e->st.in_place += e->rings[c].meta->data_tail - e->claim_tail[c];
	__atomic_store_n(&e->direct[c], false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&e->spill_lock[c]);
}

void engine_spill_unclaim(struct engine *e)
{
	for (size_t c = 0; c < e->ncpus; c++)
		if (e->direct[c])
			unclaim_cpu(e, c);
}

void engine_spill_hand_back(struct engine *e)
{
	if (e == NULL || e->direct == NULL)
		return;
	for (size_t c = 0; c < e->ncpus; c++) {
		if (!e->direct[c] || order_release(&e->order, c) != 0)
			continue; /* not read in place, or no copy to be had: kept */
		unclaim_cpu(e, c);
		e->st.handed_back++;
		e->handed_back = true;
	}
}

/* The main loop is late: every ring it is not reading now that filled
 * past half goes into its spill, and the timer is set anew from what the
 * rings hold. A ring with room is left for the pass: the timer is set from
 * the full rate, which --off-cpu sizes for a busy machine's switches, so
 * it came before every tick and copied what the pass would have read in
 * place (70 % of the live view's bytes). */
static bool guard_fired(struct engine *e)
{
	uint64_t ticks;
	bool notify = false;

	if (read(e->rd_guard, &ticks, sizeof(ticks)) < 0)
		return false; /* re-armed by a pass meanwhile */
	__atomic_fetch_add(&e->rd_wakeups, 1, __ATOMIC_RELAXED);
	for (size_t c = 0; c < e->ncpus; c++) {
		bool room;

		if (__atomic_load_n(&e->direct[c], __ATOMIC_ACQUIRE))
			continue; /* in a turn: the pass reads it */
		pthread_mutex_lock(&e->spill_lock[c]);
		room = roomy(e, c, (e->rings[c].mask + 1) / 2);
		pthread_mutex_unlock(&e->spill_lock[c]);
		if (!room)
			notify |= spill_cpu(e, c);
	}
	/* Again when the fullest could be within the reserve; a failure
	 * leaves the timer's own interval. */
	(void)engine_spill_guard(e, 0);
	return notify;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
}

static void arm(struct engine *e, size_t c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &e->ring_src[c] };

	/* ENOENT: hung up meanwhile, taken out by the loop. */
	if (epoll_ctl(e->epfd, EPOLL_CTL_MOD, *engine_track_at(e, c, 0), &ev) != 0)
		e->ring_off[c] = true;
}

/* A watermark calls one pass for all the rings: with every ring armed,
 * each CPU's wakeups came as often, the later ones finding the work done
 * (6 wakeups a second at 4 kHz on 2 CPUs, a pass each). So only the ring
 * that filled most since the last pass is armed; another must fill a
 * quarter more to take over, so that even loads do not flip it every
 * pass. One that fills faster meanwhile is read at the next pass, or
 * spilled by the guard if that comes late. */
void engine_spill_arm(struct engine *e)
{
	size_t best = SIZE_MAX;
	uint64_t best_w = 0, armed_w = 0;

	for (size_t c = 0; c < e->ncpus; c++) {
		uint64_t head = ring_written(&e->rings[c]), w = head - e->arm_head[c];

		e->arm_head[c] = head;
		if (e->ring_off[c])
			continue;
		if (c == e->armed)
			armed_w = w;
		if (best == SIZE_MAX || w > best_w) {
			best = c;
			best_w = w;
		}
	}
	if (best == SIZE_MAX || best == e->armed ||
	    (!e->ring_off[e->armed] && best_w <= armed_w + armed_w / 4))
		return;
	if (!e->ring_off[e->armed])
		arm(e, e->armed, 0);
	arm(e, best, EPOLLIN);
	e->armed = best;
}

int engine_spill_guard(struct engine *e, uint64_t max_ns)
{
	size_t ring, room, reserve;
	struct itimerspec its;
	uint64_t first;

	if (e->rd_guard < 0 || e->ring_rate == 0 || e->ncpus == 0)
		return 0;
	/* Left free when the reader copies: half of what the watermark
	 * leaves free (a quarter of the ring or more with -g). */
	ring = room = e->rings[0].mask + 1;
	reserve = (ring - e->wake) / 2;
	for (size_t c = 0; c < e->ncpus; c++) {
		uint64_t pending = ring_pending(&e->rings[c]);
		size_t left = pending + reserve < ring ? ring - pending - reserve : 0;

		if (left < room)
			room = left;
	}
	/* When the fullest could be within the reserve at the full rate; then
	 * again each time an emptied ring could be. A zero value disarms. */
	first = (uint64_t)((double)room / (double)e->ring_rate * 1e9) + 1;
	if (max_ns && first > max_ns)
		first = max_ns;
	its.it_value = ns_to_ts(first);
	its.it_interval = ns_to_ts((uint64_t)((double)(ring - reserve) / (double)e->ring_rate * 1e9) + 1);
	return timerfd_settime(e->rd_guard, 0, &its, NULL) < 0 ? -errno : 0;
}

/* The main loop asked for everything (a drain pass): every CPU, then the
 * rounds asked before it began are served. */
static void serve_kick(struct engine *e)
{
	uint64_t v, asked;

	if (read(e->rd_kick, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	pthread_mutex_lock(&e->rd_lock);
	asked = e->rd_asked;
	pthread_mutex_unlock(&e->rd_lock);
	for (size_t c = 0; c < e->ncpus; c++)
		spill_cpu(e, c);
	pthread_mutex_lock(&e->rd_lock);
	e->rd_served = asked;
	pthread_cond_broadcast(&e->rd_done);
	pthread_mutex_unlock(&e->rd_lock);
}

static void *reader_loop(struct engine *e)
{
	struct epoll_event evs[16];

	for (;;) {
		int n = epoll_wait(e->rd_epfd, evs, 16, -1);
		bool notify = false;

		if (n < 0 && errno != EINTR)
			return NULL;
		for (int i = 0; i < n; i++) {
			struct engine_src *s = evs[i].data.ptr;

			if (s->kind == SRC_QUIT)
				return NULL;
			if (s->kind == SRC_KICK) {
				serve_kick(e);
				continue;
			}
			if (s->kind == SRC_GUARD) {
				notify |= guard_fired(e);
				continue;
			}
			__atomic_fetch_add(&e->rd_wakeups, 1, __ATOMIC_RELAXED);
			notify |= spill_woken(e, s->idx);
			if (evs[i].events & (EPOLLHUP | EPOLLERR))
				/* The owning thread exited; other threads may still
				 * write here, so the drain passes' kicks move it now. */
				epoll_ctl(e->rd_epfd, EPOLL_CTL_DEL, *engine_track_at(e, s->idx, 0), NULL);
		}
		if (notify) {
			uint64_t one = 1;

			if (write(e->rd_notify, &one, sizeof(one)) < 0 && errno != EAGAIN)
				return NULL;
		}
	}
}

static void *reader_main(void *arg)
{
	struct engine *e = arg;

	reader_loop(e);
	/* Gone: whoever waits takes over as the only writer. */
	pthread_mutex_lock(&e->rd_lock);
	e->rd_exited = true;
	pthread_cond_broadcast(&e->rd_done);
	pthread_mutex_unlock(&e->rd_lock);
	return NULL;
}

void engine_spill_sync(struct engine *e, uint64_t max_wait_ns)
{
	uint64_t one = 1, mine;
	struct timespec until;
	bool self;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(max_wait_ns / 1000000000u);
	until.tv_nsec += (long)(max_wait_ns % 1000000000u);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}

	pthread_mutex_lock(&e->rd_lock);
	mine = ++e->rd_asked;
	self = e->rd_exited || !e->reader_on;
	pthread_mutex_unlock(&e->rd_lock);
	if (!self && write(e->rd_kick, &one, sizeof(one)) == (ssize_t)sizeof(one)) {
		pthread_mutex_lock(&e->rd_lock);
		/* Bounded for a tick: a reader starved on a loaded machine must
		 * not make the interval late; what it has not moved yet comes
		 * with the next pass (counted if it is older than delivered). */
		while (e->rd_served < mine && !e->rd_exited)
			if (max_wait_ns ? pthread_cond_timedwait(&e->rd_done, &e->rd_lock, &until) == ETIMEDOUT
					: pthread_cond_wait(&e->rd_done, &e->rd_lock) != 0)
				break;
		self = e->rd_served < mine && e->rd_exited;
		pthread_mutex_unlock(&e->rd_lock);
	} else {
		self = true;
	}
	if (self && (e->rd_exited || !e->reader_on))
		/* No reader (it failed, or was never started): this thread is
		 * the only writer left. */
		for (size_t c = 0; c < e->ncpus; c++)
			spill_cpu(e, c);
}

void engine_spill_rewind(struct engine *e)
{
	for (size_t c = 0; c < e->ncpus; c++) {
		main_lock(e, c);
		ring_rewind(&e->spill[c]);
		pthread_mutex_unlock(&e->spill_lock[c]);
	}
}

int engine_spill_setup(struct engine *e, char *err, size_t errlen)
{
	/* Huge pages for call-graph spills only (--off-cpu's switch records
	 * carry a chain too): their records are 10-20 times a flat one's, so
	 * a cycling backlog is page faults (a third of --off-cpu's CPU when a
	 * busy machine held the pass back); a flat backlog keeps up on 4 KiB
	 * pages, and its RSS stays in 4 KiB steps. */
	size_t bytes = spill_bytes(e), c;
	size_t huge = e->o.cg.mode != CALLGRAPH_NONE || e->o.offcpu ? perfsys_thp_size() : 0;
	int rc;

	e->ring_src = calloc(e->ncpus, sizeof(*e->ring_src));
	e->spill = calloc(e->ncpus, sizeof(*e->spill));
	e->spill_lock = calloc(e->ncpus, sizeof(*e->spill_lock));
	e->direct = calloc(e->ncpus, sizeof(*e->direct));
	e->claim_tail = calloc(e->ncpus, sizeof(*e->claim_tail));
	e->arm_head = calloc(e->ncpus, sizeof(*e->arm_head));
	e->ring_off = calloc(e->ncpus, sizeof(*e->ring_off));
	if (e->ring_src == NULL || e->spill == NULL || e->spill_lock == NULL || e->direct == NULL ||
	    e->claim_tail == NULL || e->arm_head == NULL || e->ring_off == NULL)
		return -ENOMEM;
	if (e->o.cg.mode == CALLGRAPH_DWARF &&
	    (e->stack_need = calloc(NEED_SLOTS, sizeof(*e->stack_need))) == NULL)
		return -ENOMEM;
	if ((rc = pthread_mutex_init(&e->rd_lock, NULL)) != 0)
		return -rc;
	{
		pthread_condattr_t ca;

		/* Timed waits on the monotonic clock: the wall clock may jump. */
		if ((rc = pthread_condattr_init(&ca)) != 0 ||
		    (rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)) != 0 ||
		    (rc = pthread_cond_init(&e->rd_done, &ca)) != 0) {
			pthread_mutex_destroy(&e->rd_lock);
			return -rc;
		}
		pthread_condattr_destroy(&ca);
	}
	e->rd_sync_init = true;
	e->rd_epfd = epoll_create1(EPOLL_CLOEXEC);
	e->rd_quit = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	e->rd_notify = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	e->rd_kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->rd_epfd < 0 || e->rd_quit < 0 || e->rd_notify < 0 || e->rd_kick < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot set up the ring reader: %s", strerror(-rc));
		return rc;
	}
	for (c = 0; c < e->ncpus; c++) {
		if ((rc = pthread_mutex_init(&e->spill_lock[c], NULL)) != 0)
			return -rc;
		e->nlocks++;
		if ((rc = ring_alloc(&e->spill[c], bytes, huge)) != 0) {
			snprintf(err, errlen, "cannot reserve a %zu MiB spill ring for CPU %d: %s",
				 bytes >> 20, e->cpus[c], strerror(-rc));
			return rc;
		}
		/* What a drain pass finds in the spill stays resident, rewound
		 * to after each pass (engine_spill_rewind), up to a quarter spill: at
		 * least a second at the full rate (4 kernel rings), and 1 MiB. Woken at
		 * less than half the ring (-g), two wakeups' worth: the main
		 * loop comes at each. */
		e->spill[c].keep_max = bytes / 4;
		if (e->wake * 2 < (e->pages * (size_t)sysconf(_SC_PAGESIZE)) && e->spill[c].keep_max > 2 * e->wake)
			e->spill[c].keep_max = 2 * e->wake;
		e->ring_src[c] = (struct engine_src){ SRC_RING, c };
		rc = e->main_rings ? engine_epoll_add_events(e, *engine_track_at(e, c, 0), &e->ring_src[c],
							   c == 0 ? EPOLLIN : 0)
				   : rd_add(e, *engine_track_at(e, c, 0), &e->ring_src[c]);
		if (rc != 0)
			return rc;
	}
	e->quit_src = (struct engine_src){ SRC_QUIT, 0 };
	e->kick_src = (struct engine_src){ SRC_KICK, 0 };
	e->spill_src = (struct engine_src){ SRC_SPILL, 0 };
	e->guard_src = (struct engine_src){ SRC_GUARD, 0 };
	if ((rc = rd_add(e, e->rd_quit, &e->quit_src)) != 0 ||
	    (rc = rd_add(e, e->rd_kick, &e->kick_src)) != 0 ||
	    (rc = engine_epoll_add(e, e->rd_notify, &e->spill_src)) != 0)
		return rc;
	if (e->main_rings || e->flat_guard) {
		if ((e->rd_guard = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot set up the ring reader's timer: %s", strerror(-rc));
			return rc;
		}
		if ((rc = rd_add(e, e->rd_guard, &e->guard_src)) != 0 || (rc = engine_spill_guard(e, 0)) != 0) {
			snprintf(err, errlen, "cannot arm the ring reader's timer: %s", strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Every signal blocked in the reader: they are the main loop's (signalfd),
 * and one delivered to the reader would end perftop with the terminal raw. */
int engine_spill_start_reader(struct engine *e, char *err, size_t errlen)
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

void engine_spill_stop_reader(struct engine *e)
{
	uint64_t one = 1;

	if (!e->reader_on)
		return;
	/* An eventfd write cannot fail short of overflow: the reader
	 * always hears it, and is joined before its rings go. */
	if (write(e->rd_quit, &one, sizeof(one)) != (ssize_t)sizeof(one))
		pthread_cancel(e->reader);
	pthread_join(e->reader, NULL);
	e->reader_on = false;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void engine_spill_free(struct engine *e)
{
	engine_spill_stop_reader(e);
	if (e->spill)
		for (size_t i = 0; i < e->ncpus; i++)
			ring_unmap(&e->spill[i]);
	for (size_t i = 0; i < e->nlocks; i++)
		pthread_mutex_destroy(&e->spill_lock[i]);
	if (e->rd_sync_init) {
		pthread_cond_destroy(&e->rd_done);
		pthread_mutex_destroy(&e->rd_lock);
	}
	close_fd(e->rd_epfd);
	close_fd(e->rd_quit);
	close_fd(e->rd_notify);
	close_fd(e->rd_kick);
	close_fd(e->rd_guard);
	free(e->ring_src);
	free(e->stack_need);
	free(e->spill);
	free(e->spill_lock);
	free(e->direct);
	free(e->claim_tail);
	free(e->arm_head);
	free(e->ring_off);
}
