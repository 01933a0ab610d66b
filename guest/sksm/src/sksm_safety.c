// SPDX-License-Identifier: GPL-2.0
/*
 * sksm_safety: MADV_MERGE on the memory a user can hand it, checked for
 * kernel splats and for the contents of every page.
 *
 * Each case runs in a child process (its exit is part of the case); the
 * kernel log is read from /dev/kmsg before and after, and a new line with
 * "BUG:", "Bad page", "WARNING", "rss-counter", "Oops" or "KASAN" fails the
 * case. Contents are checked after the merge and again after a write to
 * every page. Output: TAP lines, one per case.
 *
 * Usage: sksm_safety [case-name-substring]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <linux/io_uring.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"

#ifndef MADV_MERGE
#define MADV_MERGE 26
#endif
#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif
#define KSM "/sys/kernel/mm/ksm/"
#define THP "/sys/kernel/mm/transparent_hugepage/"
#define PM_PRESENT	0x8000000000000000ULL
#define PM_PFN_MASK	0x007fffffffffffffULL
#define HPAGE (2UL << 20)

#define SKIP 77

static size_t ps;
static int ntests, nfailed;

#define FAIL(...) do { printf("# FAIL %s:%d: ", __func__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); fflush(stdout); return 1; } while (0)

/* ---- helpers ---- */

static long rd_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	long v;

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) <= 0)
		buf[0] = 0;
	close(fd);
	if (sscanf(buf, "%ld", &v) != 1)
		return -1;
	return v;
}

static int wr_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -1;
	close(fd);
	return ret;
}

static uint64_t pfn_of(void *addr)
{
	uint64_t ent;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, sizeof(ent), (uintptr_t)addr / ps * 8) != 8)
		ent = 0;
	close(fd);
	return ent & PM_PRESENT ? ent & PM_PFN_MASK : 0;
}

/* Page contents: seed 0 is zeros, others a pattern that names the seed */
static void fill(char *p, unsigned int seed)
{
	size_t i;

	if (!seed) {
		memset(p, 0, ps);
		return;
	}
	for (i = 0; i < ps; i += 8)
		*(uint64_t *)(p + i) = ((uint64_t)seed << 32) | (i * 2654435761u);
}

static int check(const char *p, unsigned int seed)
{
	size_t i;

	for (i = 0; i < ps; i += 8) {
		uint64_t want = seed ? ((uint64_t)seed << 32) | (i * 2654435761u) : 0;

		if (*(const uint64_t *)(p + i) != want)
			return -1;
	}
	return 0;
}

/* seed of page i of a test range: zeros, four duplicated patterns, uniques */
static unsigned int seed_of(unsigned long i, unsigned int salt)
{
	if (i % 8 == 0)
		return 0;
	if (i % 8 < 5)
		return 1 + i % 8 + salt;
	return 1000 + i + salt;
}

static void fill_range(char *p, unsigned long n, unsigned int salt)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		fill(p + i * ps, seed_of(i, salt));
}

/* Check every page, then write every page and check again */
static int verify_range(char *p, unsigned long n, unsigned int salt, const char *what)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (check(p + i * ps, seed_of(i, salt))) {
			printf("# %s: page %lu of %lu has wrong contents after merge\n", what, i, n);
			return -1;
		}
	for (i = 0; i < n; i++)
		fill(p + i * ps, seed_of(i, salt) + 50000);
	for (i = 0; i < n; i++)
		if (check(p + i * ps, seed_of(i, salt) + 50000)) {
			printf("# %s: page %lu of %lu has wrong contents after write\n", what, i, n);
			return -1;
		}
	return 0;
}

static void *map_aligned(size_t len, size_t align)
{
	char *p = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(align - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + align - a);
	return a;
}

static long smaps_rollup(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			sscanf(line + strlen(key), "%ld", &v);
	fclose(f);
	return v;
}

/*
 * env_rounds(NAME, N): the rounds of a race case, N unless the environment
 * sets NAME to a positive number (the medley's KASAN kernel runs fewer:
 * medley.env.NAME=VALUE in guest/medley/cmdline).
 */
static int env_rounds(const char *name, int n)
{
	const char *v = getenv(name);

	return v && atoi(v) > 0 ? atoi(v) : n;
}

/* guard(): MM_GUARD, how many times longer a hang guard is on a slow kernel */
static int guard(void)
{
	const char *g = getenv("MM_GUARD");

	return g && atoi(g) > 0 ? atoi(g) : 1;
}

static int madv_merge(void *p, size_t len)
{
	return madvise(p, len, MADV_MERGE) ? errno : 0;
}

/* ---- the kernel log ---- */

static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static int kmsg_splats(int fd)
{
	static const char *const bad[] = { "BUG:", "Bad page", "WARNING",
		"rss-counter", "Oops", "KASAN", "kernel BUG", NULL };
	char rec[2048];
	int n = 0, i;
	ssize_t r;

	if (fd < 0)
		return 0;
	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;
		if (r <= 0)
			break;
		rec[r] = 0;
		for (i = 0; bad[i]; i++)
			if (strstr(rec, bad[i])) {
				char *msg = strchr(rec, ';');

				n++;
				if (n <= 5)
					printf("# kernel: %s", msg ? msg + 1 : rec);
				break;
			}
	}
	return n;
}

/* ---- the cases ---- */

/* A PMD-mapped THP, merged from its second subpage to its end */
static int t_thp_pmd_subrange(void)
{
	unsigned long n = HPAGE / ps;
	long merged0 = rd_long(KSM "merge_sync_pages_merged");
	char *p = map_aligned(HPAGE, HPAGE);
	int err;

	if (!p || madvise(p, HPAGE, MADV_HUGEPAGE))
		return SKIP;
	fill_range(p, n, 0);
	if (smaps_rollup("AnonHugePages:") < 2048) {
		printf("# no PMD-mapped THP (AnonHugePages %ld kB)\n",
		       smaps_rollup("AnonHugePages:"));
		return SKIP;
	}
	err = madv_merge(p + ps, HPAGE - ps);
	if (err)
		FAIL("MADV_MERGE(thp + 4 KiB): %s", strerror(err));
	if (rd_long(KSM "merge_sync_pages_merged") <= merged0)
		FAIL("nothing merged (merge_sync_pages_merged %ld)", rd_long(KSM "merge_sync_pages_merged"));
	if (pfn_of(p + 2 * ps) && pfn_of(p + 2 * ps) != pfn_of(p + 10 * ps))
		FAIL("identical pages 2 and 10 not merged");
	if (verify_range(p, n, 0, "thp"))
		return 1;
	return 0;
}

/* A THP mapped by PTEs (the PMD split by an mprotect), merged from +4 KiB */
static int t_thp_pte_mapped(void)
{
	unsigned long n = HPAGE / ps;
	char *p = map_aligned(HPAGE, HPAGE);
	int err;

	if (!p || madvise(p, HPAGE, MADV_HUGEPAGE))
		return SKIP;
	fill_range(p, n, 1);
	if (smaps_rollup("AnonHugePages:") < 2048)
		return SKIP;
	/* split the PMD, not the folio */
	if (mprotect(p + 64 * ps, ps, PROT_READ) ||
	    mprotect(p + 64 * ps, ps, PROT_READ | PROT_WRITE))
		FAIL("mprotect: %s", strerror(errno));
	if (smaps_rollup("AnonHugePages:") != 0)
		printf("# AnonHugePages still %ld kB\n", smaps_rollup("AnonHugePages:"));
	err = madv_merge(p + ps, HPAGE - ps);
	if (err)
		FAIL("MADV_MERGE: %s", strerror(err));
	return verify_range(p, n, 1, "pte-mapped thp") ? 1 : 0;
}

/* Partly unmapped THP (deferred split) merged across its remaining pages */
static int t_thp_partial_unmap(void)
{
	unsigned long n = HPAGE / ps;
	char *p = map_aligned(HPAGE, HPAGE);
	int err;

	if (!p || madvise(p, HPAGE, MADV_HUGEPAGE))
		return SKIP;
	fill_range(p, n, 2);
	if (smaps_rollup("AnonHugePages:") < 2048)
		return SKIP;
	munmap(p + HPAGE - 4 * ps, 4 * ps);
	err = madv_merge(p + 3 * ps, HPAGE - 7 * ps);
	if (err)
		FAIL("MADV_MERGE: %s", strerror(err));
	return verify_range(p, n - 4, 2, "partly unmapped thp") ? 1 : 0;
}

/* mTHP of one size (kB): enable only it, fault a region, merge from +4 KiB */
static int mthp_case(long kb)
{
	char path[160], stat[160];
	size_t sz = kb * 1024, len = 4 * sz;
	unsigned long n = len / ps;
	long before, after;
	char *p;
	int err, ret = 0;

	snprintf(path, sizeof(path), THP "hugepages-%ldkB/enabled", kb);
	snprintf(stat, sizeof(stat), THP "hugepages-%ldkB/stats/anon_fault_alloc", kb);
	before = rd_long(stat);
	if (before < 0) {
		printf("# %ld kB: no anon_fault_alloc, not a size for anonymous memory\n", kb);
		return SKIP;
	}
	p = map_aligned(len, sz > HPAGE ? sz : HPAGE);
	if (!p)
		return SKIP;
	madvise(p, len, MADV_HUGEPAGE);
	fill_range(p, n, 3);
	after = rd_long(stat);
	if (after <= before) {
		printf("# %ld kB: no mTHP faulted (anon_fault_alloc %ld -> %ld)\n", kb, before, after);
		return SKIP;
	}
	printf("# %ld kB: %ld mTHP faulted\n", kb, after - before);
	err = madv_merge(p + ps, len - 2 * ps);
	if (err) {
		printf("# MADV_MERGE: %s\n", strerror(err));
		ret = 1;
	}
	if (verify_range(p, n, 3, path))
		ret = 1;
	munmap(p, len);
	return ret;
}

static int t_mthp_all_sizes(void)
{
	char path[300], saved[64][16];
	long sizes[64];
	int ns = 0, i, j, ret = 0, tried = 0;
	struct dirent *d;
	DIR *dir = opendir(THP);

	if (!dir)
		return SKIP;
	while ((d = readdir(dir)) && ns < 64)
		if (sscanf(d->d_name, "hugepages-%ldkB", &sizes[ns]) == 1)
			ns++;
	closedir(dir);
	if (!ns) {
		printf("# no mTHP sizes offered\n");
		return SKIP;
	}
	for (i = 0; i < ns; i++) {
		int fd;
		char buf[128] = "", *b, *e;

		snprintf(path, sizeof(path), THP "hugepages-%ldkB/enabled", sizes[i]);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf) - 1) < 0)
				buf[0] = 0;
			close(fd);
		}
		b = strchr(buf, '[');
		e = b ? strchr(b, ']') : NULL;
		if (b && e && e - b < 16) {
			memcpy(saved[i], b + 1, e - b - 1);
			saved[i][e - b - 1] = 0;
		} else {
			strcpy(saved[i], "never");
		}
	}
	for (i = 0; i < ns; i++) {
		for (j = 0; j < ns; j++) {
			snprintf(path, sizeof(path), THP "hugepages-%ldkB/enabled", sizes[j]);
			wr_str(path, i == j ? "always" : "never");
		}
		j = mthp_case(sizes[i]);
		if (j == 1) {
			printf("# mTHP %ld kB failed\n", sizes[i]);
			ret = 1;
		}
		if (j == 0)
			tried++;
	}
	for (i = 0; i < ns; i++) {
		snprintf(path, sizeof(path), THP "hugepages-%ldkB/enabled", sizes[i]);
		wr_str(path, saved[i]);
	}
	printf("# %d of %d sizes faulted and merged\n", tried, ns);
	return ret ? 1 : tried ? 0 : SKIP;
}

/* hugetlb: KSM cannot merge it; MADV_MERGE says so with EINVAL */
static int t_hugetlb_refused(void)
{
	char *p;
	int err;

	if (rd_long("/proc/sys/vm/nr_hugepages") < 1)
		wr_str("/proc/sys/vm/nr_hugepages", "4");
	p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED) {
		printf("# no hugetlb page: %s\n", strerror(errno));
		return SKIP;
	}
	memset(p, 0x5a, HPAGE);
	err = madv_merge(p, HPAGE);
	if (err != EINVAL)
		FAIL("MADV_MERGE on hugetlb: %s, want EINVAL", err ? strerror(err) : "success");
	for (size_t i = 0; i < HPAGE; i++)
		if (p[i] != 0x5a)
			FAIL("hugetlb contents changed at %zu", i);
	munmap(p, HPAGE);
	return 0;
}

/* Shared mappings (anonymous, file) are refused; private file COW merges */
static int t_shared_and_file(void)
{
	unsigned long n = 16, i;
	int fd = memfd_create("sksm", 0), err;
	char *s, *f, *q;

	s = mmap(NULL, n * ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED || fd < 0 || ftruncate(fd, n * ps))
		FAIL("setup");
	fill_range(s, n, 4);
	err = madv_merge(s, n * ps);
	if (err != EINVAL)
		FAIL("MAP_SHARED anonymous: %s, want EINVAL", err ? strerror(err) : "success");
	if (verify_range(s, n, 4, "shared anon"))
		return 1;
	f = mmap(NULL, n * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED)
		FAIL("mmap memfd");
	fill_range(f, n, 5);
	err = madv_merge(f, n * ps);
	if (err != EINVAL)
		FAIL("MAP_SHARED file: %s, want EINVAL", err ? strerror(err) : "success");
	if (verify_range(f, n, 5, "shared file"))
		return 1;
	/* file is now seed+50000; a private mapping that patches some pages */
	q = mmap(NULL, n * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (q == MAP_FAILED)
		FAIL("mmap private");
	for (i = 0; i < n; i += 2)
		fill(q + i * ps, 7);
	err = madv_merge(q, n * ps);
	if (err)
		FAIL("MAP_PRIVATE file: %s", strerror(err));
	for (i = 0; i < n; i++)
		if (check(q + i * ps, i % 2 ? seed_of(i, 5) + 50000 : 7))
			FAIL("private file page %lu wrong", i);
	for (i = 0; i < n; i++)
		if (check(f + i * ps, seed_of(i, 5) + 50000))
			FAIL("file page %lu changed by a private merge", i);
	if (pfn_of(q) && pfn_of(q) != pfn_of(q + 2 * ps))
		FAIL("patched private pages not merged");
	return 0;
}

static int t_mlocked(void)
{
	unsigned long n = 64;
	char *p = map_aligned(n * ps, ps);
	int err;

	fill_range(p, n, 6);
	if (mlock(p, n * ps))
		return SKIP;
	err = madv_merge(p + ps, (n - 1) * ps);
	if (err)
		FAIL("MADV_MERGE: %s", strerror(err));
	return verify_range(p, n, 6, "mlocked") ? 1 : 0;
}

/* A THP, mlocked, merged from +4 KiB */
static int t_mlocked_thp(void)
{
	unsigned long n = HPAGE / ps;
	char *p = map_aligned(HPAGE, HPAGE);
	int err;

	if (!p || madvise(p, HPAGE, MADV_HUGEPAGE))
		return SKIP;
	fill_range(p, n, 7);
	if (mlock(p, HPAGE))
		return SKIP;
	err = madv_merge(p + ps, HPAGE - ps);
	if (err)
		FAIL("MADV_MERGE: %s", strerror(err));
	return verify_range(p, n, 7, "mlocked thp") ? 1 : 0;
}

/* GUP references from vmsplice(): pages in a pipe, THP and small */
static int t_vmsplice_pinned(void)
{
	unsigned long n = HPAGE / ps, i;
	char *p = map_aligned(HPAGE, HPAGE), *buf = malloc(ps);
	int pfd[2], err;
	struct iovec iov;

	if (!p || pipe(pfd))
		return SKIP;
	madvise(p, HPAGE, MADV_HUGEPAGE);
	fill_range(p, n, 8);
	fcntl(pfd[1], F_SETPIPE_SZ, 16 * ps);
	/* pages 1..8 of the THP go into the pipe by reference */
	iov.iov_base = p + ps;
	iov.iov_len = 8 * ps;
	if (vmsplice(pfd[1], &iov, 1, 0) != (ssize_t)(8 * ps))
		FAIL("vmsplice: %s", strerror(errno));
	/*
	 * The pipe holds references (FOLL_GET, not pins) to pages 1..8:
	 * they, and the THP they belong to (it cannot be split while they
	 * are held), are left, and the call says so.
	 */
	err = madv_merge(p + ps, HPAGE - ps);
	if (err != EAGAIN)
		FAIL("MADV_MERGE with pages in a pipe: %s, want EAGAIN",
		     err ? strerror(err) : "0");
	for (i = 1; i <= 8; i++) {
		if (read(pfd[0], buf, ps) != (ssize_t)ps)
			FAIL("read pipe");
		if (check(buf, seed_of(i, 8)))
			FAIL("pipe page %lu wrong", i);
	}
	free(buf);
	return verify_range(p, n, 8, "vmsplice") ? 1 : 0;
}

/*
 * A page held by another CPU's LRU batch: faulted in on CPU 1, where the
 * new folio waits in that CPU's lru_add batch (with a reference of its own)
 * until the batch fills or is drained; then MADV_MERGE from CPU 0, whose
 * own lru_add_drain() does not reach it. The call must merge it (after
 * draining every CPU's batches) or say EAGAIN; never return 0 with the
 * page left as it was. Twins: every page holds the same contents, so all
 * of them end on one frame.
 */
static int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int t_busy_lru_batch(void)
{
	unsigned long n = 8, i, left = 0;
	char *p = map_aligned(n * ps, ps);
	int err;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return SKIP;
	if (!p)
		FAIL("mmap");
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	if (pin_cpu(1))
		FAIL("sched_setaffinity(1): %s", strerror(errno));
	for (i = 0; i < n; i++)
		fill(p + i * ps, 4711);
	if (pin_cpu(0))
		FAIL("sched_setaffinity(0): %s", strerror(errno));
	err = madv_merge(p, n * ps);
	for (i = 1; i < n; i++)
		left += !pfn_of(p) || pfn_of(p + i * ps) != pfn_of(p);
	printf("# MADV_MERGE from CPU 0 of %lu twins faulted on CPU 1: %s, %lu not merged\n",
	       n, err ? strerror(err) : "0", left);
	if (err && err != EAGAIN)
		FAIL("MADV_MERGE: %s", strerror(err));
	if (!err && left)
		FAIL("returned 0 with %lu of %lu twins not merged", left, n);
	if (err == EAGAIN && !left)
		FAIL("EAGAIN with every twin merged");
	for (i = 0; i < n; i++)
		if (check(p + i * ps, 4711))
			FAIL("page %lu wrong", i);
	return 0;
}

/* FOLL_LONGTERM pins from io_uring fixed buffers */
struct uring_params {
	uint32_t sq_entries, cq_entries, flags, sq_thread_cpu, sq_thread_idle;
	uint32_t features, wq_fd, resv[3];
	uint64_t sq_off[5], cq_off[5];
};

static int t_longterm_pinned(void)
{
	unsigned long n = 64, i;
	char *p = map_aligned(n * ps, ps);
	struct uring_params params;
	struct iovec iov;
	uint64_t pfns[64];
	int fd, err;

	memset(&params, 0, sizeof(params));
	fd = syscall(425 /* io_uring_setup */, 4, &params);
	if (fd < 0) {
		printf("# io_uring_setup: %s\n", strerror(errno));
		return SKIP;
	}
	for (i = 0; i < n; i++)
		fill(p + i * ps, i < 32 ? 9 : 10);	/* two groups of twins */
	iov.iov_base = p;
	iov.iov_len = 32 * ps;
	if (syscall(427 /* io_uring_register */, fd, 0 /* BUFFERS */, &iov, 1))
		FAIL("IORING_REGISTER_BUFFERS: %s", strerror(errno));
	for (i = 0; i < n; i++)
		pfns[i] = pfn_of(p + i * ps);
	err = madv_merge(p, n * ps);
	if (err)
		FAIL("MADV_MERGE: %s", strerror(err));
	for (i = 0; i < 32; i++)
		if (pfns[i] && pfn_of(p + i * ps) != pfns[i])
			FAIL("pinned page %lu replaced (pfn %llx -> %llx)", i,
			     (unsigned long long)pfns[i],
			     (unsigned long long)pfn_of(p + i * ps));
	if (pfns[32] && pfn_of(p + 33 * ps) != pfn_of(p + 40 * ps))
		FAIL("unpinned twins not merged");
	for (i = 0; i < n; i++)
		if (check(p + i * ps, i < 32 ? 9 : 10))
			FAIL("page %lu wrong", i);
	close(fd);
	return 0;
}

/*
 * MADV_MERGE's own switch, ksm/merge_sync, with ksm/run at 1 throughout
 * (ksmd scanning nothing, pages_to_scan 0): 0 refuses every caller with
 * EPERM and merges nothing, 1 lets only CAP_SYS_ADMIN callers merge (an
 * unprivileged uid gets EPERM), 2 lets every caller merge.
 */
static int merge_as(uid_t uid, unsigned long n, unsigned int salt)
{
	pid_t pid = fork();
	int st, err;

	if (!pid) {
		char *p = map_aligned(n * ps, ps);

		fill_range(p, n, salt);
		if (uid && setresuid(uid, uid, uid))
			_exit(100);
		err = madv_merge(p, n * ps);
		if (verify_range(p, n, salt, "unprivileged caller"))
			_exit(102);
		_exit(err);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 101;
}

static int t_merge_switch(void)
{
	unsigned long n = 16;
	char *p = map_aligned(n * ps, ps);
	long sync0 = rd_long(KSM "merge_sync"), m0;
	char v[32];
	int err, ret = 0, k;

	if (sync0 < 0)
		FAIL("no " KSM "merge_sync");
	if (rd_long(KSM "run") != 1)
		FAIL("ksm/run is %ld, want 1", rd_long(KSM "run"));
	fill_range(p, n, 11);
	wr_str(KSM "merge_sync", "0");
	err = madv_merge(p, n * ps);
	if (err != EPERM) {
		printf("# merge_sync=0: %s, want EPERM\n", err ? strerror(err) : "success");
		ret = 1;
	}
	if (pfn_of(p + ps) && pfn_of(p + ps) == pfn_of(p + 9 * ps)) {
		printf("# merge_sync=0: pages merged\n");
		ret = 1;
	}
	wr_str(KSM "merge_sync", "1");
	m0 = rd_long(KSM "merge_sync_pages_merged");
	err = merge_as(65534, n, 15);
	if (err != EPERM) {
		printf("# merge_sync=1, uid 65534: %s, want EPERM\n", err > 99 ? "child failed" : err ? strerror(err) : "success");
		ret = 1;
	}
	if (rd_long(KSM "merge_sync_pages_merged") != m0) {
		printf("# merge_sync=1, uid 65534: pages merged\n");
		ret = 1;
	}
	/*
	 * A page found busy (a reference held elsewhere for a moment: seen
	 * once in the medley, with kpromoted and NMI allocations) is left
	 * and reported with EAGAIN (a kernel without that report returned
	 * 0). Asked again, a bounded number of times, until merged.
	 */
	for (k = 0; k < 20; k++) {
		err = madv_merge(p, n * ps);
		if (err != EAGAIN &&
		    (err || (pfn_of(p + ps) && pfn_of(p + ps) == pfn_of(p + 9 * ps))))
			break;
	}
	if (k)
		printf("# merge_sync=1, root: merged after %d calls\n", k + 1);
	if (err) {
		printf("# merge_sync=1, root: %s\n", strerror(err));
		ret = 1;
	}
	if (!pfn_of(p + ps) || pfn_of(p + ps) != pfn_of(p + 9 * ps)) {
		printf("# merge_sync=1, root: pages not merged\n");
		ret = 1;
	}
	if (verify_range(p, n, 11, "merge_sync=1"))
		ret = 1;
	/* a fresh range, merged by an unprivileged caller */
	wr_str(KSM "merge_sync", "2");
	m0 = rd_long(KSM "merge_sync_pages_merged");
	err = merge_as(65534, n, 13);
	if (err) {
		printf("# merge_sync=2, uid 65534: %s\n", err > 99 ? "child failed" : strerror(err));
		ret = 1;
	}
	if (rd_long(KSM "merge_sync_pages_merged") - m0 < 4) {
		printf("# merge_sync=2, uid 65534: merge_sync_pages_merged moved by %ld, want >= 4\n",
		       rd_long(KSM "merge_sync_pages_merged") - m0);
		ret = 1;
	}
	if (rd_long(KSM "run") != 1) {
		printf("# ksm/run moved\n");
		ret = 1;
	}
	snprintf(v, sizeof(v), "%ld", sync0);
	wr_str(KSM "merge_sync", v);
	return ret;
}

/*
 * Signals during a long call: a handler installed without SA_RESTART, and
 * job-control stops (SIGSTOP/SIGCONT, which wake the task as the freezer
 * does), arrive all along. The call never fails with EINTR: it is
 * restarted after the signal, and merges the whole range.
 */
static volatile int got_sig;
static void on_sig(int s) { got_sig++; }

static int t_signals(void)
{
	unsigned long n = 8192, calls;
	char *p = map_aligned(n * ps, HPAGE);
	struct sigaction sa = { .sa_handler = on_sig };
	pid_t parent = getpid(), kid;
	volatile int *done;
	long m0;
	int err = 0, k;

	madvise(p, n * ps, MADV_NOHUGEPAGE);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART */
	/*
	 * The signalling child is forked before the range is filled: pages
	 * it shared by fork would not be made KSM pages (MADV_MERGE leaves
	 * a page that other processes map too).
	 */
	/*
	 * It is asked to stop through a shared flag, not killed: killed
	 * between its SIGSTOP and its SIGCONT it would leave this process
	 * stopped for good (its SIGSTOP still pending when the kill
	 * returns), and the case hung.  It always sends SIGCONT last.
	 */
	done = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (done == MAP_FAILED)
		FAIL("mmap: %s", strerror(errno));
	*done = 0;
	kid = fork();
	if (!kid) {
		for (k = 0; !*done; k++) {
			kill(parent, k % 4 == 3 ? SIGSTOP : SIGUSR1);
			if (k % 4 == 3) {
				usleep(1000);
				kill(parent, SIGCONT);
			}
			usleep(2000);
		}
		kill(parent, SIGCONT);
		_exit(0);
	}
	fill_range(p, n, 12);
	m0 = rd_long(KSM "merge_sync_pages_merged");
	for (calls = 0; calls < 4 && !err; calls++) {
		err = madv_merge(p, n * ps);
		/* the next calls start over on pages not merged yet */
		if (!calls && !err)
			fill_range(p, n, 14);
	}
	*done = 1;
	while (waitpid(kid, NULL, 0) < 0 && errno == EINTR)
		;
	printf("# %lu calls, %d signals handled\n", calls, got_sig);
	if (err)
		FAIL("MADV_MERGE under signals: %s", strerror(err));
	if (!got_sig)
		FAIL("no signal arrived");
	if (rd_long(KSM "merge_sync_pages_merged") - m0 < (long)n)
		FAIL("merge_sync_pages_merged moved by %ld, want >= %lu",
		     rd_long(KSM "merge_sync_pages_merged") - m0, n);
	return verify_range(p, n, 14, "signals") ? 1 : 0;
}

/*
 * A KSM page moved to another node, with merge_across_nodes 0, is put back
 * in the stable tree of its new node by the next MADV_MERGE of its own
 * mapping (not left on migrate_nodes), and an identical page on that node
 * then merges with it.
 */
static int migrate_nodes_child(void)
{
	char *a = map_aligned(ps, ps), *b = map_aligned(ps, ps);
	int node, status;
	void *pg;
	uint64_t pa, pb;

	fill(a, 4242);
	fill(b, 4242);
	pg = a; node = 0;
	syscall(SYS_move_pages, 0, 1, &pg, &node, &status, 0);
	if (madv_merge(a, ps))
		FAIL("MADV_MERGE a: %s", strerror(errno));
	pg = a; node = 1;
	if (syscall(SYS_move_pages, 0, 1, &pg, &node, &status, 0) || status != 1)
		FAIL("move_pages of the KSM page to node 1: status %d", status);
	if (madv_merge(a, ps))
		FAIL("MADV_MERGE a again: %s", strerror(errno));
	pg = b; node = 1;
	syscall(SYS_move_pages, 0, 1, &pg, &node, &status, 0);
	if (status != 1)
		FAIL("b not on node 1: %d", status);
	if (madv_merge(b, ps))
		FAIL("MADV_MERGE b: %s", strerror(errno));
	pa = pfn_of(a);
	pb = pfn_of(b);
	printf("# a pfn %#llx, b pfn %#llx\n", (unsigned long long)pa, (unsigned long long)pb);
	if (check(a, 4242) || check(b, 4242))
		FAIL("contents");
	if (!pa || pa != pb)
		FAIL("b did not merge with the migrated KSM page");
	return 0;
}

static int t_migrate_nodes(void)
{
	int i, st, ret;
	pid_t pid;

	if (access("/sys/devices/system/node/node1", F_OK))
		return SKIP;
	/* merge_across_nodes can change only with no KSM page in use */
	for (i = 0; i < 300 && rd_long(KSM "pages_shared"); i++)
		usleep(100000);
	if (wr_str(KSM "merge_across_nodes", "0"))
		FAIL("merge_across_nodes=0 refused (pages_shared %ld)",
		     rd_long(KSM "pages_shared"));
	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(migrate_nodes_child());
	waitpid(pid, &st, 0);
	ret = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	/* back to 1 once the child's KSM pages are freed */
	for (i = 0; i < 300 && wr_str(KSM "merge_across_nodes", "1"); i++)
		usleep(100000);
	if (rd_long(KSM "merge_across_nodes") != 1)
		FAIL("merge_across_nodes not back to 1 (pages_shared %ld)",
		     rd_long(KSM "pages_shared"));
	return ret;
}

/*
 * A page being migrated when MADV_MERGE's walk reaches it (a migration
 * entry in its PTE) is left and reported with EAGAIN, as the
 * documentation says: a thread moves twin pages between the nodes with
 * move_pages() while MADV_MERGE runs on them, many times; a return of 0
 * must find every twin on one frame. A race, so it may not be met in a
 * run (the comment line says how many calls saw EAGAIN); it cannot fail
 * on a kernel that reports such pages.
 */
#define MIG_PAGES 64
#define MIG_ROUNDS env_rounds("SKSM_MIG_ROUNDS", 150)

static char *mig_base;
static volatile int mig_go, mig_moves;

static void *mig_mover(void *arg)
{
	void *pages[MIG_PAGES];
	int nodes[MIG_PAGES], status[MIG_PAGES], i, node = 1;

	for (i = 0; i < MIG_PAGES; i++)
		pages[i] = mig_base + i * ps;
	while (mig_go) {
		for (i = 0; i < MIG_PAGES; i++)
			nodes[i] = node;
		syscall(SYS_move_pages, 0, MIG_PAGES, pages, nodes, status, 0);
		node = !node;
		__atomic_add_fetch(&mig_moves, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static int t_migrating_merged_or_eagain(void)
{
	unsigned long i, left, again = 0, zero = 0;
	unsigned int seed;
	pthread_t th;
	int r, err;

	if (access("/sys/devices/system/node/node1", F_OK))
		return SKIP;
	mig_base = map_aligned(MIG_PAGES * ps, ps);
	if (!mig_base)
		FAIL("mmap");
	madvise(mig_base, MIG_PAGES * ps, MADV_NOHUGEPAGE);
	for (r = 0; r < MIG_ROUNDS; r++) {
		/* new contents each round: a write also unmerges the last */
		seed = 7000 + r;
		for (i = 0; i < MIG_PAGES; i++)
			fill(mig_base + i * ps, seed);
		mig_moves = 0;
		mig_go = 1;
		if (pthread_create(&th, NULL, mig_mover, NULL))
			FAIL("pthread_create");
		while (!__atomic_load_n(&mig_moves, __ATOMIC_SEQ_CST))
			sched_yield();
		err = madv_merge(mig_base, MIG_PAGES * ps);
		mig_go = 0;
		pthread_join(th, NULL);
		if (err && err != EAGAIN)
			FAIL("round %d: MADV_MERGE: %s", r, strerror(err));
		left = 0;
		for (i = 1; i < MIG_PAGES; i++)
			left += !pfn_of(mig_base) ||
				pfn_of(mig_base + i * ps) != pfn_of(mig_base);
		for (i = 0; i < MIG_PAGES; i++)
			if (check(mig_base + i * ps, seed))
				FAIL("round %d: page %lu wrong", r, i);
		if (!err && left)
			FAIL("round %d: returned 0 with %lu of %d twins not merged",
			     r, left, MIG_PAGES);
		again += err == EAGAIN;
		zero += !err;
	}
	printf("# %d rounds of MADV_MERGE against move_pages(): %lu returned 0 all merged, %lu EAGAIN\n",
	       MIG_ROUNDS, zero, again);
	return 0;
}

/* debugfs_file(F): mount debugfs if F is not there; 0 when F can be read */
static int debugfs_file(const char *f)
{
	if (access(f, R_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	return access(f, R_OK) ? -1 : 0;
}

/*
 * MADV_MERGE's walk of the rmap_list is linear: merging N pages walks,
 * frees or inserts at most a few rmap_items per page (debugfs counter
 * ksm/merge_rmap_walked), where restarting each batch at the head of the
 * list walked about N * N / 512.
 */
static int t_rmap_walk_linear(void)
{
	unsigned long n = 16384;
	char *p = map_aligned(n * ps, HPAGE);
	const char *f = "/sys/kernel/debug/ksm/merge_rmap_walked";
	long w0, w1, w2;
	unsigned long i;

	debugfs_file(f);
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		fill(p + i * ps, 700000 + i);
	w0 = rd_long(f);
	if (w0 < 0)
		FAIL("no %s", f);
	if (madv_merge(p, n * ps))
		FAIL("MADV_MERGE: %s", strerror(errno));
	w1 = rd_long(f);
	/* every page again, with a hole punched in the middle */
	munmap(p + n / 2 * ps, 64 * ps);
	madv_merge(p, n * ps);
	w2 = rd_long(f);
	printf("# %lu pages: %ld rmap_items walked by the first call, %ld by the second\n",
	       n, w1 - w0, w2 - w1);
	if (w1 - w0 > 2 * (long)n || w2 - w1 > 2 * (long)n)
		FAIL("more than 2 rmap_items walked per page");
	return 0;
}

/* ---- bounded holds and prompt signals ---- */

#define DBG "/sys/kernel/debug/ksm/"

/*
 * One hold of ksm_thread_mutex visits a bounded number of page table
 * entries: a range of 32768 zero-page PTEs (read faults, no THP) with one
 * page to merge at its far end. The debugfs file ksm/merge_walk_max holds
 * the largest number of page table entries one hold visited; it must stay
 * within the 256 steps of a batch, and the far page must still be merged.
 */
static int t_walk_bounded(void)
{
	unsigned long n = 32768, i;
	char *p = map_aligned(n * ps, HPAGE);
	long s0, walk;
	volatile char c;

	if (debugfs_file(DBG "merge_walk_max") || access(DBG "merge_walk_max", W_OK))
		FAIL("no %smerge_walk_max", DBG);
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	for (i = 0; i < n - 1; i++)
		c = p[i * ps];
	(void)c;
	fill(p + (n - 1) * ps, 990001);
	s0 = rd_long(KSM "merge_sync_pages_shared");
	if (wr_str(DBG "merge_walk_max", "0"))
		FAIL("cannot reset merge_walk_max");
	if (madv_merge(p, n * ps))
		FAIL("MADV_MERGE: %s", strerror(errno));
	walk = rd_long(DBG "merge_walk_max");
	printf("# %lu zero-page PTEs: at most %ld page table entries visited in one hold\n",
	       n, walk);
	if (walk > 256)
		FAIL("one hold visited %ld page table entries, want <= 256", walk);
	if (rd_long(KSM "merge_sync_pages_shared") - s0 < 1)
		FAIL("the page at the end of the range was not merged");
	return check(p + (n - 1) * ps, 990001) ? 1 : 0;
}

/*
 * A signal storm (ITIMER_REAL, SIGALRM every 1 ms, a handler without
 * SA_RESTART) during the merge of 16384 unique pages: the call is
 * restarted after each signal and resumes where it stopped, so it
 * completes without EINTR and visits at most 4 page table entries (and
 * VMAs) a page in all (debugfs ksm/merge_walk_total: 3 a page, one each of
 * VMA, PMD and PTE, and a few at each restart), and walks at most 2
 * rmap_items a page (ksm/merge_rmap_walked), where each restart from the
 * start of the range walked the page tables of the merged part again
 * (an rmap_item found at its page's address is not counted as walked, so
 * the second bound alone misses that). (ITIMER_PROF would not do:
 * its expiry is processed on the return to userspace.) A machine fast
 * enough to merge the range in under 2 ms skips the case.
 */
static volatile int prof_sigs;
static void on_prof(int s) { prof_sigs++; }

static int t_signal_storm(void)
{
	unsigned long n = 16384;
	char *p = map_aligned(n * ps, HPAGE);
	struct sigaction sa = { .sa_handler = on_prof };
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off = { };
	long w0, w1, t0, t1;
	int err;

	if (debugfs_file(DBG "merge_walk_total") || rd_long(DBG "merge_walk_total") < 0)
		FAIL("no debugfs ksm/merge_walk_total");
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	fill_range(p, n, 31);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	w0 = rd_long(DBG "merge_rmap_walked");
	t0 = rd_long(DBG "merge_walk_total");
	setitimer(ITIMER_REAL, &it, NULL);
	err = madv_merge(p, n * ps);
	setitimer(ITIMER_REAL, &off, NULL);
	w1 = rd_long(DBG "merge_rmap_walked");
	t1 = rd_long(DBG "merge_walk_total");
	printf("# %lu pages, %d SIGALRM handled, %ld rmap_items walked, %ld page table entries visited\n",
	       n, prof_sigs, w1 - w0, t1 - t0);
	if (err)
		FAIL("MADV_MERGE under SIGALRM: %s", strerror(err));
	if (prof_sigs < 2) {
		printf("# only %d SIGALRM arrived during the call\n", prof_sigs);
		return SKIP;
	}
	if (w1 - w0 > 2 * (long)n)
		FAIL("%ld rmap_items walked for %lu pages: restarts walked the merged part again",
		     w1 - w0, n);
	if (t1 - t0 > 4 * (long)n)
		FAIL("%ld page table entries visited for %lu pages: restarts walked the merged part again",
		     t1 - t0, n);
	return verify_range(p, n, 31, "signal storm") ? 1 : 0;
}

/*
 * SIGSTOP stops a call that merges nothing (its range is merged already)
 * while the call is in progress: a child merges 16384 pages, calls again
 * over them (the work of that call, in page table entries visited, debugfs
 * ksm/merge_walk_total, is W), then calls a third time; once the counter
 * moves the parent sends SIGSTOP and
 * polls /proc/<child>/stat until the state is T (a hang guard of 300 s,
 * not a timing threshold). The third call must have stopped before doing
 * all of W, and, continued, completes.
 */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *q;
	int fd, len;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	q = strrchr(buf, ')');
	return q && q[1] && q[2] ? q[2] : 0;
}

static int t_sigstop_prompt(void)
{
	unsigned long n = 16384;
	long *sh = mmap(NULL, ps, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long b, c1, w;
	int go[2], i, st;
	char st_c = 0, x;
	pid_t kid;

	if (debugfs_file(DBG "merge_walk_total") || rd_long(DBG "merge_walk_total") < 0)
		FAIL("no debugfs ksm/merge_walk_total");
	if (pipe(go))
		FAIL("pipe");
	kid = fork();
	if (!kid) {
		char *p = map_aligned(n * ps, HPAGE);
		long w0;

		madvise(p, n * ps, MADV_NOHUGEPAGE);
		fill_range(p, n, 41);
		if (madv_merge(p, n * ps))
			_exit(2);
		w0 = rd_long(DBG "merge_walk_total");
		if (madv_merge(p, n * ps))
			_exit(3);
		sh[0] = rd_long(DBG "merge_walk_total") - w0;
		sh[1] = 1;
		if (read(go[0], &x, 1) != 1)
			_exit(4);
		sh[2] = madv_merge(p, n * ps);
		sh[3] = 1;
		_exit(verify_range(p, n, 41, "after SIGSTOP") ? 5 : 0);
	}
	for (i = 0; i < 300000 && !sh[1]; i++)
		usleep(1000);
	if (!sh[1])
		FAIL("child did not get ready");
	w = sh[0];
	b = rd_long(DBG "merge_walk_total");
	if (write(go[1], "g", 1) != 1)
		FAIL("write");
	/* the call is in progress once the counter moves */
	for (i = 0; i < 3000000 && rd_long(DBG "merge_walk_total") == b; i++)
		;
	kill(kid, SIGSTOP);
	for (i = 0; i < 300000 && (st_c = proc_state(kid)) != 'T'; i++)
		usleep(1000);
	c1 = rd_long(DBG "merge_walk_total");
	printf("# W %ld page table entries a call; stopped (state %c) after %ld, call %s\n",
	       w, st_c ? st_c : '?', c1 - b, sh[3] ? "returned" : "in progress");
	kill(kid, SIGCONT);
	waitpid(kid, &st, 0);
	if (st_c != 'T')
		FAIL("child never stopped");
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("child failed: status %#x", st);
	if (sh[2])
		FAIL("MADV_MERGE after SIGSTOP/SIGCONT: %s", strerror(sh[2]));
	if (c1 - b >= w)
		FAIL("the call did all its work (%ld of %ld) before stopping", c1 - b, w);
	return 0;
}

/* ---- ksm/run, the admin's switch that MADV_MERGE obeys ---- */

static long ksm_rd(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), KSM "%s", name);
	return rd_long(path);
}

/* Pages 2k and 2k + 1 identical, every pair different; none zero-filled */
static void pairs_fill(char *p, unsigned long n, unsigned int salt)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		fill(p + i * ps, salt * 100000 + i / 2 + 1);
}

static int pairs_check(char *p, unsigned long n, unsigned int salt)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (check(p + i * ps, salt * 100000 + i / 2 + 1))
			return -1;
	return 0;
}

/* How many pairs share one frame */
static unsigned long pairs_merged(char *p, unsigned long n)
{
	unsigned long i, m = 0;
	uint64_t a;

	for (i = 0; i + 1 < n; i += 2) {
		a = pfn_of(p + i * ps);
		m += a && a == pfn_of(p + (i + 1) * ps);
	}
	return m;
}

static const char *const ksm_counters[] = {
	"pages_shared", "pages_sharing", "merge_sync_pages_merged",
	"merge_sync_pages_shared", "ksm_zero_pages",
};
#define NCOUNTERS (sizeof(ksm_counters) / sizeof(ksm_counters[0]))

/*
 * ksm/run 0 (stopped) and 2 (unmerged) refuse MADV_MERGE with EPERM,
 * merge_sync 2 notwithstanding, and change nothing: no pair merged, KSM's
 * counters as they were, contents intact. Back at run 1 the same range
 * merges.
 */
static int t_run_switch(void)
{
	static const char *const runs[] = { "0", "2" };
	unsigned long n = 64, m;
	char *p = map_aligned(n * ps, ps);
	long c0[NCOUNTERS], c;
	unsigned int j;
	int k, err;

	if (rd_long(KSM "merge_sync") != 2)
		FAIL("merge_sync is %ld, want 2", rd_long(KSM "merge_sync"));
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	pairs_fill(p, n, 71);
	for (k = 0; k < 2; k++) {
		if (wr_str(KSM "run", runs[k]) || rd_long(KSM "run") != k * 2)
			FAIL("cannot set ksm/run to %s", runs[k]);
		for (j = 0; j < NCOUNTERS; j++)
			c0[j] = ksm_rd(ksm_counters[j]);
		err = madv_merge(p, n * ps);
		m = pairs_merged(p, n);
		printf("# run=%s: MADV_MERGE %s, %lu of %lu pairs merged\n",
		       runs[k], err ? strerror(err) : "0", m, n / 2);
		if (err != EPERM)
			FAIL("run=%s: MADV_MERGE gave %s, want EPERM", runs[k],
			     err ? strerror(err) : "0");
		if (m)
			FAIL("run=%s: %lu pairs merged", runs[k], m);
		for (j = 0; j < NCOUNTERS; j++) {
			c = ksm_rd(ksm_counters[j]);
			if (c != c0[j])
				FAIL("run=%s: %s moved from %ld to %ld", runs[k],
				     ksm_counters[j], c0[j], c);
		}
		if (pairs_check(p, n, 71))
			FAIL("run=%s: contents changed", runs[k]);
	}
	wr_str(KSM "run", "1");
	/* a page found busy is reported with EAGAIN: ask again (bounded) */
	for (k = 0; k < 20; k++) {
		err = madv_merge(p, n * ps);
		if (err != EAGAIN)
			break;
	}
	m = pairs_merged(p, n);
	printf("# run=1: MADV_MERGE %s after %d calls, %lu of %lu pairs merged\n",
	       err ? strerror(err) : "0", k + 1, m, n / 2);
	if (err || m != n / 2)
		FAIL("run=1, merge_sync 2: not merged");
	if (pairs_check(p, n, 71))
		FAIL("run=1: contents changed");
	return 0;
}

/*
 * run_flip_child - map @n pages in pairs, tell the parent (sh[0]), wait
 * for its word on @go, MADV_MERGE them; then sh[1] = the errno, sh[2] =
 * the pairs merged, sh[3] = contents intact, sh[4] = 1 (done).
 */
static void run_flip_child(volatile long *sh, int go, unsigned long n,
			   unsigned int salt)
{
	char *p = map_aligned(n * ps, HPAGE);
	char x;

	madvise(p, n * ps, MADV_NOHUGEPAGE);
	pairs_fill(p, n, salt);
	sh[0] = 1;
	if (read(go, &x, 1) != 1)
		_exit(4);
	sh[1] = madv_merge(p, n * ps);
	sh[2] = pairs_merged(p, n);
	sh[3] = !pairs_check(p, n, salt);
	sh[4] = 1;
	_exit(0);
}

/*
 * run_flip_go - start run_flip_child() over @n pages (@salt) and let its
 * call begin: fork it, wait until it is ready, tell it to go through @go,
 * and wait until the call is in progress (debugfs ksm/merge_walk_total
 * moved), each wait polled with a hang guard.
 *
 * Return: the child's pid, or -1 (said) when it could not be started.
 */
static pid_t run_flip_go(volatile long *sh, int go[2], unsigned long n,
			 unsigned int salt)
{
	long b;
	pid_t kid;
	int i;

	memset((void *)sh, 0, ps);
	if (pipe(go)) {
		printf("# pipe: %s\n", strerror(errno));
		return -1;
	}
	kid = fork();
	if (!kid)
		run_flip_child(sh, go[0], n, salt);
	for (i = 0; i < 300000 && !sh[0]; i++)
		usleep(1000);
	if (!sh[0]) {
		printf("# the child did not get ready\n");
		return -1;
	}
	b = rd_long(DBG "merge_walk_total");
	if (write(go[1], "g", 1) != 1) {
		printf("# write: %s\n", strerror(errno));
		return -1;
	}
	/* the call is in progress once the counter moves */
	for (i = 0; i < 3000000 && rd_long(DBG "merge_walk_total") == b; i++)
		;
	return kid;
}

/*
 * ksm/run changed by another process during a long call (16384 pages in
 * pairs) stops it with EPERM:
 * 1. run 2, written while the caller is stopped by SIGSTOP in the middle
 *    of the call (it yields within a batch; state T is polled with a hang
 *    guard of 300 s): continued, the call returns EPERM without merging
 *    the rest; run 2 unmerged what it had merged (pages_sharing 0, no pair
 *    merged), contents intact.
 * 2. run 0, written with no signal while the call runs: the write waits
 *    for the batch in progress, and the call stops at the next batch with
 *    EPERM; the pairs merged before stay merged, the others are not. The
 *    call does about 128 batches: should it still have ended before the
 *    write got in (the writer's CPU taken away for that long), it returns
 *    0 with every pair merged, which is said, not failed: that timing is
 *    not the test's to control, and part 1 does not depend on it.
 */
static int t_run_flip(void)
{
	unsigned long n = 16384;
	long *sh = mmap(NULL, ps, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long done_at_stop, sharing;
	int go[2], i, st, part;
	char st_c = 0;
	pid_t kid;

	if (debugfs_file(DBG "merge_walk_total") || rd_long(DBG "merge_walk_total") < 0)
		FAIL("no debugfs ksm/merge_walk_total");
	for (part = 1; part <= 2; part++) {
		kid = run_flip_go(sh, go, n, 80 + part);
		if (kid < 0)
			FAIL("the merging child could not be started");
		if (part == 1) {
			kill(kid, SIGSTOP);
			for (i = 0; i < 300000 && (st_c = proc_state(kid)) != 'T'; i++)
				usleep(1000);
			done_at_stop = sh[4];
			wr_str(KSM "run", "2");
			sharing = rd_long(KSM "pages_sharing");
			kill(kid, SIGCONT);
		} else {
			wr_str(KSM "run", "0");
			sharing = rd_long(KSM "pages_sharing");
		}
		waitpid(kid, &st, 0);
		close(go[0]);
		close(go[1]);
		printf("# run=%d during the call%s: MADV_MERGE %s, %ld of %lu pairs merged after it, pages_sharing %ld after the write\n",
		       part == 1 ? 2 : 0, part == 1 ? " (stopped)" : "",
		       sh[4] ? sh[1] ? strerror(sh[1]) : "0" : "did not return",
		       sh[2], n / 2, sharing);
		wr_str(KSM "run", "1");
		if (!WIFEXITED(st) || WEXITSTATUS(st) || !sh[4])
			FAIL("child failed: status %#x", st);
		if (!sh[3])
			FAIL("run=%d: contents changed", part == 1 ? 2 : 0);
		if (part == 1) {
			if (st_c != 'T')
				FAIL("child never stopped");
			if (done_at_stop)
				FAIL("the call ended before it was stopped");
			if (sh[1] != EPERM)
				FAIL("run=2 during the call: %s, want EPERM",
				     sh[1] ? strerror(sh[1]) : "0");
			if (sh[2] || sharing)
				FAIL("run=2: %ld pairs merged, pages_sharing %ld, want 0",
				     sh[2], sharing);
			continue;
		}
		if (!sh[1] && sh[2] == (long)n / 2) {
			printf("# run=0: the call ended before the write got in (not failed, see above)\n");
			continue;
		}
		if (sh[1] != EPERM)
			FAIL("run=0 during the call: %s, want EPERM",
			     sh[1] ? strerror(sh[1]) : "0");
		if (!sh[2] || sh[2] >= (long)n / 2)
			FAIL("run=0 during the call: %ld of %lu pairs merged, want some, not all",
			     sh[2], n / 2);
	}
	return 0;
}

/*
 * debugfs ksm/merge_batch_steps below the fewest steps a hold needs to
 * move on (6: the walk gets half, and visits the VMA, the PMD and the first
 * PTE at the address the hold starts at) is stored as 6, and reads back so;
 * with 1 and 0 written, MADV_MERGE of 64 populated pages in pairs returns
 * and merges them. The child runs under alarm(120): a call that never
 * returns (every hold ending where it began) is killed and fails the case
 * rather than hanging the tests.
 */
static int t_batch_steps_min(void)
{
	static const char *const val[] = { "1", "0" };
	unsigned long n = 64;
	long *sh = mmap(NULL, ps, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long rb;
	int k, st;
	pid_t kid;

	if (debugfs_file(DBG "merge_batch_steps"))
		FAIL("no %smerge_batch_steps", DBG);
	for (k = 0; k < 2; k++) {
		if (wr_str(DBG "merge_batch_steps", val[k]))
			FAIL("cannot write %s to merge_batch_steps", val[k]);
		rb = rd_long(DBG "merge_batch_steps");
		printf("# merge_batch_steps %s written, reads back %ld\n", val[k], rb);
		if (rb != 6) {
			wr_str(DBG "merge_batch_steps", "256");
			FAIL("merge_batch_steps %s reads back %ld, want 6", val[k], rb);
		}
		memset(sh, 0, ps);
		kid = fork();
		if (!kid) {
			char *p = map_aligned(n * ps, HPAGE);

			madvise(p, n * ps, MADV_NOHUGEPAGE);
			pairs_fill(p, n, 120 + k);
			alarm(120);
			sh[1] = madv_merge(p, n * ps);
			sh[2] = pairs_merged(p, n);
			sh[3] = !pairs_check(p, n, 120 + k);
			_exit(0);
		}
		waitpid(kid, &st, 0);
		wr_str(DBG "merge_batch_steps", "256");
		if (WIFSIGNALED(st))
			FAIL("merge_batch_steps %s: MADV_MERGE did not return in 120 s (signal %d)",
			     val[k], WTERMSIG(st));
		printf("# merge_batch_steps %s: MADV_MERGE %s, %ld of %lu pairs merged\n",
		       val[k], sh[1] ? strerror(sh[1]) : "0", sh[2], n / 2);
		if (!WIFEXITED(st) || WEXITSTATUS(st) || sh[1])
			FAIL("merge_batch_steps %s: MADV_MERGE %s, status %#x",
			     val[k], sh[1] ? strerror(sh[1]) : "0", st);
		if (sh[2] != (long)n / 2 || !sh[3])
			FAIL("merge_batch_steps %s: %ld of %lu pairs merged, contents %s",
			     val[k], sh[2], n / 2, sh[3] ? "intact" : "changed");
	}
	return 0;
}

/*
 * The check of ksm/run before each batch: a long call (16384 pages in
 * pairs, batches of the default 256 steps) is running (the debugfs counter
 * ksm/merge_walk_total moved) when another process writes 0 to ksm/run.
 * The write takes ksm_thread_mutex, so it returns between two batches;
 * from then on no batch may run: the counter must not move after the write
 * returned, and the call returns EPERM. A kernel without the check before
 * each batch goes on walking (the counter moves) and returns 0. Should the
 * call have ended before the write got in (0, every pair merged, the
 * counter still), that is said, not failed: the counter check held anyway.
 */
static int t_run_stop_counter(void)
{
	unsigned long n = 16384;
	long *sh = mmap(NULL, ps, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long t1, t2;
	int go[2], st;
	pid_t kid;

	if (debugfs_file(DBG "merge_walk_total") || rd_long(DBG "merge_walk_total") < 0)
		FAIL("no debugfs ksm/merge_walk_total");
	kid = run_flip_go(sh, go, n, 90);
	if (kid < 0)
		FAIL("the merging child could not be started");
	wr_str(KSM "run", "0");
	t1 = rd_long(DBG "merge_walk_total");
	waitpid(kid, &st, 0);
	t2 = rd_long(DBG "merge_walk_total");
	close(go[0]);
	close(go[1]);
	wr_str(KSM "run", "1");
	printf("# run=0 during the call: MADV_MERGE %s, %ld of %lu pairs merged; merge_walk_total +%ld after the write returned\n",
	       sh[4] ? sh[1] ? strerror(sh[1]) : "0" : "did not return",
	       sh[2], n / 2, t2 - t1);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !sh[4])
		FAIL("child failed: status %#x", st);
	if (t2 != t1)
		FAIL("%ld page table entries walked after the write of 0 to run returned, want 0",
		     t2 - t1);
	if (!sh[1] && sh[2] == (long)n / 2) {
		printf("# run=0: the call ended before the write got in (not failed, see above)\n");
		return 0;
	}
	if (sh[1] != EPERM)
		FAIL("run=0 during the call: %s, want EPERM", sh[1] ? strerror(sh[1]) : "0");
	return sh[3] ? 0 : 1;
}

/*
 * The resume point a call leaves behind belongs to its thread, not to a
 * thread that gets the same task_struct later. T1 calls MADV_MERGE over
 * 8192 pages in pairs and is sent SIGALRM mid-call (once the debugfs
 * counter ksm/merge_walk_total moves); its handler siglongjmp()s out, so
 * the point stays saved, and T1 exits. Every page is then written with
 * its own contents again (no pair shares a frame), and, an RCU grace
 * period later (T1's task_struct freed), a new thread T2 calls MADV_MERGE
 * over the same range: it must merge every pair, not resume where T1
 * stopped. All threads run on CPU 0, where T2's task_struct is most
 * likely T1's, freed last; 8 rounds (SKSM_REUSE_ROUNDS). (A kernel that compared only the
 * task_struct's address resumed T2 at T1's point whenever it was
 * reused, leaving the pairs before it unmerged with 0 returned.) A
 * round whose T1 ended its call before the signal is counted, not
 * failed.
 */
static sigjmp_buf reuse_jmp;
static volatile long reuse_state;	/* 1 calling, 2 returned, 3 jumped */

static void reuse_on_alrm(int sig)
{
	siglongjmp(reuse_jmp, 1);
}

struct reuse_arg {
	char *p;
	unsigned long n;
	int err;
};

static void *reuse_t1(void *a)
{
	struct reuse_arg *r = a;

	if (sigsetjmp(reuse_jmp, 1)) {
		reuse_state = 3;
		return NULL;
	}
	reuse_state = 1;
	r->err = madv_merge(r->p, r->n * ps);
	reuse_state = 2;
	return NULL;
}

static void *reuse_t2(void *a)
{
	struct reuse_arg *r = a;

	r->err = madv_merge(r->p, r->n * ps);
	return NULL;
}

static int t_resume_point_other_thread(void)
{
	struct sigaction sa = { .sa_handler = reuse_on_alrm };
	unsigned long n = 8192, m;
	char *p = map_aligned(n * ps, HPAGE);
	struct reuse_arg r = { p, n, 0 };
	int round, jumped = 0, i, rounds = env_rounds("SKSM_REUSE_ROUNDS", 8);
	pthread_t th;
	long b;

	if (debugfs_file(DBG "merge_walk_total") || rd_long(DBG "merge_walk_total") < 0)
		FAIL("no debugfs ksm/merge_walk_total");
	if (pin_cpu(0))
		FAIL("sched_setaffinity: %s", strerror(errno));
	sigaction(SIGALRM, &sa, NULL);
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	for (round = 0; round < rounds; round++) {
		pairs_fill(p, n, 90 + round);
		reuse_state = 0;
		b = rd_long(DBG "merge_walk_total");
		if (pthread_create(&th, NULL, reuse_t1, &r))
			FAIL("pthread_create");
		/*
		 * The call is in progress once the counter moves (polled, a
		 * hang guard of 300 s; sleeping, as T1 shares the CPU)
		 */
		for (i = 0; i < 300000 && reuse_state < 2 && (reuse_state != 1 ||
		     rd_long(DBG "merge_walk_total") == b); i++)
			usleep(1000);
		pthread_kill(th, SIGALRM);
		pthread_join(th, NULL);
		jumped += reuse_state == 3;
		/* every page its own frame again, contents as they were */
		pairs_fill(p, n, 90 + round);
		if (pairs_merged(p, n))
			FAIL("round %d: pairs still merged after the rewrite", round);
		usleep(500000);		/* T1's task_struct freed after RCU */
		if (pthread_create(&th, NULL, reuse_t2, &r))
			FAIL("pthread_create");
		pthread_join(th, NULL);
		m = pairs_merged(p, n);
		if (pairs_check(p, n, 90 + round))
			FAIL("round %d: contents changed", round);
		if (r.err == EAGAIN)	/* a page held for a moment: ask again */
			r.err = madv_merge(p, n * ps), m = pairs_merged(p, n);
		if (r.err || m != n / 2)
			FAIL("round %d: T2's MADV_MERGE %s with %lu of %lu pairs merged (T1 %s)",
			     round, r.err ? strerror(r.err) : "0", m, n / 2,
			     reuse_state == 3 ? "interrupted" : "had returned");
	}
	printf("# %d of %d rounds interrupted T1 mid-call; T2 merged every pair each time\n",
	       jumped, rounds);
	if (!jumped)
		FAIL("T1 was never interrupted mid-call");
	return 0;
}

/*
 * io_uring's IORING_OP_MADVISE refuses MADV_MERGE with EINVAL: the call
 * yields to signals with -ERESTARTNOINTR, which only the syscall path can
 * restart, and which io_uring would hand to userspace as -513.
 */
static int t_io_uring_refused(void)
{
	struct io_uring_params par = { };
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char *sq, *cq, *p = map_aligned(4 * ps, ps);
	int fd, res;

	fd = syscall(__NR_io_uring_setup, 4, &par);
	if (fd < 0)
		return SKIP;	/* no io_uring in this kernel */
	sq = mmap(NULL, par.sq_off.array + par.sq_entries * 4, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, par.cq_off.cqes + par.cq_entries * sizeof(*cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		  IORING_OFF_CQ_RING);
	sqe = mmap(NULL, par.sq_entries * sizeof(*sqe), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqe == MAP_FAILED)
		FAIL("mmap of the rings");
	sq_tail = (unsigned int *)(sq + par.sq_off.tail);
	sq_mask = (unsigned int *)(sq + par.sq_off.ring_mask);
	sq_array = (unsigned int *)(sq + par.sq_off.array);
	cq_head = (unsigned int *)(cq + par.cq_off.head);
	cq_tail = (unsigned int *)(cq + par.cq_off.tail);
	cq_mask = (unsigned int *)(cq + par.cq_off.ring_mask);
	fill_range(p, 4, 51);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_MADVISE;
	sqe->addr = (unsigned long)p;
	sqe->len = 4 * ps;
	sqe->fadvise_advice = MADV_MERGE;
	sq_array[*sq_tail & *sq_mask] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		FAIL("io_uring_enter: %s", strerror(errno));
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
		FAIL("no completion");
	cqe = (struct io_uring_cqe *)(cq + par.cq_off.cqes) + (*cq_head & *cq_mask);
	res = cqe->res;
	printf("# IORING_OP_MADVISE(MADV_MERGE): %d\n", res);
	close(fd);
	if (res != -EINVAL)
		FAIL("IORING_OP_MADVISE(MADV_MERGE) gave %d, want %d (EINVAL)", res, -EINVAL);
	return 0;
}

/*
 * merged_unique_child - a child maps @n pages of unique contents (seeds
 * @seed, @seed + 1, ...), turns them into KSM pages with MADV_MERGE (one
 * stable node each), reports the stable node count read after the merge
 * (debugfs ksm/stable_nodes) through a pipe, and exits. With @kid, it
 * first forks a child of its own that keeps the pages mapped (pause()),
 * and reports that one's pid too.
 *
 * Return: 0 once the child has exited after reporting, with *@nodes (and
 * *@kid) set; -1 otherwise (a grandchild is then killed).
 */
static int merged_unique_child(unsigned long n, unsigned int seed,
			       long *nodes, pid_t *kid)
{
	pid_t pid, k = 0;
	unsigned long i;
	int fds[2], st;
	long s = -1;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		char *p = map_aligned(n * ps, ps);

		close(fds[0]);
		for (i = 0; i < n; i++)
			fill(p + i * ps, seed + i);
		if (madv_merge(p, n * ps))
			_exit(1);
		/* the count with this child's nodes in it, before it exits */
		s = rd_long(DBG "stable_nodes");
		if (kid) {
			k = fork();
			if (!k) {
				close(fds[1]);
				pause();
				_exit(0);
			}
		}
		if (write(fds[1], &s, sizeof(s)) != sizeof(s) ||
		    write(fds[1], &k, sizeof(k)) != sizeof(k))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &s, sizeof(s)) != sizeof(s) ||
	    read(fds[0], &k, sizeof(k)) != sizeof(k))
		s = -1;
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || s < 0 || (kid && k <= 0)) {
		if (k > 0)
			kill(k, SIGKILL);
		return -1;
	}
	*nodes = s;
	if (kid)
		*kid = k;
	return 0;
}

/*
 * Stable nodes parked by an exit while a fork child still maps the pages
 * are freed once the child exits too, with ksmd idle: a process turns
 * 1024 pages of unique contents into KSM pages, forks a child that keeps
 * them mapped (with no rmap_item of its own), and exits; 3 s later (the
 * parked nodes were looked at once by then) the child exits. The stable
 * node count (debugfs ksm/stable_nodes) must drop by the 1024 nodes,
 * polled with a hang guard of 200 s.
 */
static int t_parked_nodes_freed(void)
{
	const char *f = DBG "stable_nodes";
	unsigned long n = 1024;
	long s1 = -1, s2 = -1;
	pid_t kid = -1;
	int tries;

	if (debugfs_file(f) || rd_long(f) < 0)
		FAIL("no %s", f);
	if (merged_unique_child(n, 810000, &s1, &kid))
		FAIL("child failed");
	sleep(3);
	s2 = rd_long(f);
	printf("# stable_nodes: %ld with the %lu nodes, %ld with the fork child alone\n",
	       s1, n, s2);
	kill(kid, SIGKILL);
	for (tries = 0; tries < 2000; tries++) {
		s2 = rd_long(f);
		if (s2 <= s1 - (long)n + 16)
			break;
		usleep(100000);
	}
	printf("# stable_nodes: %ld after the fork child's exit and %d waits\n",
	       s2, tries);
	if (s2 > s1 - (long)n + 16)
		FAIL("%ld of the %lu parked stable nodes left", s2 - (s1 - (long)n), n);
	return 0;
}

/*
 * MADV_MERGE refuses a range registered with userfaultfd for write-protect
 * tracking (EINVAL): merging would drop the uffd-wp bit of its PTEs.
 * Skipped without userfaultfd or its write-protect mode.
 */
static int t_uffd_wp_refused(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	char *p = map_aligned(4 * ps, ps);
	int fd, err;

	fd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (fd < 0)
		return SKIP;
	if (ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		return SKIP;
	}
	fill_range(p, 4, 61);
	reg.range.start = (unsigned long)p;
	reg.range.len = 4 * ps;
	if (ioctl(fd, UFFDIO_REGISTER, &reg)) {
		close(fd);
		return SKIP;
	}
	err = madv_merge(p, 4 * ps);
	close(fd);
	if (err != EINVAL)
		FAIL("MADV_MERGE on a uffd-wp range: %s, want EINVAL",
		     err ? strerror(err) : "0");
	return verify_range(p, 4, 61, "uffd-wp") ? 1 : 0;
}

/*
 * Stable nodes of exited processes' unique pages are freed with ksmd idle:
 * a child turns 2048 pages of unique contents into KSM pages and exits;
 * the stable node count (debugfs ksm/stable_nodes) comes back to where it
 * was within 60 s. Unique contents: no later search meets these nodes, so
 * a lazily pruned node would stay.
 */
static int t_stable_nodes_freed(void)
{
	const char *f = DBG "stable_nodes";
	unsigned long n = 2048;
	long s0, s1 = -1, s2 = -1;
	int tries;

	debugfs_file(f);
	s0 = rd_long(f);
	if (s0 < 0)
		FAIL("no %s", f);
	if (merged_unique_child(n, 800000, &s1, NULL))
		FAIL("child failed");
	/* the child's n nodes must go; others may go too (stale ones pruned) */
	for (tries = 0; tries < 600; tries++) {
		s2 = rd_long(f);
		if (s2 <= s1 - (long)n + 16)
			break;
		usleep(100000);
	}
	printf("# stable_nodes: %ld before, %ld with the child's %lu, %ld after its exit and %d waits\n",
	       s0, s1, n, s2, tries);
	if (s2 > s1 - (long)n + 16)
		FAIL("%ld of the exited child's %lu stable nodes left", s2 - (s1 - (long)n), n);
	return 0;
}

/*
 * fork() and KSM zero pages in areas it does not copy: with
 * MADV_WIPEONFORK or MADV_DONTFORK the child maps none of them, so the
 * global ksm_zero_pages must not count them for the child. The harness
 * checks that ksm_zero_pages is back to its start once the case exits.
 */
static int t_fork_uncopied_zero_pages(void)
{
	unsigned long n = 64, i;
	char *w = map_aligned(n * ps, ps), *d = map_aligned(n * ps, ps);
	long z0 = rd_long(KSM "ksm_zero_pages"), z1;
	int k, st;
	pid_t pid;

	for (i = 0; i < n; i++) {
		w[i * ps] = 1; w[i * ps] = 0;
		d[i * ps] = 1; d[i * ps] = 0;
	}
	if (madvise(w, n * ps, MADV_WIPEONFORK) || madvise(d, n * ps, MADV_DONTFORK))
		FAIL("madvise WIPEONFORK/DONTFORK: %s", strerror(errno));
	if (madv_merge(w, n * ps) || madv_merge(d, n * ps))
		FAIL("MADV_MERGE: %s", strerror(errno));
	z1 = rd_long(KSM "ksm_zero_pages");
	if (z1 - z0 != 2 * (long)n)
		FAIL("ksm_zero_pages moved by %ld, want %lu", z1 - z0, 2 * n);
	for (k = 0; k < 8; k++) {
		pid = fork();
		if (!pid)
			_exit(0);
		waitpid(pid, &st, 0);
	}
	printf("# ksm_zero_pages: %ld at start, %ld merged, %ld after 8 forks\n",
	       z0, z1, rd_long(KSM "ksm_zero_pages"));
	if (rd_long(KSM "ksm_zero_pages") != z1)
		FAIL("8 children that mapped no KSM zero page moved ksm_zero_pages");
	return 0;
}

/*
 * Memory cgroup: the pages MADV_MERGE frees are uncharged, as KSM's are.
 * A child in its own memory cgroup maps 4096 pages of one content (16 MiB);
 * after MADV_MERGE, memory.current is at least 12 MiB lower (what is left:
 * the KSM page, the rmap_items and stable node charged to the cgroup, and
 * per-CPU charge caches).
 */
static int t_memcg_uncharge(void)
{
	const char *cg = "/sys/fs/cgroup/sksm_memcg";
	char path[128], buf[32];
	unsigned long n = 4096, i;
	long c1, c2;
	int st, fds[2];
	pid_t pid;

	if (access("/sys/fs/cgroup/cgroup.subtree_control", F_OK))
		return SKIP;
	wr_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir(cg, 0755);
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	if (access(path, R_OK))
		FAIL("no %s", path);
	if (pipe(fds))
		FAIL("pipe");
	pid = fork();
	if (!pid) {
		char *p;

		close(fds[1]);
		if (read(fds[0], buf, 1) != 1)	/* moved into the cgroup */
			_exit(1);
		p = map_aligned(n * ps, ps);
		madvise(p, n * ps, MADV_NOHUGEPAGE);
		for (i = 0; i < n; i++)
			fill(p + i * ps, 4711);
		c1 = rd_long(path);
		if (madv_merge(p, n * ps))
			_exit(2);
		c2 = rd_long(path);
		printf("# memory.current %ld kB before MADV_MERGE, %ld kB after\n",
		       c1 / 1024, c2 / 1024);
		for (i = 0; i < n; i++)
			if (check(p + i * ps, 4711))
				_exit(3);
		_exit(c1 - c2 >= 12L << 20 ? 0 : 4);
	}
	close(fds[0]);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(buf, sizeof(buf), "%d", pid);
	if (wr_str(path, buf))
		printf("# could not move the child into %s\n", cg);
	if (write(fds[1], "g", 1) != 1)
		FAIL("pipe write");
	waitpid(pid, &st, 0);
	close(fds[1]);
	rmdir(cg);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("child: %d (2: MADV_MERGE failed, 3: contents, 4: not uncharged)",
		     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}

/* ---- races ---- */

/*
 * Four THP regions; one thread calls MADV_MERGE on them (120 calls,
 * SKSM_RACE_MERGES) while the others munmap, mremap, punch and split
 * them, fork children that merge their copies, and move pages between
 * nodes and compact, until the merging thread is done.
 */
#define RREG 4
static char *rbase;
static pthread_rwlock_t rlock[RREG];
static volatile int rstop;
static int rfail;

static void fill_region(int r)
{
	char *p = rbase + r * HPAGE;

	/*
	 * Uniform flags, so that MADV_MERGE of a part does not split the VMA
	 * (mremap moves one VMA only)
	 */
	madvise(p, HPAGE, MADV_HUGEPAGE);
	madvise(p, HPAGE, MADV_MERGEABLE);
	fill_range(p, HPAGE / ps, 20 + r);
}

static int check_region(int r, const char *who)
{
	char *p = rbase + r * HPAGE;
	unsigned long i;

	for (i = 0; i < HPAGE / ps; i++)
		if (check(p + i * ps, seed_of(i, 20 + r))) {
			printf("# %s: region %d page %lu wrong\n", who, r, i);
			return -1;
		}
	return 0;
}

static void *racer_merge(void *arg)
{
	unsigned int seed = 1;
	int k, r, err, merges = env_rounds("SKSM_RACE_MERGES", 120);

	for (k = 0; k < merges && !rfail; k++) {
		r = rand_r(&seed) % RREG;
		pthread_rwlock_rdlock(&rlock[r]);
		err = madv_merge(rbase + r * HPAGE + ps, HPAGE - ps);
		/*
		 * ENOMEM: a hole punched by the other racers; EAGAIN: a page
		 * held by them (a migration, a fork's copy, an LRU batch)
		 */
		if (err && err != ENOMEM && err != EAGAIN) {
			printf("# merge: %s\n", strerror(err));
			rfail = 1;
		}
		if (check_region(r, "after merge"))
			rfail = 1;
		pthread_rwlock_unlock(&rlock[r]);
	}
	rstop = 1;
	return NULL;
}

static void *racer_mutate(void *arg)
{
	unsigned int seed = 2;
	int r, what;
	char *p, *q;

	while (!rstop && !rfail) {
		r = rand_r(&seed) % RREG;
		what = rand_r(&seed) % 4;
		p = rbase + r * HPAGE;
		pthread_rwlock_wrlock(&rlock[r]);
		switch (what) {
		case 0:	/* munmap and map again: a fresh THP */
			munmap(p, HPAGE);
			if (mmap(p, HPAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p)
				rfail = 1;
			fill_region(r);
			break;
		case 1:	/* mremap away and back */
			q = mremap(p, HPAGE, HPAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
				   rbase + RREG * HPAGE);
			if (q == MAP_FAILED ||
			    mremap(q, HPAGE, HPAGE, MREMAP_MAYMOVE | MREMAP_FIXED, p) != p) {
				printf("# mremap: %s\n", strerror(errno));
				rfail = 1;
			}
			break;
		case 2:	/* drop a few pages, refill */
			madvise(p + (rand_r(&seed) % 500) * ps, 8 * ps, MADV_DONTNEED);
			fill_region(r);
			break;
		case 3:	/* split a PMD */
			mprotect(p + 100 * ps, ps, PROT_READ);
			mprotect(p + 100 * ps, ps, PROT_READ | PROT_WRITE);
			break;
		}
		if (check_region(r, "after mutation"))
			rfail = 1;
		pthread_rwlock_unlock(&rlock[r]);
		usleep(1000);
	}
	return NULL;
}

static void *racer_fork(void *arg)
{
	pid_t pid;
	int st, r;

	while (!rstop && !rfail) {
		/* fork with no mutation under way, so the copy is consistent */
		for (r = 0; r < RREG; r++)
			pthread_rwlock_rdlock(&rlock[r]);
		pid = fork();
		if (pid)
			for (r = 0; r < RREG; r++)
				pthread_rwlock_unlock(&rlock[r]);
		if (!pid) {
			/* the child merges its copy, writes it and exits */
			int bad = 0;

			for (r = 0; r < RREG; r++) {
				madv_merge(rbase + r * HPAGE, HPAGE);
				bad |= check_region(r, "child");
			}
			_exit(bad);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st) {
			printf("# fork child failed (status %x)\n", st);
			rfail = 1;
		}
	}
	return NULL;
}

static void *racer_migrate(void *arg)
{
	unsigned int seed = 3;
	void *pages[16];
	int nodes[16], status[16], i, node = 1;

	while (!rstop && !rfail) {
		for (i = 0; i < 16; i++) {
			pages[i] = rbase + (rand_r(&seed) % (RREG * HPAGE / ps)) * ps;
			nodes[i] = node;
		}
		syscall(SYS_move_pages, 0, 16, pages, nodes, status, 0);
		node = !node;
		if (rand_r(&seed) % 8 == 0)
			wr_str("/proc/sys/vm/compact_memory", "1");
		usleep(2000);
	}
	return NULL;
}

static int t_races(void)
{
	pthread_t th[4];
	int r;

	rbase = map_aligned((RREG + 1) * HPAGE, HPAGE);
	if (!rbase)
		return SKIP;
	munmap(rbase + RREG * HPAGE, HPAGE);
	for (r = 0; r < RREG; r++) {
		pthread_rwlock_init(&rlock[r], NULL);
		fill_region(r);
	}
	pthread_create(&th[1], NULL, racer_mutate, NULL);
	pthread_create(&th[2], NULL, racer_fork, NULL);
	pthread_create(&th[3], NULL, racer_migrate, NULL);
	pthread_create(&th[0], NULL, racer_merge, NULL);
	for (r = 0; r < 4; r++)
		pthread_join(th[r], NULL);
	for (r = 0; r < RREG && !rfail; r++)
		if (check_region(r, "at end"))
			rfail = 1;
	return rfail;
}

/* ---- leaks ---- */

static long slab_active(const char *name)
{
	char line[512], nm[64];
	long act = -1, a;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", nm, &a) == 2 && !strcmp(nm, name))
			act = a;
	fclose(f);
	return act;
}

struct ksm_state { long shared, sharing, zero, profit, rmap, stable, slot; };

static void ksm_state(struct ksm_state *s)
{
	s->shared = rd_long(KSM "pages_shared");
	s->sharing = rd_long(KSM "pages_sharing");
	s->zero = rd_long(KSM "ksm_zero_pages");
	s->profit = rd_long(KSM "general_profit");
	s->rmap = slab_active("ksm_rmap_item");
	s->stable = slab_active("ksm_stable_node");
	s->slot = slab_active("ksm_mm_slot");
}

static void leak_child(unsigned int salt)
{
	unsigned long n = 64;
	char *p = map_aligned(n * ps, ps);

	fill_range(p, n, salt % 3);
	madv_merge(p, n * ps);
	munmap(p + 16 * ps, 16 * ps);
	madv_merge(p, n * ps);
	_exit(0);
}

/*
 * N cycles of map/merge/unmap/exit with ksmd idle and four callers at a
 * time: KSM's own counters come back to where they started. These are
 * exact: pages_shared, pages_sharing, ksm_zero_pages, and general_profit,
 * which is (pages_sharing + ksm_zero_pages) pages less the size of all
 * rmap_items, so it counts leaked rmap_items (and an mm_slot with its
 * mm_struct is only left behind with rmap_items). The rmap_items of exited
 * processes are freed by the exiting task or, when it finds
 * ksm_thread_mutex taken, by a work item soon after: the test waits for
 * the counters to settle, up to 60 s. The slab counts of /proc/slabinfo
 * are printed, not checked: they are not exact (SLUB counts the free
 * objects of per-CPU slabs as active, and caches may be merged). The
 * stable nodes of exited processes are checked by stable_nodes_freed.
 */
static int t_leaks(void)
{
	struct ksm_state a, b;
	int cyc, k, tries;
	pid_t pids[4];

	ksm_state(&a);
	printf("# start: shared %ld sharing %ld zero %ld profit %ld slabs rmap %ld stable %ld slot %ld\n",
	       a.shared, a.sharing, a.zero, a.profit, a.rmap, a.stable, a.slot);
	for (cyc = 0; cyc < 40; cyc++) {
		for (k = 0; k < 4; k++) {
			pids[k] = fork();
			if (!pids[k])
				leak_child(cyc * 4 + k);
		}
		for (k = 0; k < 4; k++)
			waitpid(pids[k], NULL, 0);
	}
	for (tries = 0; tries < 600; tries++) {
		ksm_state(&b);
		if (b.shared <= a.shared && b.sharing <= a.sharing &&
		    b.zero <= a.zero && b.profit >= a.profit)
			break;
		usleep(100000);
	}
	printf("# end:   shared %ld sharing %ld zero %ld profit %ld slabs rmap %ld stable %ld slot %ld (%d waits)\n",
	       b.shared, b.sharing, b.zero, b.profit, b.rmap, b.stable, b.slot, tries);
	if (tries == 600)
		FAIL("KSM counters did not return to their start after 160 exits");
	return 0;
}

/*
 * A page that fork shares, made a KSM page by the child's MADV_MERGE (no
 * identical page yet, so the page itself becomes the KSM page): the parent
 * maps it too, and the KSM rmap must reach that mapping, or nothing can
 * unmap the page: not migration (compaction, move_pages(), a memory
 * offline, which then retries it for ever) and not reclaim.  The parent,
 * which never calls MADV_MERGE, moves the pages to node 1 with
 * move_pages(MPOL_MF_MOVE_ALL), as root may for pages other processes map:
 * every page must move, and both processes still read their contents.
 */
#define FORK_PAGES 16
static int t_fork_shared_made_ksm_by_child(void)
{
	unsigned long n = FORK_PAGES, i, moved = 0;
	char *p = map_aligned(n * ps, ps);
	int nodes[FORK_PAGES], status[FORK_PAGES], merged[2], done[2], st, cst;
	void *pages[FORK_PAGES];
	uint64_t f0[FORK_PAGES];
	long kmerged = -1;
	pid_t c;
	char ch = 0;

	if (access("/sys/devices/system/node/node1", F_OK))
		return SKIP;
	if (!p || pipe(merged) || pipe(done))
		FAIL("mmap/pipe: %s", strerror(errno));
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++) {
		fill(p + i * ps, 9100 + i);	/* no twin anywhere */
		pages[i] = p + i * ps;
		nodes[i] = 0;
	}
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, 2 /* MPOL_MF_MOVE */) < 0)
		FAIL("move_pages to node 0: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		f0[i] = pfn_of(p + i * ps);
		if (status[i] != 0)
			FAIL("page %lu not on node 0 to start with: status %d", i, status[i]);
	}
	c = fork();
	if (!c) {
		close(merged[0]);
		close(done[1]);		/* EOF when the parent ends */
		st = madv_merge(p, n * ps);
		kmerged = rd_long("/proc/self/ksm_merging_pages");
		if (write(merged[1], &st, sizeof(st)) != sizeof(st) ||
		    write(merged[1], &kmerged, sizeof(kmerged)) != sizeof(kmerged))
			_exit(2);
		if (read(done[0], &ch, 1) != 1)
			_exit(2);
		for (i = 0; i < n; i++)
			if (check(p + i * ps, 9100 + i))
				_exit(3);
		_exit(0);
	}
	close(merged[1]);
	close(done[0]);
	if (read(merged[0], &st, sizeof(st)) != sizeof(st) || st ||
	    read(merged[0], &kmerged, sizeof(kmerged)) != sizeof(kmerged)) {
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		FAIL("the child's MADV_MERGE: %s", strerror(st));
	}
	/*
	 * (6.12's /proc/kpageflags sets KPF_KSM on every anonymous page, so
	 * the child's own count of KSM mappings says what it merged.)
	 */
	printf("# the child's KSM mappings after its MADV_MERGE: %ld of %lu (0: the shared pages were left)\n",
	       kmerged, n);
	for (i = 0; i < n; i++) {
		nodes[i] = 1;
		status[i] = -1000;	/* move_pages() leaves a page it fails to move as it was */
	}
	/* returns how many pages it could not move, or -1 */
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, 4 /* MPOL_MF_MOVE_ALL */) < 0)
		FAIL("move_pages to node 1: %s", strerror(errno));
	for (i = 0; i < n; i++)
		moved += status[i] == 1 && pfn_of(p + i * ps) != f0[i];
	if (write(done[1], &ch, 1) != 1)
		FAIL("pipe");
	waitpid(c, &cst, 0);
	for (i = 0; i < n; i++)
		if (check(p + i * ps, 9100 + i))
			FAIL("the parent's page %lu changed", i);
	if (!WIFEXITED(cst) || WEXITSTATUS(cst))
		FAIL("the child's contents or pipes (status %#x)", cst);
	printf("# %lu of %lu pages moved to node 1 (status of page 0: %d)\n",
	       moved, n, status[0]);
	if (moved != n)
		FAIL("the KSM pages the parent maps could not be migrated");
	return 0;
}

/*
 * The KSM pages of a process that exited while its fork child still maps
 * them: the child (which never called MADV_MERGE) has no rmap_item for
 * them, and the KSM rmap reaches its mappings only through the exited
 * process's rmap_items, which the exit must therefore keep. A process
 * merges 16 pages of unique contents on node 0, forks a child and exits.
 * The child waits until the exit has settled: KSM's count of shared pages
 * dropped by those 16 (the rmap_items were freed) or debugfs
 * ksm/exits_kept moved (they were kept), polled with a hang guard of 60 s;
 * then it moves the pages, which it alone maps now, to node 1 with
 * move_pages(): every page must move.
 */
static int orphan_child(const char *p, unsigned long n, long shared0, long kept0,
			int wrote)
{
	int nodes[FORK_PAGES], status[FORK_PAGES], k;
	void *pages[FORK_PAGES];
	unsigned long i, moved = 0;
	uint64_t f0[FORK_PAGES];

	for (k = 0; k < 600 * guard() && rd_long(KSM "pages_shared") > shared0 &&
	     rd_long(DBG "exits_kept") == kept0; k++)
		usleep(100000);
	printf("# after the merging process exited: pages_shared %ld (%ld before it merged), exits_kept +%ld\n",
	       rd_long(KSM "pages_shared"), shared0, rd_long(DBG "exits_kept") - kept0);
	/* its own copies map no KSM page: nothing to keep the exit for */
	if (wrote) {
		if (rd_long(DBG "exits_kept") != kept0)
			FAIL("the exit was kept though this child maps none of its KSM pages");
		if (rd_long(KSM "pages_shared") > shared0)
			FAIL("pages_shared %ld, %ld before the exited process merged",
			     rd_long(KSM "pages_shared"), shared0);
		return 0;
	}
	for (i = 0; i < n; i++) {
		pages[i] = (void *)(p + i * ps);
		nodes[i] = 1;
		status[i] = -1000;	/* a page move_pages() fails to move keeps it */
		f0[i] = pfn_of((void *)(p + i * ps));
	}
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, 2 /* MPOL_MF_MOVE */) < 0)
		FAIL("move_pages to node 1: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		if (check(p + i * ps, 9300 + i))
			FAIL("page %lu changed", i);
		moved += status[i] == 1 && pfn_of((void *)(p + i * ps)) != f0[i];
	}
	printf("# %lu of %lu pages moved to node 1 (status of page 0: %d)\n",
	       moved, n, status[0]);
	if (moved != n)
		FAIL("the KSM pages the child alone maps could not be migrated");
	return 0;
}

static int parent_exited(int wrote)
{
	unsigned long n = FORK_PAGES, i;
	long shared0 = rd_long(KSM "pages_shared"), kept0;
	int nodes[FORK_PAGES], status[FORK_PAGES], st, res[2], go[2], r = -1, k;
	void *pages[FORK_PAGES];
	char *p, ch = 0;
	pid_t m, c;

	if (access("/sys/devices/system/node/node1", F_OK))
		return SKIP;
	if (debugfs_file(DBG "exits_kept") || (kept0 = rd_long(DBG "exits_kept")) < 0)
		FAIL("no debugfs ksm/exits_kept");
	/* the child's verdict: it outlives the process that forked it */
	if (pipe(res) || pipe(go))
		FAIL("pipe");
	m = fork();
	if (!m) {
		close(res[0]);
		p = map_aligned(n * ps, ps);
		if (!p)
			_exit(2);
		madvise(p, n * ps, MADV_NOHUGEPAGE);
		for (i = 0; i < n; i++) {
			fill(p + i * ps, 9300 + i);
			pages[i] = p + i * ps;
			nodes[i] = 0;
		}
		if (syscall(SYS_move_pages, 0, n, pages, nodes, status, 2) < 0 ||
		    madv_merge(p, n * ps))
			_exit(3);
		fflush(stdout);
		c = fork();
		if (!c) {
			/* its own copy of every page, before the exit */
			for (i = 0; wrote && i < n; i++)
				fill(p + i * ps, 9300 + i);
			if (write(go[1], &ch, 1) != 1)
				_exit(2);
			r = orphan_child(p, n, shared0, kept0, wrote);
			if (write(res[1], &r, sizeof(r)) != sizeof(r))
				_exit(2);
			_exit(0);
		}
		/* the exit comes after the child's writes */
		if (c < 0 || read(go[0], &ch, 1) != 1)
			_exit(4);
		_exit(0);
	}
	close(res[1]);
	close(go[1]);
	waitpid(m, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("the merging process failed (%#x)", st);
	/* EOF without a verdict: the child died */
	if (read(res[0], &r, sizeof(r)) != sizeof(r))
		FAIL("the child gave no verdict");
	if (r)
		return r;
	/*
	 * The child has exited too: the kept exit is freed a second or so
	 * later (a hang guard of 60 s), and exits_kept, the exits kept now,
	 * is back where it was
	 */
	for (k = 0; k < 600 * guard() && rd_long(DBG "exits_kept") != kept0; k++)
		usleep(100000);
	printf("# exits_kept %ld after the child's exit too (%ld before)\n",
	       rd_long(DBG "exits_kept"), kept0);
	if (rd_long(DBG "exits_kept") != kept0)
		FAIL("the kept exit outlived the child that kept it");
	return 0;
}

static int t_parent_exited_child_migrates(void)
{
	return parent_exited(0);
}

/*
 * The same, but the child wrote to every page before the exit: it maps
 * copies of its own, none of the KSM pages, and the exit is not kept
 * (its KSM pages are freed with it).
 */
static int t_parent_exited_child_wrote(void)
{
	return parent_exited(1);
}

/*
 * An exited mm at ksmd's cursor, kept for its fork child, then freed.
 * ksmd scans a process P (512 pages: 32 pairs of twins it merges, the
 * rest unique, which it puts in the unstable tree) and is stopped
 * (pages_to_scan 0) in the middle of it; P forks C, which is put before
 * P on KSM's list, and exits. The work item moves ksmd's cursor on, past
 * the end of the list when P was last (a new pass: full_scans moves), and
 * keeps P for C with its stable rmap_items only; then C exits and P is
 * freed. An unstable rmap_item of P's kept across that pass would be two
 * passes old when freed, a kernel BUG. Four rounds; each must end with
 * exits_kept and pages_shared back at their start (hang guards of 60 s).
 */
#define CUR_PAGES 512

static int cursor_round(long kept0, long shared0)
{
	int ready[2], cmd[2], hold[2], k, i;
	long fs0 = rd_long(KSM "full_scans"), fs1, kept = 0;
	char ch = 0, *a;
	pid_t pp, c;

	if (pipe(ready) || pipe(cmd) || pipe(hold))
		FAIL("pipe");
	fflush(stdout);
	pp = fork();
	if (!pp) {
		a = map_aligned(CUR_PAGES * ps, ps);
		if (!a)
			_exit(2);
		madvise(a, CUR_PAGES * ps, MADV_NOHUGEPAGE);
		for (i = 0; i < CUR_PAGES; i++)
			fill(a + i * ps, i < 64 ? 7000 + i / 2 : 7100 + i);
		if (madvise(a, CUR_PAGES * ps, MADV_MERGEABLE) ||
		    write(ready[1], &ch, 1) != 1 || read(cmd[0], &ch, 1) != 1)
			_exit(3);
		c = fork();
		if (!c) {
			/* until the test closes its end; then its pages must be intact */
			close(hold[1]);
			while (read(hold[0], &ch, 1) > 0)
				;
			for (i = 0; i < CUR_PAGES; i++)
				if (check(a + i * ps, i < 64 ? 7000 + i / 2 : 7100 + i))
					_exit(5);
			_exit(0);
		}
		_exit(c < 0 ? 4 : 0);
	}
	close(hold[0]);
	if (read(ready[0], &ch, 1) != 1)
		FAIL("the scanned process did not start");
	/* ksmd scans it: three passes, its twins merged (hang guard 60 s) */
	wr_str(KSM "sleep_millisecs", "20");
	wr_str(KSM "pages_to_scan", "100");
	for (k = 0; k < 600 * guard() && (rd_long(KSM "full_scans") < fs0 + 3 ||
	     rd_long(KSM "pages_shared") <= shared0); k++)
		usleep(100000);
	/*
	 * ksmd stops: a write to run takes ksm_thread_mutex, so it returns
	 * once ksmd's batch under way is over (ksmd frees an exited mm it
	 * passes, kept or not: the keep holds while ksmd does not scan)
	 */
	wr_str(KSM "pages_to_scan", "0");
	wr_str(KSM "run", "1");
	fs1 = rd_long(KSM "full_scans");
	if (fs1 < fs0 + 3)
		FAIL("ksmd made %ld passes in 60 s, 3 wanted", fs1 - fs0);
	/* the fork and the exit */
	if (write(cmd[1], &ch, 1) != 1)
		FAIL("pipe");
	waitpid(pp, NULL, 0);
	for (k = 0; k < 600 * guard() &&
	     (kept = rd_long(DBG "exits_kept")) == kept0; k++)
		usleep(100000);
	printf("# after the exit: exits_kept +%ld, full_scans +%ld since ksmd stopped\n",
	       kept - kept0, rd_long(KSM "full_scans") - fs1);
	/* the child exits: the kept exit is freed */
	close(hold[1]);
	for (k = 0; k < 600 * guard() && (rd_long(DBG "exits_kept") != kept0 ||
	     rd_long(KSM "pages_shared") > shared0); k++)
		usleep(100000);
	close(ready[0]); close(ready[1]); close(cmd[0]); close(cmd[1]);
	if (kept != kept0 + 1)
		FAIL("the exit was not kept for its child (exits_kept +%ld)", kept - kept0);
	if (rd_long(DBG "exits_kept") != kept0 || rd_long(KSM "pages_shared") > shared0)
		FAIL("after the child's exit: exits_kept +%ld, pages_shared %ld (%ld at the start)",
		     rd_long(DBG "exits_kept") - kept0, rd_long(KSM "pages_shared"), shared0);
	return 0;
}

static int t_cursor_exit_kept(void)
{
	long kept0, shared0 = rd_long(KSM "pages_shared");
	int r, round;

	if (debugfs_file(DBG "exits_kept") || (kept0 = rd_long(DBG "exits_kept")) < 0)
		FAIL("no debugfs ksm/exits_kept");
	for (round = 0, r = 0; round < 4 && !r; round++)
		r = cursor_round(kept0, shared0);
	wr_str(KSM "pages_to_scan", "0");
	wr_str(KSM "sleep_millisecs", "1000000");
	return r;
}

/*
 * Memory offline under the stable tree: guest/sksm/qemu gives node 1 a
 * 256 MiB DIMM, onlined into ZONE_MOVABLE at boot. Pages bound to node 1
 * land there and MADV_MERGE makes KSM pages of them; then every DIMM
 * block is offlined while a child that shares those KSM pages exits (its
 * rmap_items and stable nodes freed by the exit path or the reaper, which
 * must wait for the offline), and another child keeps calling MADV_MERGE
 * on node 1 and forking grandchildren that merge and exit. After the
 * offline: the KSM pages were migrated off the DIMM and are still shared,
 * contents intact, and a fresh twin merges with them (the stable tree
 * points at where they went); then the DIMM is onlined again.
 */
#define MEMSYS "/sys/devices/system/memory/"

static int dimm_blocks(long *blk, int max, unsigned long *bsz)
{
	char path[320], buf[128];
	struct dirent *d;
	DIR *dir = opendir(MEMSYS);
	int n = 0, fd;
	ssize_t r;

	if (!dir)
		return 0;
	*bsz = 0;
	fd = open(MEMSYS "block_size_bytes", O_RDONLY);
	if (fd >= 0) {
		r = read(fd, buf, sizeof(buf) - 1);
		buf[r > 0 ? r : 0] = 0;
		*bsz = strtoul(buf, NULL, 16);
		close(fd);
	}
	while ((d = readdir(dir)) && n < max) {
		if (strncmp(d->d_name, "memory", 6) || d->d_name[6] < '0' || d->d_name[6] > '9')
			continue;
		snprintf(path, sizeof(path), MEMSYS "%s/node1", d->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), MEMSYS "%s/valid_zones", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[r > 0 ? r : 0] = 0;
		if (strstr(buf, "Movable"))
			blk[n++] = atol(d->d_name + 6);
	}
	closedir(dir);
	return n;
}

/*
 * A hang guard for an offline: the kernel retries a page it cannot migrate
 * until a signal comes, so a KSM page that the KSM rmap cannot unmap would
 * hang the case.  SIGALRM (no SA_RESTART) ends the write with EINTR and
 * the case fails instead.  120 s, MM_GUARD times as long on a slow kernel:
 * an offline of this DIMM takes a few seconds.
 */
static volatile sig_atomic_t offline_alarm;

static void on_offline_alarm(int sig)
{
	offline_alarm = 1;
}

static void offline_guard(unsigned int on)
{
	struct sigaction sa = { .sa_handler = on_offline_alarm };

	if (!on) {
		alarm(0);
		offline_alarm = 0;
		return;
	}
	sigaction(SIGALRM, &sa, NULL);
	offline_alarm = 0;
	alarm(on * guard());
}

/* Write @state to every block, asking again (20 times at most) on EBUSY/EAGAIN */
static int set_blocks(const long *blk, int n, const char *state)
{
	const char *want = strcmp(state, "offline") ? "online" : "offline";
	char path[128], buf[32];
	int i, k, fd;
	ssize_t r;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), MEMSYS "memory%ld/state", blk[i]);
		for (k = 0; k < 20; k++) {
			fd = open(path, O_RDONLY);
			r = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
			if (fd >= 0)
				close(fd);
			buf[r > 0 ? r : 0] = 0;
			if (!strncmp(buf, want, strlen(want)))
				break;
			if (wr_str(path, state))
				printf("# memory%ld: %s: %s (try %d)\n", blk[i], state, strerror(errno), k + 1);
			if (offline_alarm) {
				printf("# memory%ld: %s did not end within the hang guard (pages it could not migrate: see the kernel log)\n",
				       blk[i], state);
				return -1;
			}
		}
		if (k == 20)
			return -1;
	}
	return 0;
}

static int bind_node1(char *p, size_t len)
{
	unsigned long mask = 1UL << 1;

	return syscall(SYS_mbind, p, len, 2 /* MPOL_BIND */, &mask, 64, 0);
}

/* seeds of the offline case: twins of 8 contents, and zeros */
static unsigned int off_seed(unsigned long i)
{
	return i % 16 == 15 ? 0 : 600 + i % 8;
}

static int offline_churn(volatile int *stop)
{
	unsigned long n = 64, i;
	char *q = map_aligned(n * ps, ps);
	unsigned int round = 0;
	pid_t g;

	if (!q || bind_node1(q, n * ps))
		return 2;
	madvise(q, n * ps, MADV_NOHUGEPAGE);
	while (!*stop) {
		round++;
		for (i = 0; i < n; i++)
			fill(q + i * ps, i % 2 ? off_seed(i) : 90000 + round * 64 + i);
		g = fork();
		if (!g) {
			/* merges the same pages, and exits while they are KSM */
			madv_merge(q, n * ps);
			_exit(0);
		}
		madv_merge(q, n * ps);
		for (i = 0; i < n; i++)
			if (check(q + i * ps, i % 2 ? off_seed(i) : 90000 + round * 64 + i))
				return 3;
		waitpid(g, NULL, 0);
		madvise(q, n * ps, MADV_DONTNEED);
	}
	return 0;
}

static int t_memory_offline(void)
{
	/*
	 * 512 pages: each content has at most 64 mappings here, 128 with
	 * c1's, below max_page_sharing (256), so that the fresh twins below
	 * merge with these KSM pages rather than start a new duplicate.
	 */
	unsigned long n = 512, i, in = 0, on = 0, apart = 0, bsz;
	unsigned long long lo, hi, f;
	long blk[64];
	int nb, st, ret = 0, pfd[2], c1st, c2st;
	char *p = map_aligned(n * ps, ps), *t = map_aligned(16 * ps, ps);
	volatile int *stop = mmap(NULL, ps, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t c1, c2;
	char c;

	nb = dimm_blocks(blk, 64, &bsz);
	if (!nb || !bsz) {
		printf("# no hot-removable memory on node 1\n");
		return SKIP;
	}
	lo = hi = blk[0];
	for (i = 0; i < (unsigned long)nb; i++) {
		lo = blk[i] < (long)lo ? blk[i] : lo;
		hi = blk[i] > (long)hi ? blk[i] : hi;
	}
	lo = lo * (bsz / ps);
	hi = (hi + 1) * (bsz / ps);
	printf("# %d DIMM blocks on node 1, PFNs %#llx-%#llx\n", nb, lo, hi);
	if (!p || !t || stop == MAP_FAILED || bind_node1(p, n * ps) || bind_node1(t, 16 * ps))
		FAIL("mmap/mbind: %s", strerror(errno));
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		fill(p + i * ps, off_seed(i));
	for (i = 0; i < n; i++) {
		f = pfn_of(p + i * ps);
		in += f >= lo && f < hi;
	}
	st = madv_merge(p, n * ps);
	if (st)
		FAIL("MADV_MERGE: %s", strerror(st));
	for (i = 0; i < 8; i++) {
		f = pfn_of(p + i * ps);
		on += f >= lo && f < hi;
	}
	printf("# %lu of %lu pages on the DIMM; %lu of the 8 KSM pages\n", in, n, on);
	if (on < 8)
		FAIL("the KSM pages are not on the DIMM");

	/* c1 shares the KSM pages, and exits when told (during the offline) */
	if (pipe(pfd))
		FAIL("pipe");
	c1 = fork();
	if (!c1) {
		close(pfd[1]);
		for (i = 0; i < n; i++)
			fill(p + i * ps, off_seed(i) ? 50 : 51);	/* its own */
		for (i = 0; i < n; i++)
			fill(p + i * ps, off_seed(i));
		madv_merge(p, n * ps);
		read(pfd[0], &c, 1);
		_exit(0);
	}
	close(pfd[0]);
	c2 = fork();
	if (!c2) {
		close(pfd[1]);		/* c1's EOF is the parent's alone */
		_exit(offline_churn(stop));
	}
	usleep(200000);
	close(pfd[1]);			/* c1 exits now */
	offline_guard(120);
	if (set_blocks(blk, nb, "offline")) {
		printf("# the DIMM could not be offlined\n");
		ret = 1;
	}
	offline_guard(0);
	*stop = 1;
	waitpid(c1, &c1st, 0);
	waitpid(c2, &c2st, 0);
	if (!WIFEXITED(c2st) || WEXITSTATUS(c2st)) {
		printf("# the MADV_MERGE child failed (%#x)\n", c2st);
		ret = 1;
	}
	for (i = 0; i < n; i++) {
		if (check(p + i * ps, off_seed(i)))
			FAIL("page %lu wrong after the offline", i);
		f = pfn_of(p + i * ps);
		if (!ret && f >= lo && f < hi)
			FAIL("page %lu still on the offlined DIMM (pfn %#llx)", i, f);
		if (i >= 16 && off_seed(i) && f != pfn_of(p + (i % 8) * ps))
			apart++;
	}
	printf("# after the offline: %lu twins apart from their KSM page\n", apart);
	if (apart)
		ret = 1;
	/* a fresh twin finds the migrated KSM pages in the stable tree */
	for (i = 0; i < 16; i++)
		fill(t + i * ps, off_seed(i));
	st = madv_merge(t, 16 * ps);
	for (i = 0; i < 8; i++)
		if (st || pfn_of(t + i * ps) != pfn_of(p + i * ps)) {
			printf("# a fresh twin did not merge with the migrated KSM page %lu (%s)\n",
			       i, st ? strerror(st) : "0");
			ret = 1;
			break;
		}
	if (set_blocks(blk, nb, "online_movable")) {
		printf("# the DIMM could not be onlined again\n");
		ret = 1;
	}
	for (i = 0; i < n; i++)
		fill(p + i * ps, off_seed(i) + 7);
	for (i = 0; i < n; i++)
		if (check(p + i * ps, off_seed(i) + 7))
			FAIL("page %lu wrong after a write", i);
	return ret;
}

/* ---- main ---- */

struct tcase { const char *name; int (*fn)(void); };
static const struct tcase cases[] = {
	{ "thp_pmd_subrange", t_thp_pmd_subrange },
	{ "thp_pte_mapped", t_thp_pte_mapped },
	{ "thp_partial_unmap", t_thp_partial_unmap },
	{ "mthp_all_sizes", t_mthp_all_sizes },
	{ "hugetlb_refused", t_hugetlb_refused },
	{ "shared_and_file", t_shared_and_file },
	{ "mlocked", t_mlocked },
	{ "mlocked_thp", t_mlocked_thp },
	{ "vmsplice_pinned", t_vmsplice_pinned },
	{ "longterm_pinned", t_longterm_pinned },
	{ "busy_lru_batch_merged_or_eagain", t_busy_lru_batch },
	{ "merge_sync_switch", t_merge_switch },
	{ "run_0_and_2_refuse", t_run_switch },
	{ "run_flipped_during_a_call_stops_it", t_run_flip },
	{ "run_0_written_no_batch_after_it", t_run_stop_counter },
	{ "resume_point_not_taken_by_another_thread", t_resume_point_other_thread },
	{ "signals_restart", t_signals },
	{ "migrate_nodes", t_migrate_nodes },
	{ "migrating_pages_merged_or_eagain", t_migrating_merged_or_eagain },
	{ "rmap_walk_linear", t_rmap_walk_linear },
	{ "walk_bounded_per_hold", t_walk_bounded },
	{ "batch_steps_below_minimum_progress", t_batch_steps_min },
	{ "signal_storm_resumes", t_signal_storm },
	{ "sigstop_stops_the_call", t_sigstop_prompt },
	{ "io_uring_madvise_refused", t_io_uring_refused },
	{ "uffd_wp_refused", t_uffd_wp_refused },
	{ "parked_nodes_freed_after_fork_child", t_parked_nodes_freed },
	{ "stable_nodes_freed", t_stable_nodes_freed },
	{ "fork_uncopied_zero_pages", t_fork_uncopied_zero_pages },
	{ "memcg_uncharge", t_memcg_uncharge },
	{ "races_munmap_mremap_fork_migrate_compact", t_races },
	{ "no_leaks_after_exit", t_leaks },
	{ "fork_shared_made_ksm_by_child_migrates", t_fork_shared_made_ksm_by_child },
	{ "parent_exited_child_migrates", t_parent_exited_child_migrates },
	{ "parent_exited_child_wrote_not_kept", t_parent_exited_child_wrote },
	{ "exit_at_ksmd_cursor_kept_then_freed", t_cursor_exit_kept },
	{ "memory_offline_under_the_stable_tree", t_memory_offline },
};

/*
 * A case that does not end in CASE_GUARD seconds (MM_GUARD times as long
 * on a slow kernel; the longest case takes about 20 s, its own waits at
 * most 200 s) is hung: what its tasks, and every task in D state, are
 * waiting in is printed, the blocked tasks go to the kernel log (sysrq w),
 * and the case's process group is killed.  The hang becomes a failed case
 * that says where, instead of a guest the host stops without a word.
 */
#define CASE_GUARD 400

static void dump_stack_of(const char *tdir, const char *comm, char state)
{
	char path[700], line[256];
	FILE *f;

	printf("# task %s (%s) state %c:\n", tdir + 6, comm, state);
	snprintf(path, sizeof(path), "%s/stack", tdir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#     %s", line);
	fclose(f);
}

static void dump_hung(pid_t pgrp)
{
	char path[600], buf[512], comm[64], state, *c;
	struct dirent *de, *te;
	DIR *d = opendir("/proc"), *td;
	int pg, fd;
	ssize_t r;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", de->d_name);
		td = opendir(path);
		while (td && (te = readdir(td))) {
			if (te->d_name[0] < '0' || te->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/stat",
				 de->d_name, te->d_name);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				continue;
			r = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (r <= 0)
				continue;
			buf[r] = 0;
			/* pid (comm) state ppid pgrp: comm may hold spaces */
			c = strrchr(buf, ')');
			if (!c || sscanf(c + 2, "%c %*d %d", &state, &pg) != 2)
				continue;
			*c = 0;
			snprintf(comm, sizeof(comm), "%s", strchr(buf, '(') + 1);
			if (pg != pgrp && state != 'D')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s",
				 de->d_name, te->d_name);
			dump_stack_of(path, comm, state);
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
	wr_str("/proc/sysrq-trigger", "w");
}

/* Wait for case @pid; a hung one is reported, killed and failed */
static int wait_case(pid_t pid, int *st)
{
	long limit = CASE_GUARD * 10L * guard(), t;

	for (t = 0; t < limit; t++) {
		if (waitpid(pid, st, WNOHANG) == pid)
			return 0;
		usleep(100000);
	}
	printf("# case still running after %ld s: hung; its tasks and the blocked ones:\n",
	       limit / 10);
	dump_hung(pid);
	kill(-pid, SIGKILL);
	for (t = 0; t < 600; t++) {
		if (waitpid(pid, st, WNOHANG) == pid)
			return 1;
		usleep(100000);
	}
	printf("# its processes survived SIGKILL for 60 s: the cases after it are not run\n");
	return 2;
}

/* A case's KTAP result line, numbered by kselftest.h */
static void report(const char *name, int ret)
{
	char test[128];

	snprintf(test, sizeof(test), "sksm_safety %s", name);
	ksft_test_result_code(ret == SKIP ? KSFT_SKIP : ret ? KSFT_FAIL : KSFT_PASS,
			      test, NULL);
}

int main(int argc, char **argv)
{
	unsigned int i;
	int kfd, splat, st, ret, k, hung;
	struct timespec t0, t1;
	long zero0, zero = 0;
	pid_t pid;

	long run0 = rd_long(KSM "run"), scan0 = rd_long(KSM "pages_to_scan");
	long sleep0 = rd_long(KSM "sleep_millisecs");
	char v[32];

	ps = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * MADV_MERGE for every caller (merge_sync 2) while KSM runs (run 1,
	 * which MADV_MERGE needs); ksmd, which run 1 starts, kept from
	 * scanning (pages_to_scan 0, a long sleep), so that what merges is
	 * MADV_MERGE.
	 */
	wr_str(KSM "pages_to_scan", "0");
	wr_str(KSM "sleep_millisecs", "1000000");
	wr_str(KSM "run", "1");
	wr_str(KSM "merge_sync", "2");
	wr_str(THP "enabled", "always");
	/* KTAP: the plan first, so that kunit.py parse reads the cases */
	for (i = 0, k = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		k += argc < 2 || strstr(cases[i].name, argv[1]);
	printf("KTAP version 1\n1..%d\n", k);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc > 1 && !strstr(cases[i].name, argv[1]))
			continue;
		/* KSM runs for every case (one that changes run puts it back) */
		wr_str(KSM "run", "1");
		kfd = kmsg_open();
		zero0 = rd_long(KSM "ksm_zero_pages");
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (!pid) {
			setpgid(0, 0);
			_exit(cases[i].fn());
		}
		setpgid(pid, pid);
		hung = wait_case(pid, &st);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* what each case costs, for choosing the medley's rounds */
		printf("# %s: %.1f s\n", cases[i].name,
		       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (hung) {
			close(kfd);
			ntests++;
			nfailed++;
			report(cases[i].name, 1);
			if (hung > 1)
				break;
			continue;
		}
		ret = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		if (!WIFEXITED(st))
			printf("# case killed by signal %d\n", WTERMSIG(st));
		/*
		 * The case's processes are gone: the KSM zero pages they
		 * mapped are unmapped, and the count is back where it was
		 */
		for (k = 0; k < 300; k++) {
			zero = rd_long(KSM "ksm_zero_pages");
			if (zero == zero0)
				break;
			usleep(100000);
		}
		if (zero != zero0) {
			printf("# ksm_zero_pages %ld before the case, %ld after its exit\n",
			       zero0, zero);
			ret = ret == SKIP ? 1 : ret ? ret : 1;
		}
		usleep(200000);
		splat = kmsg_splats(kfd);
		close(kfd);
		if (splat) {
			printf("# %d kernel splat line(s) during the case\n", splat);
			ret = 1;
		}
		ntests++;
		if (ret && ret != SKIP)
			nfailed++;
		report(cases[i].name, ret);
	}
	snprintf(v, sizeof(v), "%ld", run0);
	wr_str(KSM "run", v);
	snprintf(v, sizeof(v), "%ld", scan0);
	wr_str(KSM "pages_to_scan", v);
	snprintf(v, sizeof(v), "%ld", sleep0);
	wr_str(KSM "sleep_millisecs", v);
	printf("# sksm_safety: %d of %d failed\n", nfailed, ntests);
	return nfailed ? 1 : 0;
}
