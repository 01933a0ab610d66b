#!/usr/bin/env bash
# make test-scripts: the tests of the repository's own scripts
# (the Python unit tests scripts/test/tools.py, scripts/test/test_*.py and
# checks/test/*.py, then scripts/test/*.sh, each TAP). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
mkdir -p "$OUT/test-scripts"
# none may be left from a run before this one
rm -f "$OUT/test-scripts"/*.tap "$OUT/test-scripts/all.ktap"
# all.ktap, what make check reads: KTAP, one subtest per script (its TAP
# indented), "not ok" for a script that failed or printed no result
body=$(mktemp)
trap 'rm -f "$body"' EXIT
i=0
pass=0 fail=0
# The unit tests of the Python tools (tools.py, test_*.py) and of the
# checks (fixtures, seconds) come first: the shell tests below take minutes.
# MM_TESTS=unit runs only those (make check's first step), MM_TESTS=shell
# only the shell tests.
units=("$REPO"/scripts/test/tools.py "$REPO"/scripts/test/test_*.py "$REPO"/checks/test/*.py)
shells=("$REPO"/scripts/test/*.sh)
case ${MM_TESTS:-all} in
unit) list=("${units[@]}") ;;
shell) list=("${shells[@]}") ;;
all) list=("${units[@]}" "${shells[@]}") ;;
*) die "MM_TESTS=$MM_TESTS: unit, shell or all" ;;
esac
for t in "${list[@]}"; do
	[ -f "$t" ] || continue    # (a pattern that matched nothing)
	name=$(basename "$t"); name=${name%.*}
	[ "$name" = sandbox ] && continue
	# MM_SKIP_TESTS="name ...": scripts left out (make check leaves out the
	# demo round trip, as it runs roundtrip.sh on every real topic).
	case " ${MM_SKIP_TESTS:-} " in
	*" $name "*) printf '  skip %-16s (MM_SKIP_TESTS)\n' "$name" >&2; continue ;;
	esac
	start=$(date +%s)
	# A failing test script exits non-zero: counted below, the next still runs.
	rc=0
	case $t in
	*.py) /usr/bin/python3 "$t" > "$OUT/test-scripts/$name.tap" 2>&1 || rc=$? ;;
	*) bash "$t" > "$OUT/test-scripts/$name.tap" 2>&1 || rc=$? ;;
	esac
	p=$(grep -c '^ok ' "$OUT/test-scripts/$name.tap" || true)
	f=$(grep -c '^not ok ' "$OUT/test-scripts/$name.tap" || true)
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$OUT/test-scripts/$name.tap" | tail -1)
	# A script that crashed counts as failed whatever it printed before:
	# no result, no plan, fewer results than its plan, or an exit status
	# other than pass (0) or all skipped (4, KSFT_SKIP).
	why=
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then why="no result"
	elif [ -z "$plan" ]; then why="no plan, after $((p + f)) results"
	elif [ "$plan" != $((p + f)) ]; then why="after $((p + f)) of $plan results"
	fi
	case $rc in 0|4) ;; *) [ "$f" -gt 0 ] || why="${why:+$why, }exit status $rc" ;; esac
	pass=$((pass + p)); fail=$((fail + f))
	[ -z "$why" ] || fail=$((fail + 1))
	verdict=$([ "$f" = 0 ] && [ -z "$why" ] && echo ok || echo 'not ok')
	i=$((i + 1))
	{ printf '    # Subtest: %s\n' "$name"; sed 's/^/    /' "$OUT/test-scripts/$name.tap"
	  printf '%s %d %s%s\n' "$verdict" $i "$name" "${why:+ # $why}"; } >> "$body"
	printf '  %-4s %-16s %3d ok %3d not ok  %4ss%s\n' "$([ "$verdict" = ok ] && echo pass || echo FAIL)" "$name" "$p" "$f" $(( $(date +%s) - start )) "${why:+  ($why)}" >&2
	grep '^not ok' "$OUT/test-scripts/$name.tap" | sed 's/^/    /' >&2 || true
done
{ printf 'KTAP version 1\n1..%d\n' $i; cat "$body"; } > "$OUT/test-scripts/all.ktap"
echo "test-scripts: $pass passed, $fail failed"
[ $fail = 0 ]
