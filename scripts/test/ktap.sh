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
