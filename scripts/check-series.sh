#!/usr/bin/env bash
# make check-series [TOPIC=t]: run every check in checks/ on a topic (default:
# all) and print one table per topic, a row per check and a column per
# patch. Exit non-zero when any check fails.
# Once the series applies, the build check (two cores) runs in the
# background while the single-threaded checks (checkpatch, coccinelle, ...)
# run beside it; sparse, which reads the build's objects, waits for it.
# CHECK_BG=0 runs every check in turn.
. "$(dirname "$0")/lib.sh"
CHECKS=${CHECKS:-"apply signoff whitespace checkpatch kernel-doc build sparse build-configs coccinelle cover-letter"}
topics=${1:-$TOPICS}
for t in $topics; do check_topic "$t"; done
bash "$REPO/scripts/base.sh" >/dev/null
total_fail=0
has() { case " $CHECKS " in *" $1 "*) return 0 ;; esac; return 1; }
# run_check T C [START]: one check, its line in the table's order of events
run_check() {
	local t=$1 c=$2 start=${3:-$(date +%s)} line st
	[ -t 2 ] && [ -z "${CI:-}" ] && printf '  %-13s ...\r' "$c" >&2
	if line=$(bash "$REPO/checks/$c" "$t" 2>>"$OUT/checks/$t.stderr"); then st=pass; else st=FAIL; fi
	show "$c" "$st" "$start" "$line"
	[ $st = pass ]
}
show() { # check status start line
	[ "$2" = FAIL ] && total_fail=$((total_fail + 1))
	printf '  %-4s %-13s %4ss  %s\n' "$2" "$1" $(( $(date +%s) - $3 )) "$4" >&2
	# (check-table.py makes checks.ktap of these, what make check reads)
	printf '%s\t%s\t%s\n' "$2" "$1" "$4" >> "$OUT/checks/$t/verdicts.tsv"
}
# join_build T: wait for the background build check, then its line.
join_build() {
	wait "$bg" || true
	bg=
	show build "$([ "$(cat "$OUT/checks/$1/build.rc" 2>/dev/null)" = 0 ] && echo pass || echo FAIL)" \
		"$bstart" "$(cat "$OUT/checks/$1/build.line" 2>/dev/null)"
}
for t in $topics; do
	np=$(ls "$REPO/branches/$t"/*.patch 2>/dev/null | wc -l)
	say "check-series: $t ($np patches)"
	mkdir -p "$OUT/checks/$t"
	rm -f "$OUT/checks/$t/verdicts.tsv" "$OUT/checks/$t/checks.ktap"
	rest=$CHECKS bg=
	if has apply; then
		rest=$(echo " $CHECKS " | sed 's/ apply / /')
		run_check "$t" apply || { /usr/bin/python3 "$REPO/scripts/check-table.py" "$t" "$np" $CHECKS; continue; }
	fi
	if has build && [ "${CHECK_BG:-1}" != 0 ]; then
		# The scratch tree every check reads is made before the checks
		# share it.
		bash "$REPO/scripts/at-patch.sh" "$t" "$np" >/dev/null 2>>"$OUT/checks/$t.stderr" || true
		bstart=$(date +%s)
		rm -f "$OUT/checks/$t/build.rc" "$OUT/checks/$t/build.line"
		( rc=0; bash "$REPO/checks/build" "$t" > "$OUT/checks/$t/build.line" 2>>"$OUT/checks/$t.stderr" || rc=$?
		  echo $rc > "$OUT/checks/$t/build.rc" ) &
		bg=$!
		rest=$(echo " $rest " | sed 's/ build / /')
	fi
	# sparse and build-configs last: they wait for the build
	[ -n "$bg" ] && has sparse && rest="$(echo " $rest " | sed 's/ sparse / /') sparse"
	[ -n "$bg" ] && has build-configs && rest="$(echo " $rest " | sed 's/ build-configs / /') build-configs"
	for c in $rest; do
		if [ -n "$bg" ] && { [ "$c" = sparse ] || [ "$c" = build-configs ]; }; then join_build "$t"; fi
		run_check "$t" "$c" || true
	done
	if [ -n "$bg" ]; then join_build "$t"; fi
	/usr/bin/python3 "$REPO/scripts/check-table.py" "$t" "$np" $CHECKS
done
[ $total_fail = 0 ] || { say "check-series: $total_fail checks failed"; exit 1; }
say "check-series: all checks passed"
