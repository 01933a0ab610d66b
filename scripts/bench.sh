#!/usr/bin/env bash
# make bench [TOPIC=t]: run a topic's benchmark (default: every topic's),
# one boot per line of guest/<t>/bench.plan ("<label> <kernel> [cmdline]"),
# side by side in one run; then the topic's report script turns the
# raw results into out/report/<t>.md and plots, and report.sh into
# out/report/index.html.
. "$(dirname "$0")/lib.sh"
topics=${1:-$TOPICS}
for t in $topics; do check_topic "$t"; done
bash "$REPO/scripts/base.sh" >/dev/null
fail=0
# Each boot's time is kept (the format of make check's check-runs), so the
# next run can say how long is left.
. "$REPO/scripts/progress.sh"
mkdir -p "$CACHE/bench-runs"
runs=$CACHE/bench-runs/$(date -u +%Y%m%dT%H%M%S).tsv
echo "# make bench $(date -u '+%Y-%m-%d %H:%M UTC')" > "$runs"
for t in $topics; do
	plan=$REPO/guest/$t/bench.plan
	[ -f "$plan" ] || { say "bench: $t has no guest/$t/bench.plan, skipped"; continue; }
	mkdir -p "$OUT/bench/$t"
	n=$(grep -cv '^\s*\(#\|$\)' "$plan")
	i=0
	{ echo "command: make bench TOPIC=$t"; echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"; echo "base: $(base_tag)"; echo "host: $(nproc) CPUs, QEMU $(bash "$REPO/scripts/accel.sh" 2>/dev/null | tr a-z A-Z)"; echo "config: guest/common.config + the kernel's topic fragment$([ -n "${MM_VARIANT:-}" ] && echo " + guest/bench.config (debugging off)")"; } > "$OUT/bench/$t/meta.txt"
	while read -r label kernel cmdline; do
		case $label in ''|'#'*) continue ;; esac
		i=$((i + 1))
		est=$(eta_estimate "bench $t $label" "$CACHE/bench-runs")
		left=0
		while read -r l _; do
			case $l in ''|'#'*) continue ;; esac
			e=$(eta_estimate "bench $t $l" "$CACHE/bench-runs"); left=$(( left + ${e:-0} ))
		done < <(grep -v '^\s*\(#\|$\)' "$plan" | tail -n +"$i")
		say "bench: $t [$i/$n] $label on $kernel ${cmdline}${est:+ (last time $(eta_fmt "$est"); ~$(eta_fmt "$left") left for $t)}"
		start=$(date +%s)
		if PROGRESS_EST=$est BENCH_TOPIC=$t bash "$REPO/scripts/boot.sh" "$kernel" bench "$label" $cmdline </dev/null; then
			grep -av '^MEDLEY-DONE' "$OUT/bench/$t/boot-$label/results.txt" | tr -d '\r' > "$OUT/bench/$t/$label.txt"
			echo "kernel $label: $(grep -am1 'Linux version' "$OUT/bench/$t/boot-$label/console.log" | sed 's/.*Linux version \([^ ]*\).*/\1/') ($kernel) $cmdline" >> "$OUT/bench/$t/meta.txt"
			# "accel <label>: kvm", "clocksource <label>: tsc" (boot.sh's boot.meta)
			sed -n "s/^\(accel\|clocksource\): /\1 $label: /p" "$OUT/bench/$t/boot-$label/boot.meta" >> "$OUT/bench/$t/meta.txt"
			printf 'bench %s %s\t1\t0\t%d\n' "$t" "$label" $(( $(date +%s) - start )) >> "$runs"
			say "bench: $t [$i/$n] $label done in $(( $(date +%s) - start ))s"
		else
			say "bench: $t [$i/$n] $label FAILED"; fail=1
		fi
	done < "$plan"
	# Timings from boots on different clocks (or on a tick) are not compared.
	if ! why=$(/usr/bin/python3 "$REPO/scripts/report.py" --clocks "$OUT/bench/$t/meta.txt"); then
		say "bench: $t: $why"; echo "$why" >> "$OUT/bench/$t/meta.txt"; fail=1
	elif [ -x "$REPO/guest/$t/report" ]; then
		mkdir -p "$OUT/report"
		(cd "$REPO" && OUT=$OUT "$REPO/guest/$t/report" "$OUT/bench/$t" "$OUT/report") || { say "bench: report of $t failed"; fail=1; }
	fi
done
bash "$REPO/scripts/report.sh" || fail=1
exit $fail
