// SPDX-License-Identifier: GPL-2.0
/*
 * fragbench: a guest-scale stand-in for the defrag_mode posting's test
 * (a kernel build with periodic THP allocation bursts, memory
 * constrained, 15 runs).
 *
 * Background load, running through all rounds so that fragmentation
 * can accumulate as it does over consecutive kernel builds:
 *   anon      movable: anonymous chunks, freed and refaulted at random
 *   files     movable: page cache of files written/read/deleted on DIR
 *   slab      reclaimable: negative dentries, /proc and /sys walks
 * Per round, driven by the main loop (the same amounts in every run):
 *   ramp      unmovable and reclaimable demand that grows while memory
 *             is full of movable pages: page tables of sparse mappings,
 *             full pipes, unix socket queues, inodes + dentries; at the
 *             end of the round a part of it is freed again, leaving
 *             holes wherever it was placed
 *   thp       BURSTS THP bursts in between: MADV_HUGEPAGE regions of
 *             THP_MB faulted in 2M steps; each fault's latency is
 *             recorded.
 *
 *   kbuild    (FB_KBUILD=JOBS,MB) a kernel build's process churn: JOBS
 *             short-lived compiler jobs at a time, each forked and
 *             exec'ed (page tables, kernel stack, task structures),
 *             faulting in MB of anonymous memory, reading sources from
 *             a fixed tree and writing an object file into a fixed set
 *             (page cache, dentries and inodes in a bounded working
 *             set), then exiting.
 * FB_REL=NEW,OLD sets the ramp's release percentages (default 85,10:
 * the ramp's demand grows from round to round; 100,100 keeps it
 * steady, as a kernel build's is: bench sets it).
 *
 * Every name and address the load uses comes from a bounded set, so
 * that nothing but the ramp grows the kernel's memory: failed lookups
 * draw from 4096 names per directory, and once a release has freed
 * everything the ramp held (100,100), the next round reuses the same
 * file names and the same page table slots.
 *
 * Per round it prints "round R <vmstat deltas>", "lat R n sum sumsq max
 * secs S free F blocks B", "demand R <meminfo kB>..." (the kernel's
 * unmovable and reclaimable memory at the round's end, after the
 * release), "peak R <meminfo kB>..." (the same at the ramp's fullest,
 * right before the release) and "pageblocks R <type>=<n>..." lines; a
 * tracer child counts mm_page_alloc_extfrag events by class and type
 * pair ("extfrag R class alloc_mt fallback_mt count").
 *
 * Usage: fragbench ROUNDS BURSTS WARMUP_SECS DIR ANON_MB FILE_MB THP_MB
 *                  [UNMOV_MB_PER_ROUND FILES_PER_ROUND]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "vmstat.h"
#include "mm_guest.h"

#define MB (1UL << 20)
#define HPAGE (2UL << 20)

static volatile sig_atomic_t stop;
static volatile sig_atomic_t report;

static void on_term(int sig) { (void)sig; stop = 1; }
static void on_usr1(int sig) { (void)sig; report = 1; }

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Half-random pages: compress roughly 2:1 in zram, never same-filled. */
static void fill_page(char *p)
{
	uint64_t *q = (uint64_t *)p;

	for (int i = 0; i < 256; i++)
		q[i] = rnd();
}

/* ---------------------------------------------------------------- anon */
static void worker_anon(size_t total)
{
	enum { SLOTS = 64 };
	char *slot[SLOTS] = { 0 };
	size_t len[SLOTS] = { 0 };
	size_t per = total / SLOTS;

	for (unsigned long iter = 0; !stop; iter++) {
		/* fill every slot once first, then replace at random */
		int i = iter < SLOTS ? (int)iter : (int)(rnd() % SLOTS);

		if (slot[i])
			munmap(slot[i], len[i]);
		len[i] = per / 2 + (rnd() % per);
		len[i] &= ~4095UL;
		slot[i] = mmap(NULL, len[i], PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (slot[i] == MAP_FAILED) {
			slot[i] = NULL;
			continue;
		}
		madvise(slot[i], len[i], MADV_NOHUGEPAGE);
		for (size_t off = 0; off < len[i]; off += 4096)
			fill_page(slot[i] + off);
		/* keep a part of the rest warm */
		for (int k = 0; k < 256; k++) {
			int j = rnd() % SLOTS;

			if (slot[j])
				slot[j][(rnd() % (len[j] / 4096)) * 4096] ^= 1;
		}
	}
}

/* --------------------------------------------------------------- files */
static void worker_files(const char *dir, size_t total)
{
	enum { NF = 64 };
	char path[256], *buf = malloc(64 * 1024);
	size_t per = total / NF;
	unsigned long gen = 0;

	for (size_t i = 0; i < 64 * 1024; i += 8)
		*(uint64_t *)(buf + i) = (i & 4095) < 2048 ? rnd() : 0;
	for (unsigned long iter = 0; !stop; iter++) {
		int i = iter < NF ? (int)iter : (int)(rnd() % NF);
		size_t want = per / 2 + rnd() % per;
		int fd;

		snprintf(path, sizeof(path), "%s/data/f%d", dir, i);
		unlink(path);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			usleep(10000);
			continue;
		}
		for (size_t done = 0; done < want && !stop; done += 64 * 1024) {
			*(uint64_t *)buf = gen++;
			if (write(fd, buf, 64 * 1024) < 0)
				break;
		}
		close(fd);
		/* read back another file: page cache hits or refaults */
		snprintf(path, sizeof(path), "%s/data/f%d", dir,
			 (int)(rnd() % NF));
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			while (read(fd, buf, 64 * 1024) > 0 && !stop)
				;
			close(fd);
		}
	}
}

/* ---------------------------------------------------------------- slab */
#define NNEG 4096	/* names of failed lookups, per directory */

static void walk(const char *path, int depth, int *budget)
{
	DIR *d;
	struct dirent *e;
	char sub[512];
	struct stat st;

	if (depth > 6 || *budget <= 0 || stop)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)) && *budget > 0 && !stop) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		(*budget)--;
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			walk(sub, depth + 1, budget);
	}
	closedir(d);
}

static void worker_slab(const char *dir)
{
	char path[256];

	while (!stop) {
		struct stat st;
		int budget = 3000;

		/*
		 * negative dentries: failed lookups, like header searches
		 * along an include path; the names a build looks up are a
		 * fixed set, so the dentries stay bounded
		 */
		for (int k = 0; k < 2000 && !stop; k++) {
			snprintf(path, sizeof(path), "%s/tree/x%lu.h", dir,
				 (unsigned long)(rnd() % NNEG));
			stat(path, &st);
		}
		walk("/proc", 0, &budget);
		budget = 2000;
		walk("/sys/devices", 0, &budget);
	}
}

/* The kernel's memory by kind, kB, from /proc/meminfo. */
static void print_demand(const char *what, int round)
{
	static const char *const want[] = {
		"PageTables", "KernelStack", "SUnreclaim", "SReclaimable",
		"AnonPages", "Cached",
	};
	unsigned long val[6] = { 0 };
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		for (int k = 0; k < 6; k++) {
			size_t len = strlen(want[k]);

			if (!strncmp(line, want[k], len) && line[len] == ':')
				val[k] = strtoul(line + len + 1, NULL, 10);
		}
	fclose(f);
	printf("%s %d", what, round);
	for (int k = 0; k < 6; k++)
		printf(" %s=%lu", want[k], val[k]);
	printf("\n");
}

/* --------------------------------------------------------------- ramp */
/*
 * Unmovable and reclaimable demand that grows round after round while
 * memory is full of movable pages, and is partly released again, so that
 * what is freed leaves holes and what stays sits wherever the allocator
 * put it. Driven by commands, so that every configuration gets exactly
 * the same amounts in the same order:
 *   'n' a new round;
 *   's' one slice of the round's growth: 1/SLICES of UNMOV_MB more
 *       unmovable memory (page tables of sparse mappings, full pipes,
 *       unix socket queues) and of FILES more inodes + dentries (empty
 *       files), with negative dentries. The burster asks for a slice
 *       right after each burst of the first half of the round, while
 *       it holds its huge pages, when memory is at its fullest;
 *   'r' the slices not done yet (a burster cut short by its time cap),
 *       then, once per round, the release: each item added this round
 *       dies with probability REL_NEW, each older one with REL_OLD. The
 *       burster asks for it half way, so that the second half of the
 *       round (its bursts and the background load) runs with the holes
 *       left behind; the main loop asks again at the end of the round
 *       (a no-op unless the burster was cut short).
 * Page tables: a PROT_READ mapping read once per 2 MiB maps the shared
 * zero page, so each 2 MiB costs one page table page and no data page;
 * unmapping a 2 MiB slot frees exactly that page table page.
 */
static int rel_new = 85;	/* percent of this round's items freed at its end */
static int rel_old = 10;	/* percent of older items freed at each round end */

struct item { int kind, round; long a, b; };	/* a,b: fds or slot */
enum { K_PT, K_PIPE, K_SOCK, K_FILE };

static struct item *items;
static size_t nitems, maxitems;
static char *pt_area;			/* the sparse VA range */
static size_t pt_slots, pt_next;

static void add_item(int kind, int round, long a, long b)
{
	if (nitems == maxitems) {
		maxitems = maxitems ? 2 * maxitems : 4096;
		items = realloc(items, maxitems * sizeof(*items));
		if (!items)
			_exit(3);
	}
	items[nitems++] = (struct item){ kind, round, a, b };
}

static void file_path(char *path, size_t len, const char *dir, long n)
{
	snprintf(path, len, "%s/tree/d%ld/o%ld.o", dir, n / 1000, n);
}

struct ramp_args {
	const char *dir;
	size_t unmov;		/* bytes of unmovable memory per round */
	int files;		/* new files per round */
	int slices;		/* the growth comes in this many slices */
	int cmd, ack;		/* command and acknowledgement pipes */
};

#define PIPE_BYTES (1UL << 20)
#define SOCK_BYTES (256UL << 10)
#define PT_GROUP 8	/* page tables mapped and freed 8 at a time (16 MiB) */

static double tm[6];	/* seconds per part of the ramp, this round */

static void fill_fd(int fd, const char *buf, size_t len)
{
	while (write(fd, buf, len) > 0)
		;
}

/* slice k of n of a total: the parts add up to the total exactly */
static size_t part(size_t total, int k, int n)
{
	return total * (k + 1) / n - total * k / n;
}

/*
 * One slice of a round's growth: 30% page tables, 50% pipes, 20% unix
 * socket queues; files (inode + dentry each) and 5 negative dentries
 * per file (failed lookups in tmpfs, like header searches).
 */
static void ramp_slice(struct ramp_args *ra, int round, int k, long *nfile)
{
	static char buf[65536];
	int n = ra->slices;
	size_t npt = part(ra->unmov * 3 / 10 / 4096 / PT_GROUP, k, n);
	size_t npipe = part(ra->unmov / 2 / PIPE_BYTES, k, n);
	size_t nsock = part(ra->unmov / 5 / SOCK_BYTES, k, n);
	int nf = (int)part(ra->files, k, n);
	char path[256];
	struct stat st;
	double t = now();

	memset(buf, 0x5a, sizeof(buf));
	/* page tables: one page table page per 2 MiB slot read once */
	for (; npt && pt_next + PT_GROUP <= pt_slots; npt--) {
		for (int i = 0; i < PT_GROUP; i++) {
			volatile char *p = pt_area + (pt_next + i) * HPAGE +
					   (rnd() % 512) * 4096;

			(void)*p;
		}
		add_item(K_PT, round, (long)pt_next, 0);
		pt_next += PT_GROUP;
	}
	tm[0] += now() - t;
	t = now();
	/* pipes of 1 MiB, filled and kept open */
	for (; npipe; npipe--) {
		int fd[2];

		if (pipe2(fd, O_NONBLOCK))
			break;
		fcntl(fd[1], F_SETPIPE_SZ, (int)PIPE_BYTES);
		fill_fd(fd[1], buf, sizeof(buf));
		add_item(K_PIPE, round, fd[0], fd[1]);
	}
	tm[1] += now() - t;
	t = now();
	/* unix stream sockets with about 256 KiB queued (skbs, page frags) */
	for (; nsock; nsock--) {
		int fd[2], sz = SOCK_BYTES / 2;	/* the kernel doubles it */

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fd))
			break;
		setsockopt(fd[0], SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz));
		fill_fd(fd[0], buf, 32768);
		add_item(K_SOCK, round, fd[0], fd[1]);
	}
	tm[2] += now() - t;
	t = now();
	/* reclaimable: inodes + dentries of small files that stay ... */
	for (int i = 0; i < nf; i++, (*nfile)++) {
		int fd;

		if (*nfile % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/tree/d%ld", ra->dir,
				 *nfile / 1000);
			mkdir(path, 0755);
		}
		file_path(path, sizeof(path), ra->dir, *nfile);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		if (fd >= 0) {
			close(fd);
			add_item(K_FILE, round, *nfile, 0);
		}
	}
	tm[3] += now() - t;
	t = now();
	/* ... and negative dentries */
	for (int i = 0; i < 5 * nf; i++) {
		snprintf(path, sizeof(path), "/tmp/fbneg/h%lu.h",
			 (unsigned long)(rnd() % NNEG));
		stat(path, &st);
	}
	tm[4] += now() - t;
}

/*
 * Free the page tables of PT_GROUP slots: unmapping frees them, and
 * the range is mapped again at once (nothing else maps in between in
 * this single-threaded worker), without page tables until it is
 * touched, so that the slots can be used again.
 */
static void pt_free(long slot)
{
	char *p = pt_area + slot * HPAGE;

	munmap(p, PT_GROUP * HPAGE);
	if (mmap(p, PT_GROUP * HPAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
		perror("ramp: mmap slot");
		return;
	}
	madvise(p, PT_GROUP * HPAGE, MADV_NOHUGEPAGE);
}

static void ramp_release(struct ramp_args *ra, int round)
{
	char path[256];
	size_t j = 0;

	for (size_t i = 0; i < nitems; i++) {
		struct item *it = &items[i];
		int p = it->round == round ? rel_new : rel_old;

		if ((int)(rnd() % 100) >= p) {
			items[j++] = *it;
			continue;
		}
		switch (it->kind) {
		case K_PT:
			pt_free(it->a);
			break;
		case K_PIPE:
		case K_SOCK:
			close(it->a);
			close(it->b);
			break;
		case K_FILE:
			file_path(path, sizeof(path), ra->dir, it->a);
			unlink(path);
			break;
		}
	}
	nitems = j;
}

static void ramp_print(int round, double secs)
{
	size_t n[4] = { 0 };

	for (size_t i = 0; i < nitems; i++)
		n[items[i].kind]++;
	printf("ramp %d held: page_tables %zu pipes %zu sockets %zu files %zu; %.1fs in the ramp (pt %.1f pipes %.1f sockets %.1f files %.1f negdentries %.1f release %.1f)\n",
	       round, n[K_PT] * PT_GROUP, n[K_PIPE], n[K_SOCK], n[K_FILE], secs,
	       tm[0], tm[1], tm[2], tm[3], tm[4], tm[5]);
	memset(tm, 0, sizeof(tm));
}

static void worker_ramp(struct ramp_args *ra)
{
	long nfile = 0;
	char c;
	int round = 0, slice = 0, released = 0;
	double busy = 0, t, t2;

	/*
	 * room for 64 rounds of page tables; the slots are used again
	 * from the start once a release has freed all of them
	 */
	pt_slots = (ra->unmov * 3 / 10 / 4096) * 64 + PT_GROUP;
	mkdir("/tmp/fbneg", 0755);
	pt_area = mmap(NULL, (pt_slots + 1) * HPAGE, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pt_area == MAP_FAILED) {
		perror("ramp: mmap");
		pt_slots = 0;
	} else {
		pt_area = (char *)(((uintptr_t)pt_area + HPAGE - 1) &
				   ~(HPAGE - 1));
		madvise(pt_area, pt_slots * HPAGE, MADV_NOHUGEPAGE);
	}
	while (read(ra->cmd, &c, 1) == 1) {
		t = now();
		switch (c) {
		case 'n':
			round++;
			slice = 0;
			released = 0;
			busy = 0;
			/*
			 * nothing held (a 100% release): the same names and
			 * the same address range again, not new ones
			 */
			if (!nitems) {
				nfile = 0;
				pt_next = 0;
			}
			break;
		case 's':
			if (slice < ra->slices)
				ramp_slice(ra, round, slice++, &nfile);
			break;
		case 'r':
			if (released)
				break;
			released = 1;
			while (slice < ra->slices)
				ramp_slice(ra, round, slice++, &nfile);
			/* the round's peak: all of its growth, none released */
			print_demand("peak", round);
			t2 = now();
			ramp_release(ra, round);
			tm[5] = now() - t2;
			ramp_print(round, busy + now() - t);
			break;
		default:
			return;
		}
		busy += now() - t;
		if (write(ra->ack, &c, 1) != 1)
			break;
	}
}

/* A command to the ramp worker, answered when it is done. */
static void ramp_cmd(int cmd, int ack, char c)
{
	if (write(cmd, &c, 1) != 1 || read(ack, &c, 1) != 1) {
		fprintf(stderr, "fragbench: ramp worker gone\n");
		exit(1);
	}
}

/* -------------------------------------------------------------- tracer */
#define NMT 8
static unsigned long cnt[3][NMT][NMT];	/* class: pollute, steal, claim */

static void tracer(int round_fd, int ack_fd, int pb)
{
	int fd = open("/sys/kernel/tracing/trace_pipe", O_RDONLY);
	char buf[65536], line[1024];
	size_t ll = 0;
	struct sigaction sa = { .sa_handler = on_usr1 };
	int round = 0;

	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: interrupts read */
	if (fd < 0) {
		perror("trace_pipe");
		pause();
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		for (ssize_t i = 0; i < n; i++) {
			char *a, *f, *o, *c;
			int am, fm, fo, co, cl;

			if (buf[i] != '\n') {
				if (ll < sizeof(line) - 1)
					line[ll++] = buf[i];
				continue;
			}
			line[ll] = 0;
			ll = 0;
			/* stack traces of a debugging trigger, if any */
			if (strstr(line, " => ") || strstr(line, "<stack trace>")) {
				printf("stack %s\n", line);
				continue;
			}
			a = strstr(line, "alloc_migratetype=");
			f = strstr(line, "fallback_migratetype=");
			o = strstr(line, "fallback_order=");
			c = strstr(line, "change_ownership=");
			if (!a || !f || !o || !c)
				continue;
			am = atoi(a + 18);
			fm = atoi(f + 21);
			fo = atoi(o + 15);
			co = atoi(c + 17);
			cl = !co ? 0 : (fo < pb ? 1 : 2);
			if (am >= 0 && am < NMT && fm >= 0 && fm < NMT)
				cnt[cl][am][fm]++;
		}
		if (report) {
			report = 0;
			for (int k = 0; k < 3; k++)
				for (int x = 0; x < NMT; x++)
					for (int y = 0; y < NMT; y++)
						if (cnt[k][x][y])
							printf("extfrag %d %s %d %d %lu\n",
							       round,
							       k == 0 ? "pollute" : k == 1 ? "steal" : "claim",
							       x, y, cnt[k][x][y]);
			fflush(stdout);
			memset(cnt, 0, sizeof(cnt));
			round++;
			if (write(ack_fd, "k", 1) != 1)
				_exit(1);
		}
		if (n == 0)
			usleep(10000);
	}
	(void)round_fd;
}

/* ----------------------------------------------------------------- thp */
struct lat { double n, sum, sumsq, huge, max; };

/*
 * A fixed number of bursts per round, so that every configuration makes
 * the same number of huge page attempts whatever the host load; capped
 * at 60 seconds per round (a thrashing guest makes fewer attempts).
 */
static void burster(int bursts, double cap, size_t bytes, int out_fd,
		    int rcmd, int rack)
{
	struct lat l = { 0 };
	char *prev = NULL;
	double end = now() + cap;

	for (int b = 0; b < bursts && now() < end && !stop; b++) {
		char *raw = mmap(NULL, bytes + HPAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *p;

		if (raw == MAP_FAILED)
			break;
		p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
		madvise(p, bytes, MADV_HUGEPAGE);
		for (size_t off = 0; off < bytes; off += HPAGE) {
			double t0 = now(), dt;

			p[off] = 1;
			dt = (now() - t0) * 1e6;	/* usecs */
			l.n++;
			l.sum += dt;
			l.sumsq += dt * dt;
			if (dt > l.max)
				l.max = dt;
		}
		/* first half: a slice of the ramp while both bursts are held */
		if (b < (bursts + 1) / 2)
			ramp_cmd(rcmd, rack, 's');
		/* half way: the release */
		if (b == (bursts + 1) / 2 - 1)
			ramp_cmd(rcmd, rack, 'r');
		if (prev)
			munmap(prev, bytes + HPAGE);
		prev = raw;
		/* hold it for a while, like a burst of real use */
		usleep(300000);
	}
	if (write(out_fd, &l, sizeof(l)) != sizeof(l))
		_exit(1);
	_exit(0);
}

/* -------------------------------------------------------------- vmstat */
static const char *const keys[] = {
	"thp_fault_alloc", "thp_fault_fallback", "thp_fault_fallback_charge",
	"compact_stall", "compact_fail", "compact_success",
	"compact_migrate_scanned", "compact_free_scanned",
	"compact_daemon_migrate_scanned", "compact_daemon_free_scanned",
	"compact_daemon_wake", "kcompactd_wake",
	"allocstall_dma", "allocstall_dma32", "allocstall_normal",
	"allocstall_movable", "pgscan_kswapd", "pgscan_direct",
	"pgsteal_kswapd", "pgsteal_direct", "pswpin", "pswpout",
	"workingset_refault_file", "workingset_refault_anon", "oom_kill",
	"pgmajfault", "kswapd_low_wmark_hit_quickly",
	"kswapd_high_wmark_hit_quickly",
};
#define NK (sizeof(keys) / sizeof(keys[0]))

static void read_vmstat(unsigned long *v)
{
	char line[256];
	FILE *f = fopen("/proc/vmstat", "r");

	memset(v, 0, NK * sizeof(*v));
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = 0;
		for (size_t k = 0; k < NK; k++)
			if (!strcmp(line, keys[k]))
				v[k] = strtoul(sp + 1, NULL, 10);
	}
	fclose(f);
}

/* "Number of blocks type" of /proc/pagetypeinfo, summed over zones. */
static void print_pageblocks(int round)
{
	static const char *const names[] = { "Unmovable", "Movable",
		"Reclaimable", "HighAtomic", "CMA", "Isolate" };
	unsigned long sum[6] = { 0 };
	char line[512], *p;
	int hdr = 0, col[6], nc = 0;
	FILE *f = fopen("/proc/pagetypeinfo", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Number of blocks type", 21)) {
			char *tok = strtok(line + 21, " \n");

			/* the column order, once */
			for (nc = 0; tok && nc < 6; tok = strtok(NULL, " \n")) {
				col[nc] = -1;
				for (int k = 0; k < 6; k++)
					if (!strcmp(tok, names[k]))
						col[nc] = k;
				nc++;
			}
			hdr = 1;
			continue;
		}
		if (!hdr || strncmp(line, "Node", 4))
			continue;
		p = strstr(line, "zone");
		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
		for (int c = 0; c < nc; c++) {
			unsigned long v = strtoul(p, &p, 10);

			if (col[c] >= 0)
				sum[col[c]] += v;
		}
	}
	fclose(f);
	printf("pageblocks %d", round);
	for (int k = 0; k < 6; k++)
		printf(" %s=%lu", names[k], sum[k]);
	printf("\n");
}

/* ------------------------------------------------------------- kbuild */
#define NSRC 256	/* source files of 16 KiB: a fixed tree */
#define NOBJ 256	/* object files of 32 KiB, overwritten in turn */

struct kbargs { const char *dir; int jobs; size_t bytes; };

/* One compiler job (fragbench cc1 DIR SEED BYTES): exec'ed, so that
 * every job has its own mm, page tables and kernel stack. */
static int cc1(char **argv)
{
	const char *dir = argv[2];
	unsigned long seed = strtoul(argv[3], NULL, 10);
	size_t bytes = strtoul(argv[4], NULL, 10), off;
	char path[256], buf[16384];
	char *heap;
	int fd;

	rng_state ^= seed * 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < 8; i++) {	/* the headers and the .c */
		snprintf(path, sizeof(path), "%s/src/s%03d.c", dir,
			 (int)(rnd() % NSRC));
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
	}
	heap = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (heap == MAP_FAILED)
		return 1;
	for (off = 0; off < bytes; off += 4096)
		fill_page(heap + off);
	/* a temporary file, then the object */
	snprintf(path, sizeof(path), "%s/obj/tmp%lu", dir, seed % NOBJ);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, heap, 8192) < 0)
			perror("cc1 tmp");
		close(fd);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/obj/o%03lu.o", dir, seed % NOBJ);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, heap, 32768) < 0)
			perror("cc1 obj");
		close(fd);
	}
	return 0;
}

static void worker_kbuild(struct kbargs *kb)
{
	char path[256], seed[32], bytes[32], buf[16384];
	unsigned long n = 0;
	int running = 0;

	snprintf(path, sizeof(path), "%s/src", kb->dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/obj", kb->dir);
	mkdir(path, 0755);
	for (size_t i = 0; i < sizeof(buf); i += 4096)
		fill_page(buf + i);
	for (int i = 0; i < NSRC; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/src/s%03d.c", kb->dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			if (write(fd, buf, sizeof(buf)) < 0)
				perror("kbuild src");
			close(fd);
		}
	}
	snprintf(bytes, sizeof(bytes), "%zu", kb->bytes);
	while (!stop) {
		pid_t pid;

		while (running < kb->jobs && !stop) {
			snprintf(seed, sizeof(seed), "%lu", n++);
			pid = fork();
			if (pid == 0) {
				execl("/proc/self/exe", "fragbench", "cc1",
				      kb->dir, seed, bytes, (char *)NULL);
				_exit(127);
			}
			if (pid > 0)
				running++;
		}
		if (wait(NULL) > 0)
			running--;
	}
	while (running-- > 0)
		wait(NULL);
	ksft_print_msg("kbuild: %lu jobs\n", n);
}

static int nspawned;

static pid_t spawn(void (*fn)(void *), void *arg)
{
	pid_t pid;

	nspawned++;
	pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_term };

		sigaction(SIGTERM, &sa, NULL);
		/* the same stream in every run: same load for every kernel */
		rng_state ^= (uint64_t)nspawned * 0x9e3779b97f4a7c15ULL;
		fn(arg);
		_exit(0);
	}
	return pid;
}

struct wargs { const char *dir; size_t bytes; };
static void run_anon(void *a) { worker_anon(((struct wargs *)a)->bytes); }
static void run_files(void *a) { worker_files(((struct wargs *)a)->dir, ((struct wargs *)a)->bytes); }
static void run_slab(void *a) { worker_slab(((struct wargs *)a)->dir); }
static void run_ramp(void *a) { worker_ramp(a); }
static void run_kbuild(void *a) { worker_kbuild(a); }

int main(int argc, char **argv)
{
	int rounds, bursts, pb = 9, ack[2], lp[2], rc[2], ra_ack[2];
	double warmup;
	struct wargs wa, wf, ws;
	struct ramp_args ra;
	struct rlimit nofile = { 1 << 16, 1 << 16 };
	struct kbargs kb = { .jobs = 0, .bytes = 16 * MB };
	pid_t pids[6], tpid;
	unsigned long v0[NK], v1[NK];
	char path[256];

	if (argc == 5 && !strcmp(argv[1], "cc1"))
		return cc1(argv);
	if (argc < 8) {
		fprintf(stderr, "usage: fragbench ROUNDS BURSTS WARMUP_SECS DIR ANON_MB FILE_MB THP_MB [UNMOV_MB FILES]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rounds = atoi(argv[1]);
	bursts = atoi(argv[2]);
	warmup = atof(argv[3]);
	wa.dir = wf.dir = ws.dir = argv[4];
	wa.bytes = atol(argv[5]) * MB;
	wf.bytes = atol(argv[6]) * MB;
	size_t thp_bytes = atol(argv[7]) * MB;
	ra.dir = argv[4];
	ra.unmov = (argc > 8 ? atol(argv[8]) : 8) * MB;
	ra.files = argc > 9 ? atoi(argv[9]) : 3000;
	ra.slices = bursts > 1 ? (bursts + 1) / 2 : 1;
	kb.dir = argv[4];
	if (getenv("FB_KBUILD")) {
		unsigned long mb = 16;

		sscanf(getenv("FB_KBUILD"), "%d,%lu", &kb.jobs, &mb);
		kb.bytes = mb * MB;
	}
	if (getenv("FB_REL"))
		sscanf(getenv("FB_REL"), "%d,%d", &rel_new, &rel_old);
	/* the ramp keeps thousands of pipes and sockets open */
	if (setrlimit(RLIMIT_NOFILE, &nofile))
		perror("setrlimit");

	if (getenv("PAGEBLOCK_ORDER"))
		pb = atoi(getenv("PAGEBLOCK_ORDER"));
	snprintf(path, sizeof(path), "%s/data", argv[4]);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/tree", argv[4]);
	mkdir(path, 0755);

	if (pipe(ack) || pipe(lp) || pipe(rc) || pipe(ra_ack))
		return 1;
	ra.cmd = rc[0];
	ra.ack = ra_ack[1];
	tpid = fork();
	if (tpid == 0) {
		tracer(-1, ack[1], pb);
		_exit(0);
	}
	pids[0] = spawn(run_anon, &wa);
	pids[1] = spawn(run_files, &wf);
	pids[2] = spawn(run_slab, &ws);
	pids[3] = spawn(run_ramp, &ra);
	pids[4] = kb.jobs > 0 ? spawn(run_kbuild, &kb) : 0;

	ksft_print_msg("fragbench: %d rounds x %d bursts, warmup %.0fs, anon %s MB, files %s MB, thp burst %s MB, pageblock_order %d, per round: unmovable +%zu MB, files +%d (released: %d%% of the round's, %d%% of older)\n",
		       rounds, bursts, warmup, argv[5], argv[6], argv[7], pb,
		       ra.unmov / MB, ra.files, rel_new, rel_old);
	ksft_print_msg("kbuild: %d jobs at a time, %zu MB of anon each, %d sources, %d objects\n",
		       kb.jobs, kb.bytes / MB, NSRC, NOBJ);
	printf("keys");
	for (size_t k = 0; k < NK; k++)
		printf(" %s", keys[k]);
	printf("\n");

	/* warmup: fill memory, no measurement (events of it are dropped) */
	sleep((unsigned int)warmup);
	kill(tpid, SIGUSR1);
	{
		char c;

		if (read(ack[0], &c, 1) != 1)
			return 1;
	}
	ksft_print_msg("warmup done\n");
	print_pageblocks(0);

	for (int r = 1; r <= rounds; r++) {
		struct lat l;
		pid_t b;
		char c;
		double t0 = now();

		read_vmstat(v0);
		/* THP bursts, the ramp growing and shrinking between them */
		ramp_cmd(rc[1], ra_ack[0], 'n');
		b = fork();
		if (b == 0)
			burster(bursts, 60.0, thp_bytes, lp[1], rc[1], ra_ack[0]);
		if (read(lp[0], &l, sizeof(l)) != sizeof(l))
			memset(&l, 0, sizeof(l));
		waitpid(b, NULL, 0);
		/* the rest of the growth if any, and part of it goes away */
		ramp_cmd(rc[1], ra_ack[0], 'r');
		read_vmstat(v1);
		printf("round %d", r);
		for (size_t k = 0; k < NK; k++)
			printf(" %lu", v1[k] - v0[k]);
		printf("\n");
		printf("lat %d %.0f %.1f %.1f %.1f secs %.1f free %lu blocks %lu\n",
		       r, l.n, l.sum, l.sumsq, l.max, now() - t0,
		       vmstat("nr_free_pages"), vmstat("nr_free_pages_blocks"));
		print_demand("demand", r);
		print_pageblocks(r);
		kill(tpid, SIGUSR1);
		if (read(ack[0], &c, 1) != 1)
			return 1;
	}
	close(rc[1]);	/* the ramp worker ends on EOF */
	for (int i = 0; i < 5; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGTERM);
	for (int i = 0; i < 5; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
	kill(tpid, SIGKILL);
	waitpid(tpid, NULL, 0);
	ksft_print_msg("done\n");
	return 0;
}
