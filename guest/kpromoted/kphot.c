// SPDX-License-Identifier: GPL-2.0
/*
 * kphot: a process with a hot and a cold set of 4 KiB pages placed on a
 * lower-tier node, that makes random accesses to the hot set (and, rarely,
 * to the cold set) and reports where its pages are over time.
 *
 * The cold set's accesses are paced by the clock (COLD_PER_SEC of them a
 * second, spread at random over its pages), not by a share of the hot
 * set's: how often a cold page is touched, which decides whether a
 * promotion policy may take it for a hot one, is then the same on a fast
 * guest and a slow one. The hot set gets every other access.
 *
 * Placement: set_mempolicy(MPOL_BIND, node) while the pages are first
 * touched, then back to the default policy, so that the pages start on
 * the slow node but nothing forbids moving them (NUMA balancing skips
 * VMAs with a bind policy).
 *
 * Output (one line per sample):
 *   sample t=<s> hot0=<n> cold0=<n> acc=<n>
 * and at the end:
 *   result hot=<n> cold=<n> hot0=<n> cold0=<n> t90=<s|-1> runtime=<s> acc=<n>
 * where hot0/cold0 count pages on node 0 (move_pages(2) with nodes=NULL).
 *
 * With KPHOT_BIND=1 in the environment, the hot set is then bound to its
 * node with mbind(MPOL_BIND) (a VMA policy): kpromoted must leave it there.
 * With KPHOT_STOP=<file>, the run also ends at the first sample after
 * <file> exists (the caller's condition is met; <secs> is then a bound).
 *
 * Other modes:
 *   kphot fill <node> <MiB>  allocate and touch MiB on node (THP if
 *                         enabled), then sleep
 *   kphot inject <wait>   bad input and injected accesses through
 *                         <debugfs>/kpromoted/inject ("check ok|fail" lines)
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
#include <time.h>
#include <unistd.h>

#include "mm_guest.h"

#define MPOL_DEFAULT	0
#define MPOL_BIND	2
#define PAGE		4096UL

static long set_mempolicy(int mode, unsigned long *mask, unsigned long max)
{
	return syscall(SYS_set_mempolicy, mode, mask, max);
}

static long move_pages(int count, void **pages, int *status)
{
	return syscall(SYS_move_pages, 0, count, pages, NULL, status, 0);
}

static char *place(unsigned long npages, int node, int huge)
{
	unsigned long mask = 1UL << node;
	char *p;
	unsigned long i;

	p = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	if (madvise(p, npages * PAGE, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		perror("madvise");
	if (set_mempolicy(MPOL_BIND, &mask, 64)) {
		perror("set_mempolicy(MPOL_BIND)");
		exit(1);
	}
	for (i = 0; i < npages; i++)
		p[i * PAGE] = (char)i | 1;
	if (set_mempolicy(MPOL_DEFAULT, NULL, 0)) {
		perror("set_mempolicy(MPOL_DEFAULT)");
		exit(1);
	}
	return p;
}

static void **ptrs;
static int *status;

static unsigned long count_on(char *p, unsigned long npages, int node,
			      unsigned long *on_other)
{
	unsigned long i, n = 0, other = 0;

	for (i = 0; i < npages; i++)
		ptrs[i] = p + i * PAGE;
	if (move_pages(npages, ptrs, status)) {
		perror("move_pages");
		exit(1);
	}
	for (i = 0; i < npages; i++) {
		if (status[i] == node)
			n++;
		else if (status[i] < 0)
			other++;
	}
	if (on_other)
		*on_other = other;
	return n;
}

static uint64_t rnd = 88172645463325252ULL;

static inline uint64_t xorshift(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return rnd;
}

static unsigned long pagemap_pfn(void *addr)
{
	uint64_t ent;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0 || pread(fd, &ent, 8, (uintptr_t)addr / PAGE * 8) != 8) {
		perror("pagemap");
		exit(1);
	}
	close(fd);
	if (!(ent & (1ULL << 63)))
		return 0;
	return ent & ((1ULL << 55) - 1);
}


static int inject(unsigned long long pfn, int nid)
{
	char buf[64];
	int fd, n, ret = 0;

	fd = open("/sys/kernel/debug/kpromoted/inject", O_WRONLY);
	if (fd < 0) {
		perror("open inject");
		exit(1);
	}
	n = snprintf(buf, sizeof(buf), "%llu %d\n", pfn, nid);
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

static unsigned long long kernel_code_pfn(void)
{
	char line[256];
	unsigned long long start = 0;
	FILE *f = fopen("/proc/iomem", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "Kernel code")) {
			sscanf(line, " %llx", &start);
			break;
		}
	}
	if (f)
		fclose(f);
	return start / PAGE;
}

static int node_of(void *addr)
{
	ptrs[0] = addr;
	if (move_pages(1, ptrs, status))
		return -1;
	return status[0];
}

static int check(const char *name, int ok)
{
	printf("check %s %s\n", ok ? "ok" : "fail", name);
	return !ok;
}

/*
 * Bad input is refused and promotes nothing; two accesses injected for a
 * page of node 1 get it promoted to node 0 within WAIT seconds.
 */
static int inject_mode(int wait)
{
	unsigned long long pfn, kpfn;
	int fails = 0, i, nd = -1;
	char *p;

	ptrs = malloc(sizeof(void *));
	status = malloc(sizeof(int));
	/*
	 * A fresh page sits in a per-CPU LRU batch, not on an LRU list,
	 * until the batch is full: place a few batches and use the first.
	 */
	p = place(64, 1, 0);
	pfn = pagemap_pfn(p);
	kpfn = kernel_code_pfn();
	printf("# page pfn %llu on node %d, kernel code pfn %llu\n", pfn,
	       node_of(p), kpfn);
	fails += check("page-placed-on-node1", node_of(p) == 1 && pfn);
	fails += check("bad-nid-7-refused", inject(pfn, 7) == -EINVAL);
	fails += check("bad-nid-minus5-refused", inject(pfn, -5) == -EINVAL);
	fails += check("offline-pfn-refused", inject(1ULL << 40, -1) == -EINVAL);
	fails += check("non-lru-pfn-refused", kpfn && inject(kpfn, -1) == -EINVAL);
	sleep(3);
	fails += check("bad-input-promoted-nothing", node_of(p) == 1);
	fails += check("first-access-recorded", inject(pfn, 0) == 0);
	fails += check("second-access-recorded", inject(pfn, -1) == 0);
	for (i = 0; i < wait * 10; i++) {
		nd = node_of(p);
		if (nd == 0)
			break;
		usleep(100000);
	}
	printf("# promoted after %.1f s\n", i / 10.0);
	fails += check("injected-hot-page-promoted", nd == 0);
	fails += check("page-content-intact", p[0] == 1);
	return fails ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: kphot run HOT COLD SECONDS COLD_PER_SEC SAMPLE_MS [MAX_ACC [STOP90]]\n"
		"       kphot fill NODE MIB\n"
		"       kphot inject WAIT_SECONDS\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long hot, cold, cold_rate, max_acc, acc = 0, cold_acc = 0;
	unsigned long i;
	const char *stop_file = getenv("KPHOT_STOP");
	int stop90;
	double secs, sample, start, next, t90 = -1, t;
	char *h, *c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();

	if (!strcmp(argv[1], "inject") && argc == 3)
		return inject_mode(atoi(argv[2]));

	if (!strcmp(argv[1], "fill") && argc == 4) {
		h = place(strtoul(argv[3], NULL, 0) * 256, atoi(argv[2]), 1);
		printf("filled\n");
		for (;;)
			pause();
	}

	if (strcmp(argv[1], "run") || argc < 7)
		return usage();
	hot = strtoul(argv[2], NULL, 0);
	cold = strtoul(argv[3], NULL, 0);
	secs = atof(argv[4]);
	cold_rate = strtoul(argv[5], NULL, 0);
	sample = atof(argv[6]) / 1000;
	max_acc = argc > 7 ? strtoul(argv[7], NULL, 0) : 0;
	stop90 = argc > 8 ? atoi(argv[8]) : 0;

	ptrs = malloc(sizeof(void *) * (hot > cold ? hot : cold));
	status = malloc(sizeof(int) * (hot > cold ? hot : cold));
	h = place(hot, 1, 0);
	if (getenv("KPHOT_BIND")) {
		unsigned long mask = 1UL << 1;

		if (syscall(SYS_mbind, h, hot * PAGE, MPOL_BIND, &mask, 64, 0)) {
			perror("mbind(MPOL_BIND)");
			return 1;
		}
		printf("bound hot set to node 1\n");
	}
	c = cold ? place(cold, 1, 0) : NULL;
	printf("placed hot1=%lu cold1=%lu\n", count_on(h, hot, 1, NULL),
	       cold ? count_on(c, cold, 1, NULL) : 0);

	start = now();
	next = start;
	for (;;) {
		for (i = 0; i < 4096; i++) {
			uint64_t r = xorshift();

			h[(r % hot) * PAGE + (r >> 52)]++;
		}
		acc += 4096;
		t = now();
		/* the cold accesses due by now (a batch takes well under 1 ms) */
		while (cold && cold_rate && cold_acc < (t - start) * cold_rate) {
			c[((xorshift() >> 20) % cold) * PAGE]++;
			cold_acc++;
		}
		if (t >= next || (max_acc && acc >= max_acc) || t - start >= secs) {
			unsigned long h0 = count_on(h, hot, 0, NULL);
			unsigned long c0 = cold ? count_on(c, cold, 0, NULL) : 0;

			printf("sample t=%.2f hot0=%lu cold0=%lu acc=%lu\n",
			       t - start, h0, c0, acc);
			if (t90 < 0 && h0 * 10 >= hot * 9)
				t90 = t - start;
			next += sample;
			if ((max_acc && acc >= max_acc) || t - start >= secs ||
			    (stop90 && t90 >= 0) ||
			    (stop_file && !access(stop_file, F_OK)))
				break;
		}
	}
	printf("result hot=%lu cold=%lu hot0=%lu cold0=%lu t90=%.2f runtime=%.2f acc=%lu cold_acc=%lu\n",
	       hot, cold, count_on(h, hot, 0, NULL),
	       cold ? count_on(c, cold, 0, NULL) : 0, t90, now() - start, acc,
	       cold_acc);
	return 0;
}
