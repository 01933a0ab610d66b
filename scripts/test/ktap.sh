#!/usr/bin/env bash
# Tests of scripts/ktap.sh, the shell KTAP helper (TAP). <1 s.
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
ktap_exit
