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
 *   slab      reclaimable: dentries/inodes (files, negative lookups,
 *             /proc and /sys walks)
 *   unmov     unmovable: page tables of sparse mappings, full pipes,
 *             unix sockets with queued data; a few kept for good
 * On top, per round, BURSTS THP bursts: MADV_HUGEPAGE regions of THP_MB
 * faulted in 2M steps; each fault's latency is recorded.
 *
 * Per round it prints "round R <vmstat deltas>" and "lat R n sum sumsq
 * huge" lines; a tracer child counts mm_page_alloc_extfrag events by
 * class and type pair ("extfrag R class alloc_mt fallback_mt count").
 *
 * Usage: fragbench ROUNDS BURSTS WARMUP_SECS DIR ANON_MB FILE_MB THP_MB
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmstat.h"

#define MB (1UL << 20)
#define HPAGE (2UL << 20)

static volatile sig_atomic_t stop;
static volatile sig_atomic_t report;

static void on_term(int sig) { (void)sig; stop = 1; }
static void on_usr1(int sig) { (void)sig; report = 1; }

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	unsigned long n = 0;

	while (!stop) {
		struct stat st;
		int budget = 3000;

		/* small files that stay: dentries + inodes, like a build tree */
		for (int k = 0; k < 200 && !stop; k++, n++) {
			int fd;

			snprintf(path, sizeof(path), "%s/tree/d%lu", dir, n / 500);
			mkdir(path, 0755);
			snprintf(path, sizeof(path), "%s/tree/d%lu/o%lu.o", dir,
				 n / 500, n);
			fd = open(path, O_WRONLY | O_CREAT, 0644);
			if (fd >= 0)
				close(fd);
		}
		/* negative dentries: failed lookups, like header searches */
		for (int k = 0; k < 2000 && !stop; k++) {
			snprintf(path, sizeof(path), "%s/tree/d%lu/h%lu.h", dir,
				 rnd() % (n / 500 + 1), rnd() % 1000000);
			stat(path, &st);
		}
		walk("/proc", 0, &budget);
		budget = 2000;
		walk("/sys/devices", 0, &budget);
	}
}

/* -------------------------------------------------------------- unmov */
static void fill_fd(int fd, const char *buf, size_t len)
{
	while (write(fd, buf, len) > 0)
		;
}

static void worker_unmov(void)
{
	enum { NP = 48, NS = 16, NM = 8, KEEP = 160 };
	int pipes[NP][2], socks[NS][2], kept = 0;
	char *maps[NM] = { 0 };
	const size_t vlen = 128UL << 21;	/* 128 page tables each */
	char buf[4096];
	unsigned long iter = 0;

	memset(buf, 0x33, sizeof(buf));
	for (int i = 0; i < NP; i++)
		pipes[i][0] = pipes[i][1] = -1;
	for (int i = 0; i < NS; i++)
		socks[i][0] = socks[i][1] = -1;
	while (!stop) {
		int i = rnd() % NP, s = rnd() % NS, m = rnd() % NM;

		iter++;
		if (pipes[i][0] >= 0) {
			/* now and then, leak one for good */
			if (kept < KEEP && iter % 16 == 0) {
				kept++;
			} else {
				close(pipes[i][0]);
				close(pipes[i][1]);
			}
		}
		if (pipe2(pipes[i], O_NONBLOCK) == 0)
			fill_fd(pipes[i][1], buf, sizeof(buf));
		else
			pipes[i][0] = pipes[i][1] = -1;

		if (socks[s][0] >= 0) {
			close(socks[s][0]);
			close(socks[s][1]);
		}
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
			       socks[s]) == 0)
			fill_fd(socks[s][0], buf, sizeof(buf));
		else
			socks[s][0] = socks[s][1] = -1;

		if (maps[m])
			munmap(maps[m], vlen);
		maps[m] = mmap(NULL, vlen, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (maps[m] == MAP_FAILED) {
			maps[m] = NULL;
		} else {
			madvise(maps[m], vlen, MADV_NOHUGEPAGE);
			for (size_t off = 0; off < vlen; off += HPAGE)
				maps[m][off + (rnd() % 512) * 4096] = 1;
		}
		usleep(2000);
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
 * at 30 seconds per round (a thrashing guest makes fewer attempts).
 */
static void burster(int bursts, double cap, size_t bytes, int out_fd)
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

static pid_t spawn(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_term };

		sigaction(SIGTERM, &sa, NULL);
		rng_state ^= (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL;
		fn(arg);
		_exit(0);
	}
	return pid;
}

struct wargs { const char *dir; size_t bytes; };
static void run_anon(void *a) { worker_anon(((struct wargs *)a)->bytes); }
static void run_files(void *a) { worker_files(((struct wargs *)a)->dir, ((struct wargs *)a)->bytes); }
static void run_slab(void *a) { worker_slab(((struct wargs *)a)->dir); }
static void run_unmov(void *a) { (void)a; worker_unmov(); }

int main(int argc, char **argv)
{
	int rounds, bursts, pb = 9, ack[2], lp[2];
	double warmup;
	struct wargs wa, wf, ws;
	pid_t pids[5], tpid;
	unsigned long v0[NK], v1[NK];
	char path[256];

	if (argc < 8) {
		fprintf(stderr, "usage: fragbench ROUNDS BURSTS WARMUP_SECS DIR ANON_MB FILE_MB THP_MB\n");
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

	if (getenv("PAGEBLOCK_ORDER"))
		pb = atoi(getenv("PAGEBLOCK_ORDER"));
	snprintf(path, sizeof(path), "%s/data", argv[4]);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/tree", argv[4]);
	mkdir(path, 0755);

	if (pipe(ack) || pipe(lp))
		return 1;
	tpid = fork();
	if (tpid == 0) {
		tracer(-1, ack[1], pb);
		_exit(0);
	}
	pids[0] = spawn(run_anon, &wa);
	pids[1] = spawn(run_files, &wf);
	pids[2] = spawn(run_slab, &ws);
	pids[3] = spawn(run_unmov, NULL);
	pids[4] = 0;

	printf("# fragbench: %d rounds x %d bursts, warmup %.0fs, anon %s MB, files %s MB, thp burst %s MB, pageblock_order %d\n",
	       rounds, bursts, warmup, argv[5], argv[6], argv[7], pb);
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
	printf("# warmup done\n");

	for (int r = 1; r <= rounds; r++) {
		struct lat l;
		pid_t b;
		char c;
		double t0 = now();

		read_vmstat(v0);
		b = fork();
		if (b == 0)
			burster(bursts, 30.0, thp_bytes, lp[1]);
		if (read(lp[0], &l, sizeof(l)) != sizeof(l))
			memset(&l, 0, sizeof(l));
		waitpid(b, NULL, 0);
		read_vmstat(v1);
		printf("round %d", r);
		for (size_t k = 0; k < NK; k++)
			printf(" %lu", v1[k] - v0[k]);
		printf("\n");
		printf("lat %d %.0f %.1f %.1f %.1f secs %.1f free %lu blocks %lu\n",
		       r, l.n, l.sum, l.sumsq, l.max, now() - t0,
		       vmstat("nr_free_pages"), vmstat("nr_free_pages_blocks"));
		kill(tpid, SIGUSR1);
		if (read(ack[0], &c, 1) != 1)
			return 1;
	}
	for (int i = 0; i < 4; i++)
		kill(pids[i], SIGTERM);
	for (int i = 0; i < 4; i++)
		waitpid(pids[i], NULL, 0);
	kill(tpid, SIGKILL);
	waitpid(tpid, NULL, 0);
	printf("# done\n");
	return 0;
}
