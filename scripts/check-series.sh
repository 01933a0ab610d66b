#!/usr/bin/env bash
# make check-series [TOPIC=t]: run every check in checks/ on a topic (default:
# all) and print one table per topic, a row per check and a column per
# patch. Exit non-zero when any check fails.
. "$(dirname "$0")/lib.sh"
CHECKS=${CHECKS:-"apply signoff whitespace checkpatch kernel-doc build sparse coccinelle cover-letter"}
topics=${1:-$TOPICS}
for t in $topics; do check_topic "$t"; done
bash "$REPO/scripts/base.sh" >/dev/null
total_fail=0
for t in $topics; do
	np=$(ls "$REPO/branches/$t"/*.patch 2>/dev/null | wc -l)
	say "check-series: $t ($np patches)"
	mkdir -p "$OUT/checks/$t"
	for c in $CHECKS; do
		[ -t 2 ] && [ -z "${CI:-}" ] && printf '  %-13s ...\r' "$c" >&2
		start=$(date +%s)
		if line=$(bash "$REPO/checks/$c" "$t" 2>>"$OUT/checks/$t.stderr"); then st=pass; else st=FAIL; total_fail=$((total_fail + 1)); fi
		printf '  %-4s %-13s %4ss  %s\n' "$st" "$c" $(( $(date +%s) - start )) "$line" >&2
		[ "$st" = FAIL ] && [ "$c" = apply ] && break
	done
	/usr/bin/python3 "$REPO/scripts/check-table.py" "$t" "$np" $CHECKS
done
[ $total_fail = 0 ] || { say "check-series: $total_fail checks failed"; exit 1; }
say "check-series: all checks passed"
