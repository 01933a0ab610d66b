#!/usr/bin/env bash
# make check: the whole test suite, what .ci/run runs. First the tools'
# unit tests (step unit: scripts/test/tools.py, test_*.py and
# checks/test/*.py on fixtures, seconds); then for every topic:
# check-series (which also builds each patch and leaves the tip built), the
# boot with its guest tests (KUnit, selftests), the mailing-list round
# trip; then base and the medley (every topic, KASAN) with the peer suite
# too, the peer comparison (nothing that passes on base fails on the
# medley), and the scripts' shell tests (step test-scripts).
# Ends with "check: N passed, N failed"; results in out/check/.
. "$(dirname "$0")/lib.sh"
topics=${CHECK_TOPICS:-$TOPICS}
mkdir -p "$CACHE"
# A run from an empty cache builds every kernel into it: 33 GB (cold run
# of a32c735, 2026-12-07; one of fe116a7 with 31 GB free failed 36 min
# in). Say so before starting rather than fail on a full disk.
# MM_DISK_NEED_GB overrides the figure (0: no check).
need=${MM_DISK_NEED_GB:-38}
if [ ! -d "$CACHE/work" ] && [ "$need" -gt 0 ]; then
	avail=$(df -Pk "$CACHE" | awk 'NR == 2 { print int($4 / 1048576) }')
	[ "${avail:-0}" -ge "$need" ] || die "make check from an empty cache ($CACHE) needs about $need GB free there for its kernels; $avail GB are free. Free some, or point MM_CACHE elsewhere."
fi
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
# step is also appended to a file of this run in the cache, so anyone can
# read afterwards how long CI's run took and where.
mkdir -p "$CACHE/check-runs"
. "$REPO/scripts/progress.sh"
runfile=$CACHE/check-runs/$(date -u +%Y%m%dT%H%M%S).tsv
{ echo "# make check $(date -u '+%Y-%m-%d %H:%M UTC') commit $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null), $cache_state start"
  echo "# step	passed	failed	seconds	cpu	log"; } > "$runfile"
# Two lanes side by side, so that neither core idles: the kernel lane (the
# medley's build, check-series of each topic, whose build check uses both
# cores, and base's build) and the light lane (boots, the scripts' tests
# and the round trips, single-threaded). One kernel build at a time still
# holds: only the kernel lane builds, and a boot waits until its kernel is
# built. Both lanes pick the light steps in one order (pick, work below),
# the medley's boot first: it is the longest step (every topic's tests,
# the peer suite and the hotplug tests under KASAN): the light lane waits
# for its build and starts it, and everything else runs beside it. The kernel
# lane, its builds done, picks what is left. CHECK_LANES=1: one lane.
# Base is built just before the last topic (sksm, configured as base is:
# guest/base/config): one of the two is a full build that fills ccache for
# the other, whichever comes first.
lane_k=("build medley") lane_l=("test-scripts")
for t in $topics; do lane_l+=("roundtrip $t"); done
lane_l+=("boot medley")
tl=($topics)
for t in $topics; do
	if [ "$t" = "${tl[-1]}" ]; then lane_k+=("build base"); lane_l+=("boot base"); fi
	lane_k+=("check-series $t"); lane_l+=("boot $t")
done
# The peer comparison reads every boot's results, the medley's included.
lane_l+=("peer")
total=$(( 2 + ${#lane_k[@]} + ${#lane_l[@]} ))
# checks/known-failures: "<step>  <reason>" for steps known to fail (or not
# yet proven), each with its reason. Such a step still runs and is printed
# as XFAIL (or XPASS); it does not fail the run. A step that fails and is
# not listed fails the run.
# (an empty list is normal: grep then finds nothing, which pipefail must not
# turn into the end of the run)
known() { { grep -v '^#' "$REPO/checks/known-failures" 2>/dev/null || true; } | awk -v s="$1" -F'  +' '$1 == s {print $2}'; }
# CI stops a run at 90 minutes: steps that would start after the budget are
# reported as not run (and counted as failures) rather than cut off. 85
# minutes leaves CI's run time for make deps and the summary; the aim for a
# cold run stays well under 75 (README, Timings).
budget=${MM_CHECK_BUDGET:-5100}
: > "$res/summary.tsv"
# A step's line is appended whole (one write), so both lanes can record.
# CPU seconds (user + system) a step used: the difference, across the step,
# of what bash's "times" reports for this lane's waited-for children (each
# lane is a shell of its own). A cold run is CPU-bound: this column, not
# the wall time of two lanes sharing two cores, says where its time goes.
# (A daemon that nobody waits for, like a round trip's list, is not counted.)
cpu_now() { cpu_file=$res/.times.$BASHPID; times > "$cpu_file"; }
cpu_sum() { awk 'END { s = 0; for (i = 1; i <= NF; i++) { split($i, b, "m"); s += b[1] * 60 + b[2] } printf "%d", s }' "$cpu_file"; }
record() { # step passed failed log seconds
	local why i line c
	cpu_now; c=$(( $(cpu_sum) - ${cpu0:-0} ))
	# a step stopped at the budget fails, whatever it had passed until then
	# ($stopped: set by tmo in this lane's shell, reset by every step)
	if [ -n "${stopped:-}" ]; then
		set -- "$1" "$2" $(( $3 > 0 ? $3 : 1 )) "$4 (stopped at the budget)" "$5"
	fi
	why=$(known "$1")
	i=$(( $(wc -l < "$res/summary.tsv") + 1 ))
	if [ -n "$why" ]; then
		if [ "$3" != 0 ]; then
			line=$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$1" "$2" "xfail:$3" "$5" "$c" "$4")
			echo "$line" >> "$runfile"; echo "$line" >> "$res/summary.tsv"
			printf '[%2d/%d] XFAIL %-27s %3d passed %3d failed  %5ss  cpu %5ss  known: %s\n' "$i" "$total" "$1" "$2" "$3" "$5" "$c" "$why" >&2
			return
		fi
		say "       XPASS $1: listed in checks/known-failures but passed; remove the line"
	fi
	line=$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$1" "$2" "$3" "$5" "$c" "$4")
	echo "$line" >> "$runfile"; echo "$line" >> "$res/summary.tsv"
	printf '[%2d/%d] %-4s %-28s %3d passed %3d failed  %5ss  cpu %5ss  (%s)\n' "$i" "$total" \
		"$([ "$3" = 0 ] && echo pass || echo FAIL)" "$1" "$2" "$3" "$5" "$c" "$4" >&2
}
# Every step leaves its results as KTAP in $res/<step>.ktap (TAP is KTAP
# without nesting), and one reader counts them all: the passed and failed
# leaves, a failed parent whose subtests passed (a plan not met) counting as
# one failure (scripts/results.py --count-ktap). A step that left no result
# fails.
ktapcount() { if [ -s "$1" ]; then /usr/bin/python3 "$REPO/scripts/results.py" --count-ktap "$1"; else echo "0 0"; fi; }
# ktap_rc NAME RC: the KTAP of a step whose only result is its exit status
# (base, build: scripts, not checks); in a subshell, numbered from 1
ktap_rc() (
	. "$REPO/scripts/ktap.sh"
	echo "KTAP version 1"; ktap_plan 1
	if [ "$2" = 0 ]; then ok "$1"; else notok "$1 # exit status $2"; fi
)
mkdir -p "$res/done"
step() { # one step of a lane
	local s=$1 log ktap start left p f rc
	set -- $s
	log=$res/$(echo "$s" | tr ' ' -).log
	ktap=${log%.log}.ktap
	rm -f "$ktap"
	stopped=
	cpu_now; cpu0=$(cpu_sum)
	# (at the budget itself too: "timeout 0" would mean no limit at all)
	if [ $(( $(date +%s) - t0 )) -ge "$budget" ]; then
		record "$s" 0 1 "not run: time budget of ${budget}s spent" 0
		return
	fi
	# (the time left: from previous runs' records of this step, progress.sh)
	say "       start $s ($(( $(date +%s) - t0 ))s)$(e=$(eta_estimate "$s" "" "$cache_state"); [ -z "$e" ] || echo ", last runs ~$(eta_fmt "$e")")$(e=$(eta_total "" "$cache_state"); [ -z "$e" ] || echo ", run ~$(eta_fmt $(( e > $(date +%s) - t0 ? e - $(date +%s) + t0 : 0 ))) left")"
	start=$(date +%s)
	# No step may outlive the budget: it is stopped at the end of it.
	left=$(( budget - (start - t0) ))
	export BOOT_TIMEOUT=$(( left < 1500 ? left : 1500 ))
	# A step stopped at the budget fails, whatever it counted until then
	# (a check-series cut off in its build had only passes to show).
	tmo() {
		local rc=0
		timeout -k 10 "$left" "$@" || rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "check: stopped at the time budget (${budget}s), ${left}s after its start"
			stopped=1
		fi
		return $rc
	}
	case $1 in
	unit|test-scripts)
		# unit: the tools' unit tests on fixtures (seconds), first;
		# test-scripts: the shell tests. The demo two-patch round trip is
		# what the four topics' round trips below do on real series: left
		# out here (about 130 s of a core in a cold run); make
		# test-scripts still runs it.
		rm -f "$OUT/test-scripts/all.ktap"
		MM_TESTS=$([ "$1" = unit ] && echo unit || echo shell) MM_SKIP_TESTS=b4-roundtrip \
			tmo bash "$REPO/scripts/test-scripts.sh" >"$log" 2>&1 || true
		cp "$OUT/test-scripts/all.ktap" "$ktap" 2>/dev/null || true ;;
	base)
		rc=0; bash "$REPO/scripts/base.sh" >"$log" 2>&1 || rc=$?
		ktap_rc "$s" $rc > "$ktap" ;;
	build)
		rc=0; tmo bash "$REPO/scripts/build.sh" "$2" >"$log" 2>&1 || rc=$?
		ktap_rc "$s" $rc > "$ktap" ;;
	check-series)
		# Bisect builds as checks/build's BISECT=objs: the whole tip first,
		# then the series' objects at every earlier patch; keeps a cold run
		# short. BISECT=full to override.
		rm -f "$OUT/checks/$2/checks.ktap"
		BISECT=${BISECT:-objs} tmo bash "$REPO/scripts/check-series.sh" "$2" >"$log" 2>&1 || true
		cp "$OUT/checks/$2/checks.ktap" "$ktap" 2>/dev/null || true ;;
	boot)
		rm -f "$OUT/boot/$2/results.ktap"
		# The peer suite runs on base and on the medley (every topic
		# merged, KASAN), not again on each topic's kernel: a peer
		# program that a topic breaks fails in the medley, and
		# make boot TOPIC=t (with the suite) tells which topic it was.
		peer=0; case $2 in base|medley) peer=1 ;; esac
		MM_PEER=$peer tmo bash "$REPO/scripts/boot.sh" "$2" test >"$log" 2>&1 || true
		# (a boot that did not get as far as its summary line has no result)
		if grep -q "^$2: " "$log"; then cp "$OUT/boot/$2/results.ktap" "$ktap" 2>/dev/null || true; fi ;;
	roundtrip)
		# its TAP on stdout, its messages on stderr; the log gets both
		tmo bash "$REPO/scripts/roundtrip.sh" "$2" >"$ktap" 2>"$log" || true
		cat "$ktap" >> "$log" ;;
	peer)
		/usr/bin/python3 "$REPO/scripts/peer-compare.py" "$OUT/boot" base medley >"$ktap" 2>"$log" || true
		cat "$ktap" >> "$log" ;;
	esac
	read -r p f < <(ktapcount "$ktap")
	[ $((p + f)) -gt 0 ] || f=1
	record "$s" "$p" "$f" "$log" $(( $(date +%s) - start ))
	: > "$res/done/$(echo "$s" | tr ' ' -)"
}
# needs STEP: the kernel lane's step a light step waits for (its kernel)
needs() {
	case $1 in
	"boot base"|"boot medley") echo "build ${1#boot }" ;;
	boot\ *) echo "check-series ${1#boot }" ;;
	esac
}
# wait_for STEP PID: until the kernel lane has done STEP (or has ended)
wait_for() { while [ ! -e "$res/done/$(echo "$1" | tr ' ' -)" ] && kill -0 "$2" 2>/dev/null; do sleep 3; done; }
# claim STEP: the lane that claims a light step first runs it (mkdir is
# atomic), so a lane with nothing left of its own takes the other's work.
mkdir -p "$res/claim"
claim() { mkdir "$res/claim/$(echo "$1" | tr ' ' -)" 2>/dev/null; }
# pick PID: claim the first step of "order" that is ready (its kernel built,
# or it needs none) and print it; nothing when none is. A step whose
# kernel step never came (the kernel lane PID ended first) is ready too: it
# runs and fails as it would have. Both lanes pick from it, so neither
# core idles while a step is left: in a warm run the builds take seconds,
# the medley's boot (the longest step) starts at once on one core and
# every other step runs on the other.
pick() {
	local s n
	for s in "${order[@]}"; do
		[ -e "$res/claim/$(echo "$s" | tr ' ' -)" ] && continue
		n=$(needs "$s")
		if [ -n "$n" ] && [ ! -e "$res/done/$(echo "$n" | tr ' ' -)" ] && kill -0 "$1" 2>/dev/null; then
			continue
		fi
		if claim "$s"; then echo "$s"; return; fi
	done
}
# left: whether a step of "order" is not claimed yet
left() {
	local s
	for s in "${order[@]}"; do [ -e "$res/claim/$(echo "$s" | tr ' ' -)" ] || return 0; done
	return 1
}
# work PID: pick and run steps until none is left (waiting while the
# ones left wait for a kernel)
work() {
	local s
	while left; do
		s=$(pick "$1")
		if [ -n "$s" ]; then step "$s"; else sleep 3; fi
	done
}
step base
# The tools' unit tests first, before the lanes: a broken tool shows in the
# first lines of the run, not after the kernels are built.
step unit
if [ "${CHECK_LANES:-2}" = 1 ]; then
	# One lane: the light steps that need no kernel, then each kernel step
	# followed by the boots that need it, the peer comparison last.
	for s in "${lane_l[@]}"; do
		if [ -z "$(needs "$s")" ] && [ "$s" != peer ]; then step "$s"; fi
	done
	for k in "${lane_k[@]}"; do
		step "$k"
		for s in "${lane_l[@]}"; do
			if [ "$(needs "$s")" = "$k" ]; then step "$s"; fi
		done
	done
	step peer
else
	# The kernel lane is not a child of this shell (a subshell that starts
	# it and exits at once): bash adds a reaped child's CPU time, and that
	# of all it waited for, to this shell's "times", so as a child the
	# whole kernel lane would land in the cpu column of whichever light
	# step was running when it ended (a warm run's defrag-mode round
	# trip showed 220 CPU-s in 45 s).
	# The light steps in the order they are picked: the medley's boot
	# first (as soon as its kernel is built), the boots before the
	# scripts' tests and the round trips, which need no kernel and fill
	# the other core while a boot waits for its kernel.
	order=("boot medley")
	for s in "${lane_l[@]}"; do case $s in "boot medley"|peer) ;; boot\ *) order+=("$s") ;; esac; done
	for s in "${lane_l[@]}"; do case $s in boot\ *|peer) ;; *) order+=("$s") ;; esac; done
	( ( for s in "${lane_k[@]}"; do step "$s"; done; work $$; : > "$res/done/kernel-lane" ) &
	  echo $! > "$res/.kernel-lane.pid" )
	kpid=$(cat "$res/.kernel-lane.pid")
	# The medley's boot goes first: the light lane waits for its build
	# (seconds when warm; when cold, a build of both cores, which a light
	# step beside it would only slow down).
	wait_for "build medley" "$kpid"
	work "$kpid"
	# The peer comparison reads every boot, and the kernel lane's end.
	wait_for "kernel lane" "$kpid"
	step peer
fi
read -r pass fail xfail < <(awk -F'\t' '{ p += $2; if ($3 ~ /^xfail:/) x++; else f += $3 } END { print p + 0, f + 0, x + 0 }' "$res/summary.tsv")
say ""
column -t -s "$(printf '\t')" "$res/summary.tsv" | cut -c1-100 >&2
# What failed, by name, where a reader of CI's last lines sees it; and the
# failed steps' logs (a boot's console too) kept beside the run's record in
# the cache, which outlives CI's clone.
keep=${runfile%.tsv}
while IFS=$'\t' read -r s p f _ _ log; do
	case $f in 0|xfail:*) continue ;; esac
	say "check: FAIL $s:"
	mkdir -p "$keep"
	log=${log% (stopped at the budget)}; ktap=${log%.log}.ktap
	{ grep -a '^ *not ok' "$ktap" 2>/dev/null || echo "  (no result: see the log)"; } | head -20 |
		sed 's/^ */  /' | tee -a "$keep/failed.txt" >&2
	cp "$log" "$ktap" "$keep/" 2>/dev/null || true
	case $s in boot\ *) cp "$OUT/boot/${s#boot }/console.log" "$keep/console-${s#boot }.log" 2>/dev/null || true ;; esac
done < "$res/summary.tsv"
[ ! -d "$keep" ] || say "check: the failed steps' logs are kept in $keep/"
say "check: $(( $(date +%s) - t0 ))s ($cache_state start)"
echo "# total $(( $(date +%s) - t0 ))s: $pass passed, $fail failed, $xfail known failures" >> "$runfile"
[ $xfail = 0 ] || say "check: $xfail steps failed as known (checks/known-failures)"
echo "check: $pass passed, $fail failed"
[ $fail = 0 ]
