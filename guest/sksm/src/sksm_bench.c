// SPDX-License-Identifier: GPL-2.0
/*
 * MADV_MERGE vs ksmd benchmark, for the sksm guest.
 *
 *   sksm_bench sksm N MIB      N processes, the same MIB of anonymous pages
 *                              each; MADV_MERGE one after the other, then
 *                              all at once; background CPU after the calls
 *   sksm_bench ksm N MIB TMO   the same pages, MADV_MERGEABLE, ksmd at its
 *                              current (default) settings: time until
 *                              pages_sharing shows the same saving
 *   sksm_bench text K FILE     K processes map FILE privately, patch every
 *                              page the same way (COW), then MADV_MERGE
 *   sksm_bench batch N MIB     MADV_MERGE one process after the other, as
 *                              sksm does, with debugfs ksm/merge_batch_steps
 *                              256 (the default) and UINT_MAX (one hold for
 *                              the whole range), order ABBA; fresh processes
 *                              and KSM reset (run 2, then 1) before each
 *
 * Output: "key value" lines, read by guest/sksm/report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mm_guest.h"

#ifndef MADV_MERGE
#define MADV_MERGE 26
#endif
#define KSM "/sys/kernel/mm/ksm/"
#define BATCH_STEPS "/sys/kernel/debug/ksm/merge_batch_steps"
#define WALK_MAX "/sys/kernel/debug/ksm/merge_walk_max"

static long psize;

static long meminfo(const char *key)
{
	char line[256];
	long val = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			val = atol(line + strlen(key) + 1);
	if (f)
		fclose(f);
	return val;
}

static long ksm_read(const char *name)
{
	char path[128];
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), KSM "%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &val) != 1)
			val = -1;
		fclose(f);
	}
	return val;
}

static void ksm_write(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), KSM "%s", name);
	f = fopen(path, "w");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

/* utime + stime of ksmd, in clock ticks; -1 if not found */
static long ksmd_ticks(void)
{
	static char path[64];
	char buf[512], *p;
	long ut, st;
	FILE *f;
	int i;

	if (!path[0]) {
		for (i = 2; i < 1000 && !path[0]; i++) {
			snprintf(buf, sizeof(buf), "/proc/%d/comm", i);
			f = fopen(buf, "r");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f) && !strcmp(buf, "ksmd\n"))
				snprintf(path, sizeof(path), "/proc/%d/stat", i);
			fclose(f);
		}
		if (!path[0])
			return -1;
	}
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');
	/* fields after ")": state(3) ... utime(14) stime(15) */
	for (i = 0; i < 12 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %ld %ld", &ut, &st) != 2)
		return -1;
	return ut + st;
}

/* Busy (non-idle, non-iowait) CPU ticks of the whole machine */
static long busy_ticks(void)
{
	long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	if (fscanf(f, "cpu %ld %ld %ld %ld %ld %ld %ld %ld", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		v[0] = -1;
	fclose(f);
	return v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
}

static void fill_page(uint64_t *p, uint64_t idx)
{
	long i;

	for (i = 0; i < psize / 8; i++)
		p[i] = idx * 0x9e3779b97f4a7c15ULL + i;
}

struct child {
	pid_t pid;
	int cmd, res;		/* parent writes cmd, reads res */
};

struct result {
	double wall, cpu;
	int err, bad;
};

/* Child side: hold the pages, obey one-byte commands */
static void child_loop(int cmd, int res, char *mem, size_t len, int ksm)
{
	struct result r;
	size_t i;
	char c;

	while (read(cmd, &c, 1) == 1) {
		memset(&r, 0, sizeof(r));
		if (c == 'm') {
			double t = now(), u = cpu_now();

			r.err = madvise(mem, len, ksm ? MADV_MERGEABLE : MADV_MERGE) ?
				errno : 0;
			r.cpu = cpu_now() - u;
			r.wall = now() - t;
		} else if (c == 'v') {
			for (i = 0; i < len / psize; i++) {
				uint64_t *p = (uint64_t *)(mem + i * psize);

				if (p[0] != i * 0x9e3779b97f4a7c15ULL ||
				    p[psize / 8 - 1] != i * 0x9e3779b97f4a7c15ULL + psize / 8 - 1)
					r.bad++;
			}
		} else {
			break;
		}
		if (write(res, &r, sizeof(r)) != sizeof(r))
			break;
	}
	_exit(0);
}

static int spawn(struct child *c, size_t len, int ksm)
{
	int a[2], b[2];
	char *mem;
	size_t i;
	struct result r = { 0 };

	if (pipe(a) || pipe(b))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		close(a[1]);
		close(b[0]);
		mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			_exit(1);
		madvise(mem, len, MADV_NOHUGEPAGE);
		for (i = 0; i < len / psize; i++)
			fill_page((uint64_t *)(mem + i * psize), i);
		if (write(b[1], &r, sizeof(r)) != sizeof(r))	/* ready */
			_exit(1);
		child_loop(a[0], b[1], mem, len, ksm);
	}
	close(a[0]);
	close(b[1]);
	c->cmd = a[1];
	c->res = b[0];
	return read(c->res, &r, sizeof(r)) == sizeof(r) ? 0 : -1;
}

static int ask(struct child *c, char cmd, struct result *r)
{
	if (write(c->cmd, &cmd, 1) != 1)
		return -1;
	return read(c->res, r, sizeof(*r)) == sizeof(*r) ? 0 : -1;
}

static int verify_all(struct child *c, int n)
{
	struct result r;
	int i, bad = 0;

	for (i = 0; i < n; i++)
		if (ask(&c[i], 'v', &r) || r.bad)
			bad += r.bad ? r.bad : 1;
	return bad;
}

static void reap(struct child *c, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		close(c[i].cmd);
		close(c[i].res);
	}
	for (i = 0; i < n; i++)
		waitpid(c[i].pid, NULL, 0);
}

static int bench_sksm(int n, long mib)
{
	size_t len = (size_t)mib << 20;
	long pages = len / psize;
	struct child *c = calloc(n, sizeof(*c));
	long anon0, anon1, anon2, m0, s0, kt0, bt0, kt1, bt1;
	double t0, sum_wall = 0, sum_cpu = 0, max_wall = 0;
	struct result r;
	int i, err = 0;

	anon0 = meminfo("AnonPages");
	for (i = 0; i < n; i++)
		if (spawn(&c[i], len, 0))
			return 1;
	anon1 = meminfo("AnonPages");
	m0 = ksm_read("merge_sync_pages_merged");
	s0 = ksm_read("merge_sync_pages_shared");
	kt0 = ksmd_ticks();
	printf("sksm_procs %d\nsksm_mib %ld\nsksm_pages_per_proc %ld\n",
	       n, mib, pages);
	printf("sksm_ksm_run %ld\n", ksm_read("run"));
	t0 = now();
	for (i = 0; i < n; i++) {
		if (ask(&c[i], 'm', &r))
			return 1;
		err |= r.err;
		printf("sksm_proc%d_wall_s %.4f\nsksm_proc%d_cpu_s %.4f\n",
		       i, r.wall, i, r.cpu);
		sum_wall += r.wall;
		sum_cpu += r.cpu;
		if (r.wall > max_wall)
			max_wall = r.wall;
	}
	printf("sksm_time_to_full_merge_s %.4f\n", now() - t0);
	printf("sksm_madvise_wall_sum_s %.4f\nsksm_madvise_cpu_sum_s %.4f\n",
	       sum_wall, sum_cpu);
	printf("sksm_madvise_wall_max_s %.4f\nsksm_madvise_err %d\n",
	       max_wall, err);
	anon2 = meminfo("AnonPages");
	printf("sksm_anon_kb_before_fill %ld\nsksm_anon_kb_before_merge %ld\n",
	       anon0, anon1);
	printf("sksm_anon_kb_after_merge %ld\n", anon2);
	printf("sksm_saved_kb %ld\n", anon1 - anon2);
	printf("sksm_expected_saved_kb %ld\n", (long)(n - 1) * pages * psize / 1024);
	printf("sksm_pages_merged %ld\nsksm_pages_shared %ld\n",
	       ksm_read("merge_sync_pages_merged") - m0,
	       ksm_read("merge_sync_pages_shared") - s0);
	printf("sksm_ksm_pages_sharing %ld\n", ksm_read("pages_sharing"));

	/* Background CPU after the calls: nothing should run */
	bt0 = busy_ticks();
	kt1 = ksmd_ticks();
	sleep(5);
	bt1 = busy_ticks();
	printf("sksm_ksmd_ticks_during_merge %ld\n", kt1 - kt0);
	printf("sksm_ksmd_ticks_after_5s %ld\n", ksmd_ticks() - kt1);
	printf("sksm_busy_ticks_after_5s %ld\n", bt1 - bt0);
	printf("sksm_verify_bad %d\n", verify_all(c, n));
	reap(c, n);

	/* Once more, all processes at the same time */
	for (i = 0; i < n; i++)
		if (spawn(&c[i], len, 0))
			return 1;
	anon1 = meminfo("AnonPages");
	t0 = now();
	for (i = 0; i < n; i++)
		if (write(c[i].cmd, "m", 1) != 1)
			return 1;
	sum_cpu = 0;
	for (i = 0; i < n; i++) {
		if (read(c[i].res, &r, sizeof(r)) != sizeof(r))
			return 1;
		sum_cpu += r.cpu;
	}
	printf("sksmpar_time_to_full_merge_s %.4f\n", now() - t0);
	printf("sksmpar_madvise_cpu_sum_s %.4f\n", sum_cpu);
	printf("sksmpar_saved_kb %ld\n", anon1 - meminfo("AnonPages"));
	printf("sksmpar_verify_bad %d\n", verify_all(c, n));
	reap(c, n);
	free(c);
	return 0;
}

/*
 * One round of the batch case: N fresh processes, KSM reset, the batch
 * set to @steps, then MADV_MERGE one process after the other. *@walk:
 * debugfs ksm/merge_walk_max after the round (reset before it), the most
 * page table entries and VMAs one hold visited, or -1 without the file.
 */
static int batch_round(int n, size_t len, const char *steps, double *wall,
		       double *cpu, long *saved, int *err, int *bad, long *walk)
{
	struct child *c = calloc(n, sizeof(*c));
	struct result r;
	long anon1;
	double t0;
	FILE *f;
	int i;

	if (!c)
		return 1;
	/* run 2 unmerges every KSM page and frees the stable tree */
	ksm_write("run", "2");
	ksm_write("run", "1");
	f = fopen(BATCH_STEPS, "w");
	if (!f || fputs(steps, f) < 0 || fclose(f))
		return 1;
	f = fopen(WALK_MAX, "w");
	if (f && (fputs("0", f) < 0 || fclose(f)))
		return 1;
	for (i = 0; i < n; i++)
		if (spawn(&c[i], len, 0))
			return 1;
	anon1 = meminfo("AnonPages");
	*cpu = 0;
	t0 = now();
	for (i = 0; i < n; i++) {
		if (ask(&c[i], 'm', &r))
			return 1;
		*err |= r.err;
		*cpu += r.cpu;
	}
	*wall = now() - t0;
	*walk = -1;
	f = fopen(WALK_MAX, "r");
	if (f && fscanf(f, "%ld", walk) != 1)
		*walk = -1;
	if (f)
		fclose(f);
	*saved = anon1 - meminfo("AnonPages");
	*bad += verify_all(c, n);
	reap(c, n);
	free(c);
	return 0;
}

/*
 * What batching costs: MADV_MERGE with ksm_thread_mutex dropped every 256
 * steps against one hold for the whole range, in the same boot, ABBA so
 * that neither always comes first.  Keys batch256_* and batchmax_*, each
 * the mean of its two rounds.  The knob must act: a whole-range round
 * whose largest hold (debugfs ksm/merge_walk_max) visited no more than 256
 * entries, or a 256-step round one that visited more, is counted in
 * batch_knob_bad and fails the run (exit status 1 after the lines).
 */
static int bench_batch(int n, long mib)
{
	static const char * const steps[2] = { "256", "4294967295" };
	static const char * const key[2] = { "batch256", "batchmax" };
	static const int order[4] = { 0, 1, 1, 0 };
	size_t len = (size_t)mib << 20;
	double wall[2] = { 0 }, cpu[2] = { 0 }, w, u;
	long saved[2] = { 0 }, sv;
	int err[2] = { 0 }, bad[2] = { 0 };
	int i, k, knob_bad = 0;
	long walk;
	FILE *f;

	if (access(BATCH_STEPS, W_OK))
		return 0;	/* a kernel without the file: no batch lines */
	printf("batch_procs %d\nbatch_mib %ld\n", n, mib);
	for (i = 0; i < 4; i++) {
		k = order[i];
		if (batch_round(n, len, steps[k], &w, &u, &sv, &err[k], &bad[k],
				&walk))
			return 1;
		printf("%s_round%d_wall_s %.4f\n", key[k], i, w);
		printf("%s_round%d_walk_max %ld\n", key[k], i, walk);
		if (walk < 0 || (k ? walk <= 256 : walk > 256)) {
			printf("# ERROR: %s round %d: largest hold visited %ld entries (merge_walk_max), want %s 256: the knob was not obeyed\n",
			       key[k], i, walk, k ? "more than" : "at most");
			knob_bad++;
		}
		wall[k] += w / 2;
		cpu[k] += u / 2;
		saved[k] += sv;
	}
	for (k = 0; k < 2; k++) {
		printf("%s_steps %s\n", key[k], steps[k]);
		printf("%s_time_to_full_merge_s %.4f\n", key[k], wall[k]);
		printf("%s_madvise_cpu_sum_s %.4f\n", key[k], cpu[k]);
		printf("%s_saved_kb %ld\n", key[k], saved[k] / 2);
		printf("%s_madvise_err %d\n%s_verify_bad %d\n",
		       key[k], err[k], key[k], bad[k]);
	}
	printf("batch_knob_bad %d\n", knob_bad);
	/* back to the default */
	f = fopen(BATCH_STEPS, "w");
	if (!f || fputs(steps[0], f) < 0 || fclose(f))
		return 1;
	return knob_bad ? 1 : 0;
}

/*
 * Pages of the children that map a KSM page, from /proc/<pid>/ksm_merging_pages.
 * Unlike the global pages_sharing, it does not count what earlier phases
 * left for ksmd to tear down (an exiting mm whose rmap_items ksmd frees
 * later), which made a pages_sharing target unreachable after the sksm
 * and text phases.
 */
static long merging_pages(struct child *c, int n)
{
	char path[64];
	long sum = 0, v;
	int i;

	for (i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/ksm_merging_pages", c[i].pid);
		f = fopen(path, "r");
		if (!f)
			return -1;
		if (fscanf(f, "%ld", &v) == 1)
			sum += v;
		fclose(f);
	}
	return sum;
}

static int bench_ksm(int n, long mib, int timeout)
{
	size_t len = (size_t)mib << 20;
	long pages = len / psize;
	struct child *c = calloc(n, sizeof(*c));
	long anon1, sh0, target, kt0, sharing = 0, bt0, merging = 0;
	double t0, t = 0;
	struct result r;
	int i, err = 0;

	for (i = 0; i < n; i++)
		if (spawn(&c[i], len, 1))
			return 1;
	for (i = 0; i < n; i++) {
		if (ask(&c[i], 'm', &r))
			return 1;
		err |= r.err;
	}
	anon1 = meminfo("AnonPages");
	sh0 = ksm_read("pages_sharing");
	target = sh0 + (long)(n - 1) * pages;
	printf("ksm_procs %d\nksm_mib %ld\nksm_madvise_err %d\n", n, mib, err);
	printf("ksm_pages_to_scan %ld\nksm_sleep_millisecs %ld\n",
	       ksm_read("pages_to_scan"), ksm_read("sleep_millisecs"));
	printf("ksm_target_pages_sharing %ld\n", target);
	printf("ksm_target_merging_pages %ld\n", (long)n * pages);
	kt0 = ksmd_ticks();
	bt0 = busy_ticks();
	t0 = now();
	ksm_write("run", "1");
	while ((t = now() - t0) < timeout) {
		sharing = ksm_read("pages_sharing");
		merging = merging_pages(c, n);
		/* every page of every child maps a KSM page: fully merged */
		if (merging >= (long)n * pages)
			break;
		usleep(100000);
	}
	printf("ksm_time_to_full_merge_s %.4f\n", t);
	printf("ksm_reached %d\n", merging >= (long)n * pages);
	printf("ksm_merging_pages %ld\n", merging);
	printf("ksm_pages_sharing %ld\n", sharing);
	printf("ksm_pages_sharing_at_start %ld\n", sh0);
	printf("ksm_full_scans %ld\n", ksm_read("full_scans"));
	printf("ksm_ksmd_ticks %ld\n", ksmd_ticks() - kt0);
	printf("ksm_busy_ticks %ld\n", busy_ticks() - bt0);
	printf("ksm_saved_kb %ld\n", anon1 - meminfo("AnonPages"));
	printf("ksm_expected_saved_kb %ld\n", (long)(n - 1) * pages * psize / 1024);
	/* ksmd keeps scanning at defaults: its CPU over the next 5 s */
	kt0 = ksmd_ticks();
	sleep(5);
	printf("ksm_ksmd_ticks_after_5s %ld\n", ksmd_ticks() - kt0);
	printf("ksm_verify_bad %d\n", verify_all(c, n));
	ksm_write("run", "0");
	reap(c, n);
	free(c);
	return 0;
}

/* The RFC's experiment: processes whose copy of a file got COWed */
static int bench_text(int k, const char *file)
{
	int fd = open(file, O_RDONLY), i, *cmd, *res;
	long anon0, anon1, anon2, anon3;
	struct stat st;
	size_t len;
	double t0, cpu = 0;
	pid_t *pid;
	struct result r;

	if (fd < 0 || fstat(fd, &st))
		return 1;
	len = st.st_size / psize * psize;
	pid = calloc(k, sizeof(*pid));
	cmd = calloc(k, sizeof(int));
	res = calloc(k, sizeof(int));
	anon0 = meminfo("AnonPages");
	for (i = 0; i < k; i++) {
		int a[2], b[2];

		if (pipe(a) || pipe(b))
			return 1;
		pid[i] = fork();
		if (!pid[i]) {
			char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE, fd, 0);
			volatile char sink;
			size_t j;
			char c;

			/*
			 * Only our own ends: a write end of a command pipe left
			 * open here (ours, or an earlier sibling's) means no EOF
			 * for its reader, and the parent's waitpid() never ends.
			 */
			close(a[1]);
			close(b[0]);
			for (j = 0; j < (size_t)i; j++) {
				close(cmd[j]);
				close(res[j]);
			}
			if (m == MAP_FAILED)
				_exit(1);
			/* read it all (the baseline), then wait */
			for (j = 0; j < len; j += psize)
				sink = m[j];
			(void)sink;
			memset(&r, 0, sizeof(r));
			if (write(b[1], &r, sizeof(r)) != sizeof(r))
				_exit(1);
			while (read(a[0], &c, 1) == 1) {
				memset(&r, 0, sizeof(r));
				if (c == 'p') {	/* patch: the same byte everywhere */
					for (j = 0; j < len; j += psize)
						m[j + 16] ^= 0x5a;
				} else if (c == 'm') {
					double t = now(), u = cpu_now();

					r.err = madvise(m, len, MADV_MERGE) ? errno : 0;
					r.cpu = cpu_now() - u;
					r.wall = now() - t;
				} else {
					break;
				}
				if (write(b[1], &r, sizeof(r)) != sizeof(r))
					break;
			}
			_exit(0);
		}
		close(a[0]);
		close(b[1]);
		cmd[i] = a[1];
		res[i] = b[0];
		if (read(res[i], &r, sizeof(r)) != sizeof(r))
			return 1;
	}
	anon1 = meminfo("AnonPages");
	for (i = 0; i < k; i++)
		if (write(cmd[i], "p", 1) != 1 ||
		    read(res[i], &r, sizeof(r)) != sizeof(r))
			return 1;
	anon2 = meminfo("AnonPages");
	t0 = now();
	for (i = 0; i < k; i++) {
		if (write(cmd[i], "m", 1) != 1 ||
		    read(res[i], &r, sizeof(r)) != sizeof(r))
			return 1;
		cpu += r.cpu;
	}
	printf("text_merge_time_s %.4f\ntext_merge_cpu_s %.4f\n", now() - t0, cpu);
	anon3 = meminfo("AnonPages");
	printf("text_procs %d\ntext_file_pages %ld\n", k, (long)(len / psize));
	printf("text_anon_kb_start %ld\n", anon0);
	printf("text_anon_kb_mapped_no_cow %ld\n", anon1);
	printf("text_anon_kb_after_cow %ld\n", anon2);
	printf("text_anon_kb_after_merge %ld\n", anon3);
	for (i = 0; i < k; i++) {
		close(cmd[i]);
		close(res[i]);
	}
	for (i = 0; i < k; i++)
		waitpid(pid[i], NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	psize = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "sksm"))
		return bench_sksm(atoi(argv[2]), atol(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "ksm"))
		return bench_ksm(atoi(argv[2]), atol(argv[3]), atoi(argv[4]));
	if (argc >= 4 && !strcmp(argv[1], "text"))
		return bench_text(atoi(argv[2]), argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "batch"))
		return bench_batch(atoi(argv[2]), atol(argv[3]));
	fprintf(stderr,
		"usage: %s sksm N MIB | ksm N MIB TIMEOUT | text K FILE | batch N MIB\n",
		argv[0]);
	return 2;
}
