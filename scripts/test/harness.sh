#!/usr/bin/env bash
# make test-scripts itself (KTAP): a test script that crashes, stops short
# of its plan or prints no plan fails the run, whatever it printed before;
# one that passes or skips (KSFT_SKIP) does not. Runs test-scripts.sh on a
# throw-away repository of stub tests.
set -u
# make check runs this script with MM_TESTS=shell and MM_SKIP_TESTS set
# for its own run of test-scripts.sh: the run below chooses for itself.
unset MM_TESTS MM_SKIP_TESTS
S=$(cd "$(dirname "$0")/.." && pwd)
. "$S/ktap.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/repo/scripts/test" "$T/repo/branches/medley"
cp "$S/test-scripts.sh" "$S/lib.sh" "$T/repo/scripts/"
echo demo > "$T/repo/branches/medley/order"
stub() { printf '%s\n' "$2" > "$T/repo/scripts/test/$1"; }
stub tools.py 'print("ok 1 - py"); print("1..1")'
stub test_x.py 'print("ok 1 - py"); print("1..1")'
stub crash.sh 'echo "ok 1 - a"; echo "ok 2 - b"; exit 139'
stub short.sh 'echo "1..3"; echo "ok 1 - a"'
stub good.sh 'echo "ok 1 - a"; echo "1..1"'
stub skip.sh 'echo "ok 1 - a # SKIP nothing to do"; echo "1..1"; exit 4'
stub failed.sh 'echo "not ok 1 - a"; echo "1..1"; exit 1'
mkdir -p "$T/repo/checks/test"
printf '%s\n' 'print("ok 1 - a series check"); print("1..1")' > "$T/repo/checks/test/series_checks.py"
MM_OUT=$T/out MM_CACHE=$T/cache bash "$T/repo/scripts/test-scripts.sh" > "$T/o" 2>&1
rc=$?
k=$T/out/test-scripts/all.ktap
[ "$rc" != 0 ] && ok "a run with a crashed script fails" || notok "a run with a crashed script passed (rc $rc)"
grep -qx 'not ok [0-9]* crash # no plan, after 2 results, exit status 139' "$k" && ok "a crash is named with its results and exit status" || { notok "crash line"; diag "$k"; }
grep -qx 'not ok [0-9]* short # after 1 of 3 results' "$k" && ok "a script short of its plan fails" || { notok "short line"; diag "$k"; }
grep -qx 'ok [0-9]* good' "$k" && grep -qx 'ok [0-9]* skip' "$k" && grep -qx 'ok [0-9]* tools' "$k" && ok "passing and skipped scripts pass" || { notok "good, skip, tools"; diag "$k"; }
sed -n 's/^ok \([0-9]*\) \(tools\|test_x\|series_checks\|crash\)$/\2/p; s/^not ok [0-9]* \(crash\) .*/\1/p' "$k" | tr '\n' ' ' > "$T/order"
[ "$(cat "$T/order")" = "tools test_x series_checks crash " ] && ok "the unit tests (tools.py, test_*.py, checks/test/*.py) run first, then the shell tests" ||
	{ notok "order: $(cat "$T/order")"; diag "$k"; }
grep -qx 'not ok [0-9]* failed' "$k" && ok "a failed result fails its script" || { notok "failed line"; diag "$k"; }
grep -q '^test-scripts: 8 passed, 3 failed$' "$T/o" && ok "the summary counts a crash and a short script as failures" || { notok "summary"; diag "$T/o"; }
ktap_exit
