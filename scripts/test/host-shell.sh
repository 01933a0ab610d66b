#!/usr/bin/env bash
# make shell HOST=1 (TAP): base's host variant boots with the host's root
# file system read-only over 9p, and the shell it gives runs a host binary
# (perl, which the guest's initramfs does not have) and cannot write it.
# Runs with MM_HOST_TEST=1 only (skipped otherwise): it needs base's host
# variant (MM_VARIANT=host, guest/host.config), whose first build is a cold
# kernel build that make check's test-scripts step must not start.
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
. "$S/lib.sh"
set +e
echo "TAP version 13"
if [ -z "${MM_HOST_TEST:-}" ]; then
	echo "ok 1 - host shell # SKIP MM_HOST_TEST=1 runs it (builds base+host the first time)"
	echo "1..1"; exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
/usr/bin/python3 - "$S/boot.sh" "$T" <<'PY'
import os, subprocess, sys, time
boot, tmp = sys.argv[1], sys.argv[2]
env = dict(os.environ, MM_HOST="1")
p = subprocess.Popen(["bash", boot, "base", "shell"], env=env, stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
log = open(os.path.join(tmp, "console"), "wb")
buf = b""
def until(marker, secs):
    # a hang, not a slow machine, is what the generous limit is for
    global buf
    end = time.time() + secs
    if marker in buf:
        return True
    os.set_blocking(p.stdout.fileno(), False)
    while time.time() < end:
        chunk = p.stdout.read(4096)
        if chunk:
            log.write(chunk); buf += chunk
            if marker in buf:
                return True
        elif p.poll() is not None:
            return marker in buf
        else:
            time.sleep(0.1)
    return False
n = fails = 0
def tap(good, what):
    global n, fails
    n += 1
    fails += not good
    print(("ok" if good else "not ok") + f" {n} - {what}", flush=True)
# (every shell prints the first line; without the host's root the second
# never comes, and the test fails rather than waits for it)
until(b"'exit' leaves", 3600)
tap(until(b"host's root file system", 600), "the guest mounts the host's root over 9p and starts the shell in it")
# (the markers are computed in the guest, so the echo of the command is no match)
p.stdin.write(b"/usr/bin/perl -e 'print \"PERL-\", 6*7, \"-RUNS\\n\"'\n"
              b"touch /usr/medley-ro-test 2>/dev/null && echo RO-NOT || echo RO-$((6*7))-OK\n"
              b"uname -r | sed 's/^/GUEST-KERNEL-/'\n"
              b"exit\n")
p.stdin.flush()
tap(until(b"PERL-42-RUNS", 600), "the host's /usr/bin/perl runs in the guest")
tap(until(b"RO-42-OK", 600), "the host's root is read-only in the guest")
until(b"MEDLEY-DONE", 600)
p.stdin.close()
try:
    p.wait(120)
except subprocess.TimeoutExpired:
    p.kill()
tap(b"GUEST-KERNEL-6.12.118" in buf, "the shell ran on the guest's kernel (6.12.118)")
print(f"1..{n}")
sys.exit(1 if fails else 0)
PY
