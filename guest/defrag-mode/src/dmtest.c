// SPDX-License-Identifier: GPL-2.0
/*
 * defrag-mode guest tests: helpers the busybox "tests" script calls.
 *
 *   dmtest sysctl          vm.defrag_mode accepts 0/1, rejects the rest
 *   dmtest oom N           N global OOM kills in a row, guest stays usable
 *   dmtest hog             allocate and touch memory until killed
 *   dmtest pollute SECS    fragmenting load for SECS seconds (no OOM)
 *   dmtest ballast MB      hold MB of anonymous memory, unkillable by OOM
 *
 * Output: KTAP diagnostic lines ("# ", ksft_print_msg of the tree's
 * tools/testing/selftests/kselftest.h); the exit status is the verdict,
 * in kselftest's codes (KSFT_PASS, KSFT_FAIL).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "vmstat.h"
#include "mm_guest.h"

#define SYSCTL "/proc/sys/vm/defrag_mode"

static int read_int(const char *path, long *val)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*val = strtol(buf, NULL, 10);
	return 0;
}

/* Returns 0 or the errno of the write. */
static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = errno;
	else if ((size_t)n != strlen(s))
		err = EIO;
	close(fd);
	return err;
}

static int test_sysctl(void)
{
	static const char *const bad[] = {
		"2\n", "-1\n", "3\n", "100\n", "2147483648\n", "abc\n", "0x1z\n",
	};
	static const char *const good[] = { "0\n", "1\n" };
	int fails = 0;
	long v;

	for (int start = 0; start < 2; start++) {
		int err;

		err = write_str(SYSCTL, good[start]);
		if (err || read_int(SYSCTL, &v) || v != start) {
			ksft_print_msg("writing %d: err %d, reads back %ld\n",
				       start, err, v);
			fails++;
			continue;
		}
		ksft_print_msg("%d accepted, reads back %ld\n", start, v);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char shown[32];

			snprintf(shown, sizeof(shown), "%.*s",
				 (int)strcspn(bad[i], "\n"), bad[i]);
			err = write_str(SYSCTL, bad[i]);
			if (read_int(SYSCTL, &v))
				v = -42;
			if (err != EINVAL || v != start) {
				ksft_print_msg("'%s' from %d: errno %d (%s), value now %ld: WRONG\n",
					       shown, start, err, strerror(err), v);
				fails++;
			} else {
				ksft_print_msg("'%s' from %d: EINVAL, value stays %ld\n",
					       shown, start, v);
			}
		}
	}
	write_str(SYSCTL, "0\n");
	return fails ? KSFT_FAIL : KSFT_PASS;
}

static void set_oom_adj(const char *val)
{
	write_str("/proc/self/oom_score_adj", val);
}

static int hog(void)
{
	const size_t chunk = 4 << 20;

	set_oom_adj("1000\n");
	for (;;) {
		char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			/* Address space is not the limit: keep faulting. */
			usleep(1000);
			continue;
		}
		for (size_t off = 0; off < chunk; off += 4096)
			p[off] = (char)off | 1;
	}
	return 0;
}

/* Is the guest still usable? fork, exec, a pipe round trip. */
static int responsive(double timeout)
{
	double t0 = now();
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 0;
	if (pid == 0) {
		execl("/bin/busybox", "true", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now() - t0 > timeout) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 0;
		}
		usleep(10000);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int test_oom(int rounds)
{
	const double limit = 90.0;
	int fails = 0;

	set_oom_adj("-1000\n");
	for (int i = 1; i <= rounds; i++) {
		unsigned long kills0 = vmstat("oom_kill");
		double t0 = now();
		int status = 0;
		pid_t pid, w;

		pid = fork();
		if (pid < 0) {
			ksft_print_msg("round %d: fork: %s\n", i, strerror(errno));
			return KSFT_FAIL;
		}
		if (pid == 0)
			_exit(hog());
		while ((w = waitpid(pid, &status, WNOHANG)) == 0) {
			if (now() - t0 > limit)
				break;
			usleep(20000);
		}
		if (w == 0) {
			ksft_print_msg("round %d: hog still alive after %.0fs: no OOM kill (livelock?)\n",
				       i, limit);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fails++;
			break;
		}
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
			ksft_print_msg("round %d: hog ended with status 0x%x, not SIGKILL\n",
				       i, status);
			fails++;
			continue;
		}
		if (vmstat("oom_kill") <= kills0) {
			ksft_print_msg("round %d: hog SIGKILLed but oom_kill did not move\n", i);
			fails++;
			continue;
		}
		if (!responsive(30.0)) {
			ksft_print_msg("round %d: guest not responsive after the kill\n", i);
			fails++;
			break;
		}
		ksft_print_msg("round %d: OOM-killed after %.1fs, guest responsive\n",
			       i, now() - t0);
		fflush(stdout);
	}
	return fails ? KSFT_FAIL : KSFT_PASS;
}

/*
 * A fragmenting load without OOM: anonymous memory, pipes and page
 * tables interleaved, so that unmovable and movable allocations compete.
 */
static int pollute(int secs)
{
	const size_t anon = 8 << 20;
	double end = now() + secs;
	int pipes[64][2];
	int np = 0;
	char buf[4096];

	memset(buf, 0x5a, sizeof(buf));
	while (now() < end) {
		char *p = mmap(NULL, anon, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *sparse;

		if (p == MAP_FAILED)
			return KSFT_FAIL;
		madvise(p, anon, MADV_NOHUGEPAGE);
		for (size_t off = 0; off < anon; off += 4096)
			p[off] = 1;
		/* page tables: one touch per 2M of a sparse area */
		sparse = mmap(NULL, 64 << 21, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (sparse != MAP_FAILED) {
			for (size_t off = 0; off < (64UL << 21); off += 1 << 21)
				sparse[off] = 1;
		}
		if (np < 64 && pipe2(pipes[np], O_NONBLOCK) == 0) {
			while (write(pipes[np][1], buf, sizeof(buf)) > 0)
				;
			np++;
		}
		munmap(p, anon);
		if (sparse != MAP_FAILED)
			munmap(sparse, 64 << 21);
	}
	for (int i = 0; i < np; i++) {
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	return KSFT_PASS;
}

/* Hold MB of anonymous memory (no swap in the test guest) until killed. */
static int ballast(long mb)
{
	size_t len = (size_t)mb << 20;
	char *p;

	set_oom_adj("-1000\n");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return KSFT_FAIL;
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0x11, len);
	ksft_print_msg("ballast: %ld MB held\n", mb);
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "sysctl"))
		return test_sysctl();
	if (argc >= 3 && !strcmp(argv[1], "oom"))
		return test_oom(atoi(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "hog"))
		return hog();
	if (argc >= 3 && !strcmp(argv[1], "ballast"))
		return ballast(atol(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "pollute"))
		return pollute(atoi(argv[2]));
	fprintf(stderr, "usage: dmtest sysctl|oom N|hog|pollute SECS|ballast MB\n");
	return KSFT_FAIL;
}
