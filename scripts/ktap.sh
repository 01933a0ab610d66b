# shellcheck shell=bash
# KTAP results for the tooling's shell tests and scripts/roundtrip.sh: the
# one place that numbers results and prints their lines. Sourced.
#
#   ok WHAT...          "ok N - WHAT"
#   notok WHAT...       "not ok N - WHAT"
#   skip WHAT REASON    "ok N - WHAT # SKIP REASON"
#   diag [FILE...]      each line of the FILEs (or stdin) as "# line"
#   ktap_plan [N]       "1..N"; without N, the number of results so far
#                       (a plan at the end, when the count is not known up
#                       front)
#   ktap_status         the exit status kselftest gives such a run:
#                       KSFT_FAIL if a result failed, KSFT_SKIP if every
#                       result was a skip, else KSFT_PASS
#   ktap_exit           ktap_plan, then exit with ktap_status
#
# ktap_n, ktap_fails and ktap_skips count the results so far.
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
ktap_n=0 ktap_fails=0 ktap_skips=0

ok()    { ktap_n=$((ktap_n + 1)); echo "ok $ktap_n - $*"; }
notok() { ktap_n=$((ktap_n + 1)); ktap_fails=$((ktap_fails + 1)); echo "not ok $ktap_n - $*"; }
skip()  { ktap_n=$((ktap_n + 1)); ktap_skips=$((ktap_skips + 1)); echo "ok $ktap_n - $1 # SKIP ${2:-}"; }
diag()  { sed 's/^/# /' "$@"; }
ktap_plan() { echo "1..${1:-$ktap_n}"; }

ktap_status() {
	if [ "$ktap_fails" -gt 0 ]; then return $KSFT_FAIL; fi
	if [ "$ktap_n" -gt 0 ] && [ "$ktap_skips" -eq "$ktap_n" ]; then return $KSFT_SKIP; fi
	return $KSFT_PASS
}

ktap_exit() {
	local rc=0
	ktap_plan
	ktap_status || rc=$?
	exit "$rc"
}
