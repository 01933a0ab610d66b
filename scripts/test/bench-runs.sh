#!/usr/bin/env bash
# make bench's runs (TAP): bench.sh on a copy of the scripts with a stub
# boot.sh (no kernel, no QEMU): N interleaved boots per plan line, one
# file per run, meta.txt with N, the labels and each boot's clock,
# accelerator and config; BENCH_RUNS over the plan's runs=; the previous
# folder kept aside; a boot on another clocksource refused before the
# topic's report runs.
. "$(dirname "$0")/prelude.lib"
R=$T/repo
mkdir -p "$R/scripts" "$R/branches/medley" "$R/guest/demo" "$T/cache/obj/base" "$T/cache/obj/demo"
cp "$S/lib.sh" "$S/progress.sh" "$S/bench.sh" "$S/report.py" "$S/stats.py" "$R/scripts/"
echo demo > "$R/branches/medley/order"
echo "6.12.118-test" > "$T/cache/base-version"
echo "CONFIG_A=y" > "$T/cache/obj/base/.config"; echo "CONFIG_B=y" > "$T/cache/obj/demo/.config"
# the trees' vmlinux: the banner the boots print (the stub's)
# (after the format string without a time, which a vmlinux holds too)
for k in base demo; do printf 'Linux version 6.12.118+ (root@vm) (gcc 12.2.0) # SMP \nLinux version 6.12.118+ (root@vm) (gcc 12.2.0) #1 SMP Mon Dec  7 01:00:00 UTC 2026\n' > "$T/cache/obj/$k/vmlinux"; done
printf '%s\n' '#!/bin/sh' 'exit 0' > "$R/scripts/base.sh"
printf '%s\n' '#!/bin/sh' 'echo tcg' > "$R/scripts/accel.sh"
printf '%s\n' '#!/bin/sh' 'exit 0' > "$R/scripts/report.sh"
# boot.sh KERNEL bench LABEL...: the order of the boots, a result, a clock
# (STUB_HPET=<label>: that boot reports hpet instead of tsc)
cat > "$R/scripts/boot.sh" <<'STUB'
#!/bin/sh
d=$MM_OUT/bench/$BENCH_TOPIC/boot-$3
mkdir -p "$d"
echo "$3" >> "$MM_OUT/order"
printf 'label %s\nns %s\nMEDLEY-DONE\n' "$3" "$(( ${#3} * 100 ))" > "$d/results.txt"
printf '[    0.0] Linux version 6.12.118+ (root@vm) (gcc 12.2.0) #1 SMP Mon Dec  7 01:00:00 UTC 2026\r\n' > "$d/console.log"
cs=tsc; [ "${STUB_HPET:-}" = "$3" ] && cs=hpet
printf 'accel: tcg\nclocksource: %s\n' "$cs" > "$d/boot.meta"
STUB
# the topic's report: stats.load_runs, one line per label
cat > "$R/guest/demo/report" <<'STUB'
#!/usr/bin/python3
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import stats
runs = stats.load_runs(sys.argv[1], lambda p: float(open(p).read().split()[3]))
open(os.path.join(sys.argv[2], "demo.md"), "w").write(
    "".join("%s %s\n" % (l, stats.fmt_summary(v)) for l, v in runs.items()))
STUB
chmod +x "$R/guest/demo/report"
printf '%s\n' "# demo" "runs=2" "base base" "topic demo cmd=1" > "$R/guest/demo/bench.plan"
bench() { MM_OUT=$T/out MM_CACHE=$T/cache MM_TOPICS=demo bash "$R/scripts/bench.sh" demo > "$T/log" 2>&1; }
B=$T/out/bench/demo

bench && ok "bench.sh runs a plan" || { notok "bench.sh runs a plan"; diag "$T/log"; }
[ "$(tr '\n' ' ' < "$T/out/order")" = "base.1 topic.1 base.2 topic.2 " ] \
	&& ok "the plan's runs= (2): boots interleaved, base, topic, base, topic" || notok "order: $(tr '\n' ' ' < "$T/out/order")"
[ -f "$B/base.1.txt" ] && [ -f "$B/base.2.txt" ] && [ -f "$B/topic.1.txt" ] && [ -f "$B/topic.2.txt" ] && ! grep -q MEDLEY-DONE "$B/base.1.txt" \
	&& ok "one result file per label and run" || notok "result files: $(ls "$B")"
grep -qx "runs: 2" "$B/meta.txt" && grep -qx "labels: base topic" "$B/meta.txt" && grep -q "^command: \(nice -n [0-9]* \)\?make bench TOPIC=demo BENCH_RUNS=2" "$B/meta.txt" \
	&& ok "meta.txt records N, the labels and the command" || { notok "meta.txt"; diag "$B/meta.txt"; }
[ "$(grep -c '^clocksource \(base\|topic\)\.[12]: tsc$' "$B/meta.txt")" = 4 ] && [ "$(grep -c '^accel .*: tcg$' "$B/meta.txt")" = 4 ] \
	&& grep -q "^kconfig topic.2: debug $(sha256sum "$T/cache/obj/demo/.config" | cut -c1-12)$" "$B/meta.txt" \
	&& grep -q "^kbuild topic.2: #1 SMP Mon Dec  7 01:00:00 UTC 2026$" "$B/meta.txt" \
	&& grep -q "^kbuilt topic.2: #1 SMP Mon Dec  7 01:00:00 UTC 2026$" "$B/meta.txt" \
	&& ok "each boot's clocksource, accelerator, kernel config and build in meta.txt" || { notok "per-boot meta"; diag "$B/meta.txt"; }
grep -q "^base 600 ± 0 (600–600, n=2)$" "$T/out/report/demo.md" && grep -q "^topic 700 ± 0" "$T/out/report/demo.md" \
	&& ok "the topic's report gets every run (stats.load_runs)" || { notok "report"; diag "$T/out/report/demo.md" "$T/log"; }

rm -f "$T/out/order"
BENCH_RUNS=3 bench && [ "$(wc -l < "$T/out/order")" = 6 ] && grep -qx "runs: 3" "$B/meta.txt" && [ -f "$B/topic.3.txt" ] \
	&& ok "BENCH_RUNS=3 overrides the plan's runs=" || notok "BENCH_RUNS=3: $(cat "$T/out/order")"
old=$(ls -d "$T"/out/bench/demo.2* 2>/dev/null | head -1)
[ -n "$old" ] && [ -f "$old/base.2.txt" ] && [ ! -f "$old/base.3.txt" ] && [ ! -f "$B/missing" ] \
	&& ok "the previous run's folder is kept aside, not mixed in" || notok "previous folder: $(ls "$T/out/bench")"

rm -rf "$T/out/report"
STUB_HPET=topic.2 bench; rc=$?
[ $rc != 0 ] && grep -q "comparison refused: boots on different clocksources" "$T/log" && [ ! -f "$T/out/report/demo.md" ] \
	&& grep -q "comparison refused" "$B/meta.txt" && [ -f "$B/topic.2.txt" ] \
	&& ok "a boot on another clocksource: refused, no report, the runs kept" || { notok "clock refusal (rc $rc)"; diag "$T/log"; }

# a tree rebuilt after its bzImage: the boot's banner is not its vmlinux's
printf 'Linux version 6.12.118+ (root@vm) (gcc 12.2.0) #1 SMP Mon Dec  7 02:00:00 UTC 2026\n' > "$T/cache/obj/demo/vmlinux"
rm -rf "$T/out/report"
bench; rc=$?
[ $rc != 0 ] && grep -q "topic.1 booted a kernel built #1 SMP Mon Dec  7 01:00:00 UTC 2026, its tree's vmlinux was built #1 SMP Mon Dec  7 02:00:00 UTC 2026 (a stale bzImage)" "$T/log" && [ ! -f "$T/out/report/demo.md" ] \
	&& ok "a boot of a stale bzImage (not its tree's vmlinux) is refused" || { notok "stale bzImage not refused (rc $rc)"; diag "$T/log"; }
printf '%s\n' "base.1 base" > "$R/guest/demo/bench.plan"
! bench && grep -q "label 'base.1' ends in .<number>" "$T/log" && ok "a plan label that looks like a run number is refused" || notok "label base.1 accepted"
printf '%s\n' "base base" > "$R/guest/demo/bench.plan"
! BENCH_RUNS=0 bench && grep -q "BENCH_RUNS must be a number" "$T/log" && ok "BENCH_RUNS=0 is refused" || notok "BENCH_RUNS=0 accepted"
ktap_exit
