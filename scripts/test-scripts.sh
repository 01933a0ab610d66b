#!/usr/bin/env bash
# make test-scripts: the tests of the repository's own scripts
# (scripts/test/tools.py, then scripts/test/*.sh, each TAP). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
mkdir -p "$OUT/test-scripts"
# make check counts every .tap here: none may be left from an earlier run
rm -f "$OUT/test-scripts"/*.tap
pass=0 fail=0
# The Python tools' unit tests (fixtures, about a second) come first: the
# shell tests below take minutes.
for t in "$REPO"/scripts/test/tools.py "$REPO"/scripts/test/*.sh; do
	name=$(basename "$t"); name=${name%.*}
	[ "$name" = sandbox ] && continue
	# MM_SKIP_TESTS="name ...": scripts left out (make check leaves out the
	# demo round trip, as it runs roundtrip.sh on every real topic).
	case " ${MM_SKIP_TESTS:-} " in
	*" $name "*) printf '  skip %-16s (MM_SKIP_TESTS)\n' "$name" >&2; continue ;;
	esac
	start=$(date +%s)
	# A failing test script exits non-zero: counted below, the next still runs.
	case $t in
	*.py) /usr/bin/python3 "$t" > "$OUT/test-scripts/$name.tap" 2>&1 || true ;;
	*) bash "$t" > "$OUT/test-scripts/$name.tap" 2>&1 || true ;;
	esac
	p=$(grep -c '^ok ' "$OUT/test-scripts/$name.tap" || true)
	f=$(grep -c '^not ok ' "$OUT/test-scripts/$name.tap" || true)
	pass=$((pass + p)); fail=$((fail + f))
	printf '  %-4s %-16s %3d ok %3d not ok  %4ss\n' "$([ "$f" = 0 ] && [ "$p" -gt 0 ] && echo pass || echo FAIL)" "$name" "$p" "$f" $(( $(date +%s) - start )) >&2
	[ "$p" -gt 0 ] || fail=$((fail + 1))
	grep '^not ok' "$OUT/test-scripts/$name.tap" | sed 's/^/    /' >&2 || true
done
echo "test-scripts: $pass passed, $fail failed"
[ $fail = 0 ]
