// SPDX-License-Identifier: GPL-2.0
/*
 * dmstorm FILE: the non-movable reclaim storm of defrag_mode, set up on
 * purpose, and how much page cache one burst of unmovable demand costs.
 *
 * With vm.defrag_mode=1, a non-movable request that finds no free page
 * in blocks of its type and no whole free pageblock may not fall back
 * until reclaim and compaction have failed. If reclaim keeps making
 * progress that does not help it (single pages freed in movable
 * blocks), and compaction cannot empty a block, a retry rule that
 * resets on progress keeps it reclaiming until nothing reclaimable is
 * left: the storm "mm: page_alloc: fix non-movable reclaim storm in
 * defrag_mode" bounds.
 *
 * The setup (the caller sets vm.defrag_mode=1 and
 * vm.compact_unevictable_allowed=0, THP off; FILE is on a disk file
 * system, so its page cache is reclaimable):
 *  1. FILE is written (every page one repeated word, which zram keeps
 *     for nothing) and dropped from the page cache.
 *  2. Memory is filled, page by page, with one anonymous page, then
 *     seven pages of FILE read into the page cache, over and over, so
 *     that every pageblock holds both, until free memory is down to the
 *     zones' high watermarks and 16 MiB more.
 *  3. The anonymous pages are mlocked: with compact_unevictable_allowed
 *     at 0, compaction cannot move them, so it cannot empty a block;
 *     reclaim can free the page cache around them, one page at a time.
 *  4. Pipes are filled with 64 KiB each (unmovable pages) for all the
 *     free memory left and 48 MiB more.
 *
 * The pipes need that much memory, which reclaim must take from the
 * page cache; a storm takes much more: the pipe writer's direct
 * reclaim, and kswapd's, which every slowpath pass wakes for a
 * pageblock in defrag_mode. The verdict: the pages reclaimed during
 * step 4, direct and kswapd (pgsteal_direct + pgsteal_kswapd; the
 * anonymous pages are mlocked, so they are file pages), may be at most
 * twice the pipes' pages and 64 MiB: kswapd reclaims ahead of the
 * demand, up to its watermark in whole blocks. FILE's resident pages
 * (mincore) are reported beside it. A result that depends on counts
 * only, not on time. (2026-12-07, make boot TOPIC=defrag-mode, three
 * runs with the fix: 2 + 67, 4 + 57 and 0 + 100 MiB reclaimed for 61-62
 * MiB of pipes; without it 137 + 226 MiB for 64 MiB, FILE emptied.)
 *
 * Output: KTAP diagnostics; exit status KSFT_PASS, KSFT_FAIL or
 * KSFT_SKIP (the setup could not be made).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kselftest.h"
#include "vmstat.h"

#define PAGE		4096UL
#define MB		(1UL << 20)
#define PIPE_BYTES	(64 * 1024)
#define SLACK		(64 * MB)

/* A "Name: value kB" line of /proc/meminfo, in bytes; 0 if missing. */
static unsigned long meminfo(const char *name)
{
	return proc_value("/proc/meminfo", name, ':') * 1024;
}

/* Sum of the zones' high watermarks, in bytes. */
static unsigned long high_wmarks(void)
{
	unsigned long sum = 0, v;
	char line[256], word[32];
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %31s %lu", word, &v) == 2 && !strcmp(word, "high"))
			sum += v;
	fclose(f);
	return sum * PAGE;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return ret;
}

/* FILE's pages in the page cache (mincore() of a mapping of it). */
static unsigned long resident(int fd, unsigned long pages)
{
	static unsigned char vec[(1UL << 30) / PAGE];
	unsigned long i, n = 0;
	void *map;

	if (pages > sizeof(vec))
		pages = sizeof(vec);
	map = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 0;
	if (!mincore(map, pages * PAGE, vec))
		for (i = 0; i < pages; i++)
			n += vec[i] & 1;
	munmap(map, pages * PAGE);
	return n;
}

int main(int argc, char **argv)
{
	unsigned long fill, file_pages, i, n, anon_pages, pipes, made = 0;
	unsigned long cached0, direct0, direct, kswapd0, kswapd, res0, cfail0, stop;
	static unsigned long buf[PAGE / sizeof(unsigned long)];
	struct rlimit rl;
	char *anon, *chunk;
	int fd, (*fds)[2];

	if (argc != 2) {
		fprintf(stderr, "usage: dmstorm FILE (on a disk file system)\n");
		return KSFT_FAIL;
	}
	/* the test shell's -1000 would make this the one task OOM spares */
	write_str("/proc/self/oom_score_adj", "0\n");

	/* 1. the file: as large as free memory, dropped from the cache */
	fill = meminfo("MemFree");
	if (!fill || !high_wmarks()) {
		ksft_print_msg("no MemFree or no watermarks\n");
		return KSFT_SKIP;
	}
	file_pages = fill / PAGE;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		ksft_print_msg("%s: %s\n", argv[1], strerror(errno));
		return KSFT_SKIP;
	}
	for (i = 0; i < file_pages; i++) {
		for (n = 0; n < PAGE / sizeof(unsigned long); n++)
			buf[n] = i + 1;
		if (write(fd, buf, PAGE) != (ssize_t)PAGE) {
			ksft_print_msg("writing page %lu of %s: %s\n", i, argv[1], strerror(errno));
			return KSFT_SKIP;
		}
	}
	fsync(fd);
	write_str("/proc/sys/vm/drop_caches", "3\n");
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);

	/* 2. anonymous and page cache pages side by side in every block */
	anon_pages = file_pages / 7 + 1;
	anon = mmap(NULL, anon_pages * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED) {
		ksft_print_msg("mmap: %s\n", strerror(errno));
		return KSFT_SKIP;
	}
	madvise(anon, anon_pages * PAGE, MADV_NOHUGEPAGE);
	stop = high_wmarks() + 16 * MB;
	for (i = 0, n = 0; i < anon_pages && n < file_pages; i++) {
		unsigned long k;

		/* (every 256 pages: /proc/meminfo is not cheap) */
		if (!(i % 256) && meminfo("MemFree") < stop)
			break;
		anon[i * PAGE] = 1;
		for (k = 0; k < 7 && n < file_pages; k++, n++)
			if (pread(fd, buf, PAGE, n * PAGE) != (ssize_t)PAGE)
				break;
	}
	anon_pages = i;

	/* 3. pin the anonymous pages against compaction */
	if (mlock(anon, anon_pages * PAGE)) {
		ksft_print_msg("mlock: %s\n", strerror(errno));
		return KSFT_SKIP;
	}
	cached0 = meminfo("Cached");
	ksft_print_msg("filled: %lu anonymous pages (mlocked), %lu file pages read; Cached %lu MiB, MemFree %lu MiB, high watermarks %lu MiB\n",
		       anon_pages, n, cached0 / MB, meminfo("MemFree") / MB, high_wmarks() / MB);
	if (cached0 < 4 * SLACK) {
		ksft_print_msg("too little page cache to tell a storm (%lu MiB)\n", cached0 / MB);
		return KSFT_SKIP;
	}

	/* 4. unmovable demand: free memory and 48 MiB more, in pipes */
	pipes = (meminfo("MemFree") + 48 * MB) / PIPE_BYTES;
	fds = calloc(pipes, sizeof(*fds));
	chunk = malloc(PIPE_BYTES);
	if (!fds || !chunk)
		return KSFT_SKIP;
	memset(chunk, 0x5a, PIPE_BYTES);
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 2 * pipes + 64) {
		rl.rlim_cur = 2 * pipes + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	res0 = resident(fd, file_pages);
	direct0 = vmstat("pgsteal_direct");
	kswapd0 = vmstat("pgsteal_kswapd");
	cfail0 = vmstat("compact_fail");
	for (made = 0; made < pipes; made++) {
		if (pipe(fds[made]))
			break;
		fcntl(fds[made][1], F_SETFL, O_NONBLOCK);
		if (write(fds[made][1], chunk, PIPE_BYTES) != PIPE_BYTES)
			break;
	}
	direct = vmstat("pgsteal_direct") - direct0;
	kswapd = vmstat("pgsteal_kswapd") - kswapd0;
	ksft_print_msg("%lu of %lu pipes of 64 KiB (%lu MiB): direct reclaim %lu MiB, kswapd %lu MiB; FILE resident %lu -> %lu MiB, Cached %lu -> %lu MiB; compact_fail +%lu\n",
		       made, pipes, made * PIPE_BYTES / MB, direct * PAGE / MB,
		       kswapd * PAGE / MB,
		       res0 * PAGE / MB, resident(fd, file_pages) * PAGE / MB,
		       cached0 / MB, meminfo("Cached") / MB, vmstat("compact_fail") - cfail0);
	if (made < pipes) {
		ksft_print_msg("pipe %lu: %s\n", made, strerror(errno));
		return KSFT_FAIL;
	}
	if ((direct + kswapd) * PAGE > 2 * made * PIPE_BYTES + SLACK) {
		ksft_print_msg("storm: reclaim took %lu MiB for %lu MiB of pipes (at most twice that and %lu MiB)\n",
			       (direct + kswapd) * PAGE / MB, made * PIPE_BYTES / MB, SLACK / MB);
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}
