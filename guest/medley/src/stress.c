// SPDX-License-Identifier: GPL-2.0
/*
 * stress: a randomized stress of the medley's interfaces with the memory
 * calls around them, in several processes at once.
 *
 *   stress SEED PROCS OPS
 *
 * PROCS workers, each with its own generator (SEED + worker number), do
 * OPS operations each, drawn at random: mmap (some 2 MiB aligned and
 * MADV_HUGEPAGE before the first touch, so they are THPs), munmap,
 * mremap (move and grow), fork (the child checks everything, writes,
 * merges and exits), madvise MADV_MERGE on a random subrange (a THP's
 * tail pages included), MADV_HUGEPAGE, MADV_PAGEOUT, MADV_DONTNEED,
 * writes, full checks, a kpromoted record of a random page
 * (<debugfs>/kpromoted/inject), and flips of vm.defrag_mode. Every page
 * has known content (half of the pages the same in every process, so
 * that they merge): a page that changed, from whatever cause, fails the
 * run with the seed, worker, operation and page. The work is a fixed
 * number of operations: how long it takes does not matter.
 * try_alloc_pages() from NMI and hard-IRQ context runs alongside (the
 * nmialloc module, loaded by guest/medley/tests).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#ifndef MADV_MERGE
#error "MADV_MERGE: build with -DMADV_MERGE=N from the kernel's uapi header (guest/medley/build)"
#endif

#define NREG 12
#define MAXPG 1024		/* pages in a region at most (4 MiB) */
#define HPG 512			/* pages in a PMD THP */

struct region {
	char *addr;
	long pages;
	uint32_t uid;		/* content of its unique pages */
	unsigned char *zero;	/* per page: 1 = must read zero */
};

static long psz;
static struct region reg[NREG];
static uint64_t rng;
static int worker;
static long opno;
static unsigned long long seed;
static uint32_t next_uid;
static int inject_fd = -1;
static int in_guest;	/* sysctl flips and kpromoted records: test guests only */

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static long rr(long n)
{
	return n > 0 ? (long)(rnd() % (uint64_t)n) : 0;
}

/* word w of page i of a region: even pages shared by all, odd unique */
static uint64_t word(const struct region *r, long i, long w)
{
	if (i % 2 == 0)
		return 0x11aa22bb00000000ULL ^ (uint64_t)(i % 8) << 16 ^ (uint64_t)w;
	return (uint64_t)r->uid << 32 ^ (uint64_t)i << 12 ^ (uint64_t)w ^ 0x77;
}

static void die_bad(const struct region *r, long i, long w, uint64_t got,
		    uint64_t want, const char *what)
{
	printf("FAIL seed %llu worker %d op %ld (%s): region uid %u page %ld of %ld word %ld: %#llx, want %#llx\n",
	       seed, worker, opno, what, r->uid, i, r->pages, w,
	       (unsigned long long)got, (unsigned long long)want);
	fflush(stdout);
	_exit(KSFT_FAIL);
}

static void fill_page(struct region *r, long i)
{
	uint64_t *p = (uint64_t *)(r->addr + i * psz);
	long w;

	for (w = 0; w < psz / 8; w++)
		p[w] = word(r, i, w);
	r->zero[i] = 0;
}

static void check_page(const struct region *r, long i, const char *what)
{
	const uint64_t *p = (const uint64_t *)(r->addr + i * psz);
	long w;

	for (w = 0; w < psz / 8; w++) {
		uint64_t want = r->zero[i] ? 0 : word(r, i, w);

		if (p[w] != want)
			die_bad(r, i, w, p[w], want, what);
	}
}

static void check_region(const struct region *r, const char *what)
{
	long i;

	for (i = 0; i < r->pages; i++)
		check_page(r, i, what);
}

static void check_all(const char *what)
{
	int k;

	for (k = 0; k < NREG; k++)
		if (reg[k].addr)
			check_region(&reg[k], what);
}

static void sys_fail(const char *what)
{
	printf("FAIL seed %llu worker %d op %ld: %s: %s\n", seed, worker, opno,
	       what, strerror(errno));
	fflush(stdout);
	_exit(KSFT_FAIL);
}

static void op_map(struct region *r)
{
	int thp = rr(3) == 0;
	long pages = thp ? HPG * (1 + rr(2)) : 1 + rr(MAXPG / 2);
	long len = pages * psz, i;
	char *p;

	/* a THP region: 2 MiB aligned inside a larger mapping */
	p = mmap(NULL, len + (thp ? HPG * psz : 0), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		sys_fail("mmap");
	if (thp) {
		char *a = (char *)(((uintptr_t)p + HPG * psz - 1) & ~((uintptr_t)HPG * psz - 1));

		if (a > p)
			munmap(p, a - p);
		munmap(a + len, p + len + HPG * psz - (a + len));
		p = a;
		madvise(p, len, MADV_HUGEPAGE);
	}
	r->addr = p;
	r->pages = pages;
	r->uid = next_uid++;
	r->zero = calloc(MAXPG * 2, 1);
	if (!r->zero)
		sys_fail("calloc");
	for (i = 0; i < pages; i++)
		fill_page(r, i);
}

static void op_unmap(struct region *r)
{
	check_region(r, "before munmap");
	if (munmap(r->addr, r->pages * psz))
		sys_fail("munmap");
	free(r->zero);
	memset(r, 0, sizeof(*r));
}

static void op_mremap(struct region *r)
{
	long grow = r->pages < MAXPG ? rr(MAXPG - r->pages + 1) : 0;
	long pages = r->pages + grow, i;
	char *p;

	p = mremap(r->addr, r->pages * psz, pages * psz, MREMAP_MAYMOVE);
	/* EFAULT: the region spans several VMAs (madvise split it) */
	if (p == MAP_FAILED && errno == EFAULT)
		return;
	if (p == MAP_FAILED)
		sys_fail("mremap");
	r->addr = p;
	for (i = r->pages; i < pages; i++)
		r->zero[i] = 1;
	r->pages = pages;
	check_region(r, "after mremap");
}

static void range(const struct region *r, long *off, long *n)
{
	*off = rr(r->pages);
	*n = 1 + rr(r->pages - *off);
}

static void op_madvise(struct region *r, int advice, const char *name)
{
	long off, n, i;

	range(r, &off, &n);
	if (madvise(r->addr + off * psz, n * psz, advice) && errno != EAGAIN &&
	    errno != EBUSY)
		sys_fail(name);
	if (advice == MADV_DONTNEED)
		for (i = off; i < off + n; i++)
			r->zero[i] = 1;
}

static void op_write(struct region *r)
{
	long off, n, i;

	range(r, &off, &n);
	for (i = off; i < off + n; i++)
		fill_page(r, i);
}

static void op_record(struct region *r)
{
	static int pm = -1;
	uint64_t e;
	long i = rr(r->pages);
	char b[64];
	int n;

	if (pm < 0)
		pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0 || inject_fd < 0)
		return;
	/* the page must be present for its PFN to mean anything */
	check_page(r, i, "before record");
	if (pread(pm, &e, 8, ((uintptr_t)(r->addr + i * psz) / psz) * 8) != 8 ||
	    !(e & (1ULL << 63)))
		return;
	n = snprintf(b, sizeof(b), "%llu -1\n",
		     (unsigned long long)(e & ((1ULL << 55) - 1)));
	(void)!write(inject_fd, b, n);	/* non-LRU etc. are refused: fine */
}

static void op_defrag_mode(void)
{
	int fd;

	if (!in_guest)
		return;
	fd = open("/proc/sys/vm/defrag_mode", O_WRONLY);
	if (fd < 0)
		return;
	(void)!write(fd, rr(2) ? "1\n" : "0\n", 2);
	close(fd);
}

static void op_fork(void)
{
	pid_t pid = fork();
	int st, k, j;

	if (pid < 0)
		sys_fail("fork");
	if (pid == 0) {
		check_all("child after fork");
		for (j = 0; j < 4; j++) {
			k = rr(NREG);
			if (!reg[k].addr)
				continue;
			if (rr(2))
				op_write(&reg[k]);
			else
				op_madvise(&reg[k], MADV_MERGE, "MADV_MERGE (child)");
		}
		check_all("child before exit");
		_exit(KSFT_PASS);
	}
	if (waitpid(pid, &st, 0) != pid)
		sys_fail("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("FAIL seed %llu worker %d op %ld: forked child ended with status %#x\n",
		       seed, worker, opno, st);
		fflush(stdout);
		_exit(KSFT_FAIL);
	}
	check_all("parent after fork");
}

static void run(long ops)
{
	for (opno = 0; opno < ops; opno++) {
		int k = rr(NREG);
		struct region *r = &reg[k];
		int op = rr(14);

		if (!r->addr) {
			op_map(r);
			continue;
		}
		switch (op) {
		case 0: op_unmap(r); break;
		case 1: op_mremap(r); break;
		case 2: op_fork(); break;
		case 3: case 4: case 5:
			op_madvise(r, MADV_MERGE, "MADV_MERGE"); break;
		case 6:
			/* the whole region: a VMA split would stop mremap */
			if (madvise(r->addr, r->pages * psz, MADV_HUGEPAGE))
				sys_fail("MADV_HUGEPAGE");
			break;
		case 7: op_madvise(r, MADV_PAGEOUT, "MADV_PAGEOUT"); break;
		case 8: op_madvise(r, MADV_DONTNEED, "MADV_DONTNEED"); break;
		case 9: case 10: op_write(r); break;
		case 11: check_region(r, "check"); break;
		case 12: op_record(r); break;
		case 13: op_defrag_mode(); break;
		}
	}
	check_all("at the end");
}

int main(int argc, char **argv)
{
	int procs, i, fails = 0;
	long ops;

	if (argc != 4) {
		fprintf(stderr, "usage: stress SEED PROCS OPS\n");
		return KSFT_FAIL;
	}
	seed = strtoull(argv[1], NULL, 0);
	procs = atoi(argv[2]);
	ops = atol(argv[3]);
	psz = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("stress: seed %llu, %d processes, %ld operations each\n", seed, procs, ops);
	/*
	 * Machine-wide knobs (vm.defrag_mode, kpromoted's injector) are
	 * touched only in a medley test guest, never where this program
	 * happens to be run by hand.
	 */
	{
		char cl[4096] = "";
		int fd = open("/proc/cmdline", O_RDONLY);

		if (fd >= 0) {
			(void)!read(fd, cl, sizeof(cl) - 1);
			close(fd);
		}
		in_guest = strstr(cl, "medley.mode=test") != NULL;
	}
	if (in_guest)
		inject_fd = open("/sys/kernel/debug/kpromoted/inject", O_WRONLY);
	printf("stress: %s\n", in_guest ? "in a medley test guest: flips vm.defrag_mode, records kpromoted accesses" :
	       "not in a medley test guest: no sysctl flips, no kpromoted records");
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return KSFT_FAIL;
		}
		if (pid == 0) {
			worker = i;
			rng = seed * 0x9e3779b97f4a7c15ULL + i + 1;
			next_uid = (uint32_t)i << 24;
			run(ops);
			printf("worker %d: %ld operations, content intact\n", i, ops);
			_exit(KSFT_PASS);
		}
	}
	for (i = 0; i < procs; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			fails++;
	}
	printf("stress: %d of %d workers failed (seed %llu)\n", fails, procs, seed);
	return fails ? KSFT_FAIL : KSFT_PASS;
}
