#!/usr/bin/env bash
# make bench [TOPIC=t] [BENCH_RUNS=N] [BENCH_RESUME=1]: run a topic's benchmark (default:
# every topic's). guest/<t>/bench.plan has one line per configuration,
# "<label> <kernel> [cmdline]", and may say "runs=N", the topic's default
# number of runs (3 when it says nothing); BENCH_RUNS overrides it. Each
# configuration is booted N times, interleaved (run 1 of every line, then
# run 2, ...), so that a drift of the host hits every configuration alike.
# Run k of <label> is kept as out/bench/<t>/<label>.<k>.txt, its boot in
# boot-<label>.<k>/; meta.txt says N, the labels, and each boot's
# accelerator, clocksource, kernel config and build. A previous run's folder is
# moved aside (out/bench/<t>.<its date>), never mixed in. Then the topic's
# report script turns the runs into out/report/<t>.md and plots (through
# scripts/stats.py), and report.sh into out/report/index.html.
. "$(dirname "$0")/lib.sh"
topics=${1:-$TOPICS}
for t in $topics; do check_topic "$t"; done
case ${BENCH_RUNS:-1} in ''|*[!0-9]*|0) die "BENCH_RUNS must be a number of runs, 1 or more (got '$BENCH_RUNS')" ;; esac
bash "$REPO/scripts/base.sh" >/dev/null
fail=0
# Each boot's time is kept (the format of make check's check-runs), so the
# next run can say how long is left.
. "$REPO/scripts/progress.sh"
mkdir -p "$CACHE/bench-runs"
record=$CACHE/bench-runs/$(date -u +%Y%m%dT%H%M%S).tsv
echo "# make bench $(date -u '+%Y-%m-%d %H:%M UTC')" > "$record"
# plan_lines PLAN: its configuration lines (no comments, blanks, runs=)
plan_lines() { grep -v '^[[:space:]]*\(#\|$\|runs=\)' "$1" || true; }
for t in $topics; do
	plan=$REPO/guest/$t/bench.plan
	[ -f "$plan" ] || { say "bench: $t has no guest/$t/bench.plan, skipped"; continue; }
	runs=${BENCH_RUNS:-$(sed -n 's/^runs=\([0-9][0-9]*\)[[:space:]]*$/\1/p' "$plan" | tail -1)}
	runs=${runs:-3}
	labels=$(plan_lines "$plan" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')
	for l in $labels; do
		case $l in *.[0-9]|*.[0-9][0-9]|*/*) die "bench: $t: label '$l' ends in .<number> or has a /: runs are numbered by bench.sh (runs=N, BENCH_RUNS)" ;; esac
	done
	[ "$(echo "$labels" | tr ' ' '\n' | sort | uniq -d)" = "" ] || die "bench: $t: a label is twice in $plan"
	dir=$OUT/bench/$t
	# BENCH_RESUME=1: a folder of the same plan (runs, labels) keeps the
	# runs it has and gets the rest (a long plan over several sittings);
	# runs of another build of a kernel are refused below, as ever.
	resume=
	if [ -n "${BENCH_RESUME:-}" ] && [ -f "$dir/meta.txt" ]; then
		if grep -qx "runs: $runs" "$dir/meta.txt" && grep -qx "labels: $labels" "$dir/meta.txt"; then
			resume=1
			say "bench: $t: resuming in $dir, $(ls "$dir" | grep -c '\.[0-9]*\.txt$') runs kept"
		else
			die "bench: $t: BENCH_RESUME: $dir is of another plan ($(grep -m1 '^runs:' "$dir/meta.txt"), $(grep -m1 '^labels:' "$dir/meta.txt")); nothing moved"
		fi
	fi
	if [ -z "$resume" ] && [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
		old=$dir.$(date -u -r "$dir/meta.txt" +%Y%m%dT%H%M%S 2>/dev/null || date -u +%Y%m%dT%H%M%S)
		while [ -e "$old" ]; do old=$old.1; done
		mv "$dir" "$old"; say "bench: $t: the previous results are kept in $old"
	fi
	mkdir -p "$dir"
	n=$(plan_lines "$plan" | wc -l)
	total=$(( n * runs ))
	# (run under nice: said in the command, as it was run)
	if [ -n "$resume" ]; then
		echo "resumed: $(date -u '+%Y-%m-%d %H:%M UTC')" >> "$dir/meta.txt"
	else
	{ echo "command: $([ "$(nice)" = 0 ] || echo "nice -n $(nice) ")make bench TOPIC=$t BENCH_RUNS=$runs${MM_VARIANT:+ MM_VARIANT=$MM_VARIANT}"
	  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	  echo "base: $(base_tag)"
	  echo "host: $(nproc) CPUs, QEMU $(bash "$REPO/scripts/accel.sh" 2>/dev/null | tr a-z A-Z)"
	  echo "config: guest/common.config + the kernel's topic fragment$([ -n "${MM_VARIANT:-}" ] && echo " + guest/bench.config (debugging off)")"
	  echo "runs: $runs"
	  echo "labels: $labels"
	} > "$dir/meta.txt"
	fi
	# The workload's fingerprint, recorded with every run: the guest
	# programs a boot runs (guest/<t>, guest/lib, guest/init; not the
	# reports, the plan, the tests or the results). stats.py refuses to
	# compare runs of two (a load changed between two sittings of a
	# resumed benchmark).
	guest_sum=$(cd "$REPO" && find "guest/$t" guest/lib guest/init -type f ! -path '*/results/*' ! -name '*.pyc' \
		! -name '*.md' ! -name report ! -name stats-report ! -name bench.plan ! -name tests -print0 2>/dev/null |
		sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-12) || guest_sum=unknown
	i=0
	for run in $(seq 1 "$runs"); do
		while read -r label kernel cmdline; do
			i=$((i + 1))
			b=$label.$run
			if [ -n "$resume" ] && [ -s "$dir/$b.txt" ]; then
				say "bench: $t [$i/$total] $label run $run/$runs kept from before"
				continue
			fi
			est=$(eta_estimate "bench $t $label" "$CACHE/bench-runs")
			# the time left: this boot and every later one (their last times);
			# line j of the plan boots (runs - run) more times after this
			# run, and once more in this run if it is this line or a later one
			left=0 j=0 p=$(( (i - 1) % n + 1 ))
			while read -r l _; do
				j=$((j + 1))
				e=$(eta_estimate "bench $t $l" "$CACHE/bench-runs")
				k=$(( runs - run )); [ "$j" -ge "$p" ] && k=$((k + 1))
				left=$(( left + ${e:-0} * k ))
			done < <(plan_lines "$plan")
			say "bench: $t [$i/$total] $label run $run/$runs on $kernel ${cmdline}${est:+ (last time $(eta_fmt "$est"); ~$(eta_fmt "$left") left for $t)}"
			start=$(date +%s)
			if PROGRESS_EST=$est BENCH_TOPIC=$t bash "$REPO/scripts/boot.sh" "$kernel" bench "$b" $cmdline </dev/null; then
				grep -av '^MEDLEY-DONE' "$dir/boot-$b/results.txt" | tr -d '\r' > "$dir/$b.txt"
				[ "$run" = 1 ] && echo "kernel $label: $(grep -am1 'Linux version' "$dir/boot-$b/console.log" | sed 's/.*Linux version \([^ ]*\).*/\1/') ($kernel) $cmdline" >> "$dir/meta.txt"
				# "accel <label>.<k>: kvm", "clocksource <label>.<k>: tsc" (boot.sh's boot.meta)
				sed -n "s/^\(accel\|clocksource\): /\1 $b: /p" "$dir/boot-$b/boot.meta" >> "$dir/meta.txt"
				# the kernel's configuration: every run of a label must boot the same one
				cfg=$OBJ/$kernel${MM_VARIANT:++$MM_VARIANT}/.config
				echo "kconfig $b: ${MM_VARIANT:-debug} $(sha256sum "$cfg" 2>/dev/null | cut -c1-12)" >> "$dir/meta.txt"
				# and the same build (a topic's tree may be rebuilt meanwhile):
				# the build number and time of its "Linux version" line
				echo "kbuild $b: $(grep -am1 'Linux version' "$dir/boot-$b/console.log" | tr -d '\r' | sed -n 's/.*) \(#[0-9].*\)/\1/p')" >> "$dir/meta.txt"
				# and the build it should have booted: the banner in the tree's
				# vmlinux (a bzImage whose compressed payload is stale says another)
				echo "kbuilt $b: $(grep -am1 '^Linux version .*) #[0-9]' <(strings "$OBJ/$kernel${MM_VARIANT:++$MM_VARIANT}/vmlinux" 2>/dev/null) | sed -n 's/.*) \(#[0-9].*\)/\1/p')" >> "$dir/meta.txt"
				# and the same workload: the guest programs' sources (a resumed
				# benchmark refuses runs of another version of its load)
				echo "guest $b: $guest_sum" >> "$dir/meta.txt"
				printf 'bench %s %s\t1\t0\t%d\n' "$t" "$label" $(( $(date +%s) - start )) >> "$record"
				say "bench: $t [$i/$total] $label run $run done in $(( $(date +%s) - start ))s"
			else
				say "bench: $t [$i/$total] $label run $run FAILED"; fail=1
				echo "failed $b" >> "$dir/meta.txt"
			fi
		done < <(plan_lines "$plan")
	done
	# Runs on different clocks (or on a tick), accelerators or kernel
	# configurations are not compared (scripts/stats.py says why).
	if ! why=$(/usr/bin/python3 "$REPO/scripts/report.py" --clocks "$dir/meta.txt"); then
		say "bench: $t: $why"; echo "$why" >> "$dir/meta.txt"; fail=1
	elif [ -x "$REPO/guest/$t/report" ]; then
		mkdir -p "$OUT/report"
		(cd "$REPO" && MM_OUT=$OUT "$REPO/guest/$t/report" "$dir" "$OUT/report") || { say "bench: report of $t failed"; fail=1; }
	fi
done
bash "$REPO/scripts/report.sh" || fail=1
exit $fail
