#!/usr/bin/env bash
# make check: the whole test suite, what .ci/run runs. For every topic:
# check-series (which also builds each patch and leaves the tip built), the
# boot with its guest tests (KUnit, selftests, peer suite), the mailing-list
# round trip; then base, the peer comparison (nothing that passes on base
# fails on a topic), the medley boot, and the scripts' own tests.
# Ends with "check: N passed, N failed"; results in out/check/.
. "$(dirname "$0")/lib.sh"
topics=${CHECK_TOPICS:-$TOPICS}
mkdir -p "$CACHE"
# Builds of this run go first (see build.sh).
exec 7>"$CACHE/priority.lock"
flock 7
export MM_PRIORITY=1
res=$OUT/check
rm -rf "$res" && mkdir -p "$res"
t0=$(date +%s)
# Whether this run starts cold (no ccache yet), for the record kept below.
# (-print -quit: a find cut short by head would fail the pipe under pipefail)
cache_state=$([ -n "$(find "$CCACHE_DIR" -name '*R' -print -quit 2>/dev/null)" ] && echo warm || echo cold)
# The step times outlive the clone (CI deletes it, and may stop a run): each
# step is also appended to a file of this run in the cache, so the next
# session can read how long CI's run took and where.
mkdir -p "$CACHE/check-runs"
runfile=$CACHE/check-runs/$(date -u +%Y%m%dT%H%M%S).tsv
{ echo "# make check $(date -u '+%Y-%m-%d %H:%M UTC') commit $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null), $cache_state start"
  echo "# step	passed	failed	seconds	log"; } > "$runfile"
# Cheap steps first, so a slow kernel step cannot starve them of the budget.
steps=("test-scripts" "base")
for t in $topics; do steps+=("roundtrip $t"); done
for t in $topics; do steps+=("check-series $t" "boot $t"); done
# The peer comparison reads every boot's results, the medley's included.
steps+=("boot base" "boot medley" "peer")
total=${#steps[@]}
# checks/known-failures: "<step>  <reason>" for steps known to fail (or not
# yet proven), each with its reason. Such a step still runs and is printed
# as XFAIL (or XPASS); it does not fail the run. A step that fails and is
# not listed fails the run.
# (an empty list is normal: grep then finds nothing, which pipefail must not
# turn into the end of the run)
known() { { grep -v '^#' "$REPO/checks/known-failures" 2>/dev/null || true; } | awk -v s="$1" -F'  +' '$1 == s {print $2}'; }
# CI stops a run at 90 minutes: steps that would start after the budget are
# reported as not run (and counted as failures) rather than cut off.
budget=${MM_CHECK_BUDGET:-4500}
pass=0 fail=0 i=0 xfail=0
record() { # step passed failed log seconds
	local why
	why=$(known "$1")
	if [ -n "$why" ]; then
		if [ "$3" != 0 ]; then
			xfail=$((xfail + 1))
			printf '[%2d/%d] XFAIL %-27s %3d passed %3d failed  %5ss  known: %s\n' "$i" "$total" "$1" "$2" "$3" "$5" "$why" >&2
			printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "xfail:$3" "$5" "$4" | tee -a "$runfile" >> "$res/summary.tsv"
			pass=$((pass + $2))
			return
		fi
		say "       XPASS $1: listed in checks/known-failures but passed; remove the line"
	fi
	pass=$((pass + $2)); fail=$((fail + $3))
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$5" "$4" | tee -a "$runfile" >> "$res/summary.tsv"
	printf '[%2d/%d] %-4s %-28s %3d passed %3d failed  %5ss  (%s)\n' "$i" "$total" \
		"$([ "$3" = 0 ] && echo pass || echo FAIL)" "$1" "$2" "$3" "$5" "$4" >&2
}
tapcount() { echo "$(grep -c '^ok ' "$1" || true) $(grep -c '^not ok ' "$1" || true)"; }
for s in "${steps[@]}"; do
	i=$((i + 1))
	set -- $s
	log=$res/$(echo "$s" | tr ' ' -).log
	if [ $(( $(date +%s) - t0 )) -gt "$budget" ]; then
		record "$s" 0 1 "not run: time budget of ${budget}s spent" 0
		continue
	fi
	say "[$i/$total] $s ..."
	start=$(date +%s)
	# No step may outlive the budget: it is stopped at the end of it.
	left=$(( budget - (start - t0) ))
	export BOOT_TIMEOUT=$(( left < 1500 ? left : 1500 ))
	tmo() { timeout -k 10 "$left" "$@"; }
	case $1 in
	test-scripts)
		tmo bash "$REPO/scripts/test-scripts.sh" >"$log" 2>&1 || true
		cat "$OUT"/test-scripts/*.tap 2>/dev/null | { grep -E '^(not )?ok ' || true; } > "$res/ts.tap"
		read -r p f < <(tapcount "$res/ts.tap")
		[ $((p + f)) -gt 0 ] || f=1
		record "$s" "$p" "$f" "$log" $(( $(date +%s) - start )) ;;
	base)
		if bash "$REPO/scripts/base.sh" >"$log" 2>&1; then record "$s" 1 0 "$log" $(( $(date +%s) - start ))
		else record "$s" 0 1 "$log" $(( $(date +%s) - start )); fi ;;
	check-series)
		# Bisect builds as checks/build's BISECT=objs: the whole tip first,
		# then the series' objects at every earlier patch; keeps a cold run
		# short. BISECT=full to override.
		BISECT=${BISECT:-objs} tmo bash "$REPO/scripts/check-series.sh" "$2" >"$log" 2>&1 || true
		p=$(grep -c '^  pass ' "$log" || true); f=$(grep -c '^  FAIL ' "$log" || true)
		[ $((p + f)) -gt 0 ] || f=1
		record "$s" "$p" "$f" "$log" $(( $(date +%s) - start )) ;;
	boot)
		tmo bash "$REPO/scripts/boot.sh" "$2" test >"$log" 2>&1 || true
		j=$OUT/boot/$2/results.json
		if [ -f "$j" ] && grep -q "^$2: " "$log"; then
			read -r p f < <(/usr/bin/python3 -c "import json,sys; d=json.load(open('$j')); print(d['passed'], d['failed'])")
		else p=0 f=1; fi
		record "$s" "$p" "$f" "$log" $(( $(date +%s) - start )) ;;
	roundtrip)
		tmo bash "$REPO/scripts/roundtrip.sh" "$2" >"$log" 2>&1 || true
		read -r p f < <(tapcount "$log")
		[ $((p + f)) -gt 0 ] || f=1
		record "$s" "$p" "$f" "$log" $(( $(date +%s) - start )) ;;
	peer)
		/usr/bin/python3 "$REPO/scripts/peer-compare.py" "$OUT/boot" base $topics medley >"$log" 2>&1 || true
		read -r p f < <(tapcount "$log")
		[ $((p + f)) -gt 0 ] || f=1
		record "$s" "$p" "$f" "$log" $(( $(date +%s) - start )) ;;
	esac
done
say ""
column -t -s "$(printf '\t')" "$res/summary.tsv" | cut -c1-100 >&2
say "check: $(( $(date +%s) - t0 ))s ($cache_state start)"
echo "# total $(( $(date +%s) - t0 ))s: $pass passed, $fail failed, $xfail known failures" >> "$runfile"
[ $xfail = 0 ] || say "check: $xfail steps failed as known (checks/known-failures)"
echo "check: $pass passed, $fail failed"
[ $fail = 0 ]
