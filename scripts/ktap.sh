# shellcheck shell=sh disable=SC3043
# KTAP results, the one place that numbers results and prints their lines:
# for the tooling's shell tests, the checks and scripts/roundtrip.sh on the
# host, and for the guest's /init and every topic's tests, which find it
# at /lib/ktap.sh in the initramfs (scripts/initramfs.sh). Sourced; plain
# sh and "local" (bash, dash and busybox's ash, the guest's shell).
#
#   ktap_header [1]     "TAP version 13", the header kselftest.h's
#                       ksft_print_header() prints (the topics' tests and
#                       the kernel's C selftests in the guest print this);
#                       with 1: "KTAP version 1"
#   ok WHAT...          "ok N - WHAT"
#   notok WHAT...       "not ok N - WHAT"
#   skip WHAT [REASON]  "ok N - WHAT # SKIP REASON"
#   verdict RC WHAT...  ok WHAT when RC is 0, else notok WHAT
#   diag [FILE...]      each line of the FILEs (or stdin) as "# line"
#   ktap_plan [N]       "1..N"; without N, the number of results so far
#                       (a plan at the end, when the count is not known up
#                       front)
#   ktap_subtest NAME   "### topic NAME": the header of a subtest in the
#                       guest's results stream, whose lines follow indented
#                       by four (scripts/results.py reads it, as it reads
#                       KUnit's "# Subtest: NAME")
#   ktap_subtest_end NAME RC
#                       "### end NAME rc=RC", then the subtest's result
#                       line, "ok N NAME" when RC is 0, else
#                       "not ok N NAME # exit status RC"
#   ktap_status         the exit status kselftest gives such a run:
#                       KSFT_FAIL if a result failed, KSFT_SKIP if every
#                       result was a skip, else KSFT_PASS
#   ktap_exit           ktap_plan, then exit with ktap_status
#   ktap_take NAME RC FILE
#                       the one result of a check (checks/NAME, which
#                       printed FILE and exited RC) as a result of this
#                       run: FILE's diagnostic lines, then its result line
#                       numbered here. "not ok N - NAME # why" instead when
#                       FILE has no result line or more than one, the line
#                       names another test, or it disagrees with RC (ok: 0,
#                       ok # SKIP: 4, not ok: 1). Returns 0 (ok), 4 (skip)
#                       or 1; ktap_took is the line's text after "ok N - ".
#
# ktap_n, ktap_fails and ktap_skips count the results so far.
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
ktap_n=0 ktap_fails=0 ktap_skips=0

ok()    { ktap_n=$((ktap_n + 1)); echo "ok $ktap_n - $*"; }
notok() { ktap_n=$((ktap_n + 1)); ktap_fails=$((ktap_fails + 1)); echo "not ok $ktap_n - $*"; }
skip()  { ktap_n=$((ktap_n + 1)); ktap_skips=$((ktap_skips + 1)); echo "ok $ktap_n - $1 # SKIP${2:+ $2}"; }
verdict() {
	if [ "$1" = 0 ]; then shift; ok "$@"; else shift; notok "$@"; fi
}
diag()  { sed 's/^/# /' "$@"; }
ktap_header() { if [ "${1:-}" = 1 ]; then echo "KTAP version 1"; else echo "TAP version 13"; fi; }
ktap_plan() { echo "1..${1:-$ktap_n}"; }

ktap_subtest() { echo "### topic $1"; }
ktap_subtest_end() {
	echo "### end $1 rc=$2"
	ktap_n=$((ktap_n + 1))
	if [ "$2" = 0 ]; then echo "ok $ktap_n $1"
	else ktap_fails=$((ktap_fails + 1)); echo "not ok $ktap_n $1 # exit status $2"; fi
}

ktap_status() {
	if [ "$ktap_fails" -gt 0 ]; then return $KSFT_FAIL; fi
	if [ "$ktap_n" -gt 0 ] && [ "$ktap_skips" -eq "$ktap_n" ]; then return $KSFT_SKIP; fi
	return $KSFT_PASS
}

ktap_take() {
	local name=$1 rc=$2 file=$3 res n want
	res='^(not )?ok [0-9]+( |$)'
	n=$(grep -cE "$res" "$file" 2>/dev/null || true); n=${n:-0}
	# everything else the check printed, as diagnostics
	{ grep -vE "$res" "$file" 2>/dev/null || true; } | sed '/^#/!s/^/# /'
	ktap_took=$(grep -E "$res" "$file" 2>/dev/null | sed -E 's/^(not )?ok [0-9]+ ?(- )?//' || true)
	case $n in
	1) ;;
	0) ktap_took="$name # no result line (exit status $rc)"; notok "$ktap_took"; return 1 ;;
	*) ktap_took="$name # $n result lines (exit status $rc)"; notok "$ktap_took"; return 1 ;;
	esac
	case $ktap_took in
	"$name"|"$name #"*) ;;
	*) ktap_took="$name # its result line names another test: $ktap_took"; notok "$ktap_took"; return 1 ;;
	esac
	want=0
	if grep -qE '^not ok ' "$file"; then want=1
	else case $ktap_took in *" # SKIP"*) want=4 ;; esac; fi
	if [ "$rc" != "$want" ]; then
		ktap_took="$name # exit status $rc, but its result line is '$(grep -E "$res" "$file")'"
		notok "$ktap_took"; return 1
	fi
	case $want in
	0) ok "$ktap_took" ;;
	1) notok "$ktap_took" ;;
	4) ktap_n=$((ktap_n + 1)); ktap_skips=$((ktap_skips + 1)); echo "ok $ktap_n - $ktap_took" ;;
	esac
	return "$want"
}

ktap_exit() {
	local rc=0
	ktap_plan
	ktap_status || rc=$?
	exit "$rc"
}
