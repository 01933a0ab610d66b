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
. "$REPO/scripts/ktap.sh"
total_fail=0
has() { case " $CHECKS " in *" $1 "*) return 0 ;; esac; return 1; }
# run_check T C [START]: one check. Its output (diagnostics and its one
# KTAP result line) is kept in out/checks/<topic>/<check>.ktap.
run_check() {
	local t=$1 c=$2 start=${3:-$(date +%s)} rc=0
	[ -t 2 ] && [ -z "${CI:-}" ] && printf '  %-13s ...\r' "$c" >&2
	bash "$REPO/checks/$c" "$t" > "$OUT/checks/$t/$c.ktap" 2>>"$OUT/checks/$t.stderr" || rc=$?
	take "$c" "$rc" "$start"
}
# take C RC START: the check's result line, numbered in the topic's
# checks.ktap (ktap_take: a missing line, or one its exit status
# contradicts, is a failure), and its line of the table: the reason of a
# failure or skip, else the check's last diagnostic (its summary).
take() {
	local c=$1 st=0 why
	ktap_take "$c" "$2" "$OUT/checks/$t/$c.ktap" >> "$body" || st=$?
	case $st in
	0) why=$(sed -n 's/^# //p' "$OUT/checks/$t/$c.ktap" | tail -1) ;;
	*) why=${ktap_took#"$c"}; why=${why# # } ;;
	esac
	[ $st = 1 ] && total_fail=$((total_fail + 1))
	printf '  %-4s %-13s %4ss  %s\n' "$(case $st in 0) echo pass ;; 4) echo skip ;; *) echo FAIL ;; esac)" \
		"$c" $(( $(date +%s) - $3 )) "$why" >&2
	[ $st != 1 ]
}
# the topic's checks.ktap: what make check reads
write_ktap() { { echo "KTAP version 1"; ktap_plan; cat "$body"; } > "$OUT/checks/$1/checks.ktap"; }
body=$(mktemp)
trap 'rm -f "$body"' EXIT
# join_build T: wait for the background build check, then its result.
join_build() {
	wait "$bg" || true
	bg=
	take build "$(cat "$OUT/checks/$1/build.rc" 2>/dev/null || echo none)" "$bstart" || true
}
for t in $topics; do
	np=$(ls "$REPO/branches/$t"/*.patch 2>/dev/null | wc -l)
	say "check-series: $t ($np patches)"
	mkdir -p "$OUT/checks/$t"
	rm -f "$OUT/checks/$t/checks.ktap" "$OUT/checks/$t"/*.ktap
	: > "$body"; ktap_n=0 ktap_fails=0 ktap_skips=0
	rest=$CHECKS bg=
	if has apply; then
		rest=$(echo " $CHECKS " | sed 's/ apply / /')
		run_check "$t" apply || { write_ktap "$t"; /usr/bin/python3 "$REPO/scripts/check-table.py" "$t" "$np" $CHECKS; continue; }
	fi
	if has build && [ "${CHECK_BG:-1}" != 0 ]; then
		# The scratch tree every check reads is made before the checks
		# share it.
		bash "$REPO/scripts/at-patch.sh" "$t" "$np" >/dev/null 2>>"$OUT/checks/$t.stderr" || true
		bstart=$(date +%s)
		rm -f "$OUT/checks/$t/build.rc"
		( rc=0; bash "$REPO/checks/build" "$t" > "$OUT/checks/$t/build.ktap" 2>>"$OUT/checks/$t.stderr" || rc=$?
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
	write_ktap "$t"
	/usr/bin/python3 "$REPO/scripts/check-table.py" "$t" "$np" $CHECKS
done
[ $total_fail = 0 ] || { say "check-series: $total_fail checks failed"; exit 1; }
say "check-series: all checks passed"
