#!/usr/bin/env bash
# Tests of scripts/ktap.sh, the shell KTAP helper (TAP), and of ktap_take,
# how a check's one result line is read. <1 s.
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
. "$S/ktap.sh"
# run BODY: the output and exit status of BODY in a fresh shell that sources ktap.sh
run() { bash -c '. "$1"; eval "$2"' _ "$S/ktap.sh" "$1" 2>&1; echo "rc=$?"; }
expect() { # expect WHAT BODY WANT
	local got
	got=$(run "$2")
	if [ "$got" = "$3" ]; then ok "$1"; else notok "$1"; printf '%s\n' "$got" | diag; fi
}
nl=$'\n'
expect "ok and notok number the results; a failure exits KSFT_FAIL (1)" \
	'ok a; notok b c; ktap_exit' "ok 1 - a${nl}not ok 2 - b c${nl}1..2${nl}rc=1"
expect "all passed exits KSFT_PASS (0)" 'ok a; ok b; ktap_exit' "ok 1 - a${nl}ok 2 - b${nl}1..2${nl}rc=0"
expect "skip is 'ok N - WHAT # SKIP REASON'; all skipped exits KSFT_SKIP (4)" \
	'skip a "no b4"; ktap_exit' "ok 1 - a # SKIP no b4${nl}1..1${nl}rc=4"
expect "a skip among passes exits KSFT_PASS (0)" 'ok a; skip b why; ktap_exit' "ok 1 - a${nl}ok 2 - b # SKIP why${nl}1..2${nl}rc=0"
expect "diag prefixes stdin lines with '# '" 'printf "x\ny\n" | diag' "# x${nl}# y${nl}rc=0"
expect "ktap_plan N prints 1..N up front" 'ktap_plan 3' "1..3${nl}rc=0"
expect "no result at all: the plan is 1..0, KSFT_PASS" 'ktap_exit' "1..0${nl}rc=0"
expect "skip without a reason is 'ok N - WHAT # SKIP', no space after" 'skip a' "ok 1 - a # SKIP${nl}rc=0"
expect "verdict RC WHAT: ok on 0, not ok on anything else" \
	'verdict 0 a b; verdict 1 c; verdict 139 d' "ok 1 - a b${nl}not ok 2 - c${nl}not ok 3 - d${nl}rc=0"
expect "ktap_header: TAP version 13 (as kselftest.h's), with 1: KTAP version 1" \
	'ktap_header; ktap_header 1' "TAP version 13${nl}KTAP version 1${nl}rc=0"
expect "ktap_subtest/ktap_subtest_end frame a topic: its result line names it, a failure its exit status" \
	'ktap_subtest a; ktap_subtest_end a 0; ktap_subtest b; ktap_subtest_end b 139; ktap_exit' \
	"### topic a${nl}### end a rc=0${nl}ok 1 a${nl}### topic b${nl}### end b rc=139${nl}not ok 2 b # exit status 139${nl}1..2${nl}rc=1"
# The guest sources the same file under busybox's ash: every function
# prints there what it prints under bash.
all='ktap_header 1; ktap_plan 7; ok a b; notok c; skip d; skip e "why not"; verdict 0 f; verdict 3 g
printf "x\n y\n" | diag; ktap_subtest t; ktap_subtest_end t 0
f=$(mktemp); printf "# c said\nok 1 - c # SKIP x\n" > $f; ktap_take c 4 $f; echo took=$?; rm -f $f; ktap_exit'
if command -v busybox >/dev/null; then
	got=$(busybox sh -c '. "$1"; eval "$2"' _ "$S/ktap.sh" "$all" 2>&1; echo "rc=$?")
	want=$(run "$all")
	if [ "$got" = "$want" ]; then ok "busybox sh prints what bash prints, every function"
	else notok "busybox sh prints what bash prints, every function"; diff <(echo "$want") <(echo "$got") | diag; fi
else
	skip "busybox sh prints what bash prints, every function" "no busybox on this host"
fi
# take OUTPUT RC: ktap_take of a check "c" that printed OUTPUT and exited RC,
# after one result of this run (so the check's is numbered 2), and its status
take() { local f; f=$(mktemp); printf "$1" > "$f"; run "ok first; ktap_take c $2 '$f'; echo took=\$?"; rm -f "$f"; }
expect_take() { # WHAT OUTPUT RC WANT
	local got
	got=$(take "$2" "$3")
	if [ "$got" = "$4" ]; then ok "$1"; else notok "$1"; printf '%s\n' "$got" | diag; fi
}
first="ok 1 - first${nl}"
expect_take "ktap_take: a passed check's diagnostics, then its line numbered here" \
	'# c: 3 patches\nok 1 - c\n' 0 "${first}# c: 3 patches${nl}ok 2 - c${nl}took=0${nl}rc=0"
expect_take "ktap_take: a failed check's line keeps its reason" \
	'not ok 1 - c # 2 problems\n' 1 "${first}not ok 2 - c # 2 problems${nl}took=1${nl}rc=0"
expect_take "ktap_take: a skipped check (KSFT_SKIP) stays a skip" \
	'ok 1 - c # SKIP no series\n' 4 "${first}ok 2 - c # SKIP no series${nl}took=4${nl}rc=0"
expect_take "ktap_take: 'ok' with exit status 1 fails" \
	'ok 1 - c\n' 1 "${first}not ok 2 - c # exit status 1, but its result line is 'ok 1 - c'${nl}took=1${nl}rc=0"
expect_take "ktap_take: 'not ok' with exit status 0 fails" \
	'not ok 1 - c # x\n' 0 "${first}not ok 2 - c # exit status 0, but its result line is 'not ok 1 - c # x'${nl}took=1${nl}rc=0"
expect_take "ktap_take: no result line fails, other output kept as diagnostics" \
	'c: all fine\n' 0 "${first}# c: all fine${nl}not ok 2 - c # no result line (exit status 0)${nl}took=1${nl}rc=0"
expect_take "ktap_take: two result lines fail" \
	'ok 1 - c\nok 2 - c\n' 0 "${first}not ok 2 - c # 2 result lines (exit status 0)${nl}took=1${nl}rc=0"
expect_take "ktap_take: a line that names another test fails" \
	'ok 1 - other\n' 0 "${first}not ok 2 - c # its result line names another test: other${nl}took=1${nl}rc=0"
ktap_exit
