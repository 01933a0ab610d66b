#!/usr/bin/env bash
# make boot TOPIC=t: build (if needed) and boot topic t in QEMU (TCG), run its
# guest tests and the KUnit suites built in, print the results and a closing
# "N passed, N failed". A panic, oops, BUG, WARNING, lockdep splat or a hang
# fails the run; the console log is kept in out/boot/<t>/.
# Usage: boot.sh TOPIC [test|shell|bench] [LABEL] [extra kernel cmdline...]
#   TOPIC may be t@N: the topic built at its Nth patch (benchmarks).
. "$(dirname "$0")/lib.sh"
t=${1:-medley}; mode=${2:-test}; label=${3:-$t}; shift $(( $# > 3 ? 3 : $# ))
extra=$*
kernel=$t
n=
case $t in *@*) n=${t#*@}; t=${t%@*} ;; esac
check_topic "$t"
case $mode in test|shell|bench) ;; *) die "mode must be test, shell or bench" ;; esac

# Which topics' payloads go in, and where the kernel comes from.
if [ "$t" = medley ]; then payload="$TOPICS"; elif [ "$t" = base ]; then payload=""; else payload=$t; fi
# MM_PEER=0: without the peer suite (make check runs it on base and on the
# medley only).
[ "$mode" = test ] && [ "${MM_PEER:-1}" != 0 ] && payload="$payload peer"
# The medley's own tests (memory hotplug, the stress) run last.
[ "$t" = medley ] && [ "$mode" = test ] && payload="$payload medley"
# A benchmark runs one topic's payload on whatever kernel the plan names.
if [ "$mode" = bench ]; then payload=${BENCH_TOPIC:?bench mode needs BENCH_TOPIC}; fi
# MM_VARIANT=bench: the benchmark variant of the kernel (guest/bench.config:
# no lockdep, DEBUG_VM or debug objects). Not the default yet: every figure
# in the README comes from the debugging kernels, which make bench uses.
export MM_VARIANT=${MM_VARIANT:-}
# MM_HOST=1 (make shell HOST=1): the host's root file system read-only over
# 9p in the guest, at /host (the shell runs in it); a kernel variant with
# 9p (guest/host.config).
[ -n "${MM_HOST:-}" ] && MM_VARIANT=host
src=$WORK/$t obj=$OBJ/$kernel${MM_VARIANT:++$MM_VARIANT}
[ "$t" = base ] && src=$BASE
if [ -n "$n" ]; then
	bash "$REPO/scripts/at-patch.sh" "$t" "$n" >/dev/null
	src=$WORK/$kernel
fi
bash "$REPO/scripts/build.sh" "$t" ${n:+"$src" "$obj"}

outdir=$OUT/boot/$kernel
[ "$mode" = bench ] && outdir=$OUT/bench/$BENCH_TOPIC/boot-$label
mkdir -p "$outdir"
img=$obj/initramfs.cpio.gz
# shellcheck disable=SC2086
bash "$REPO/scripts/initramfs.sh" "$src" "$obj" "$img" $payload

# QEMU topology: the topic's guest/<t>/qemu (the medley's: kpromoted's
# tiered NUMA machine and a hot-pluggable DIMM), else 2 CPUs and 2 GiB.
# Two sockets of one
# CPU each: a kernel without ACPI finds its CPUs in SeaBIOS's MP table,
# which lists one CPU per socket (with -smp 2 alone it boots on one CPU).
qargs="-m 2G -smp 2,sockets=2,cores=1,threads=1"
qfile=$REPO/guest/${BENCH_TOPIC:-$t}/qemu
[ -f "$qfile" ] && qargs=$(grep -v '^#' "$qfile" | tr '\n' ' ')
# guest/<t>/cmdline: kernel arguments the topology needs
cfile=$REPO/guest/${BENCH_TOPIC:-$t}/cmdline
[ -f "$cfile" ] && extra="$(grep -v '^#' "$cfile" | tr '\n' ' ')$extra"
topics_arg=$(echo $payload | tr ' ' ,)
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=7 medley.mode=$mode medley.topics=$topics_arg medley.label=$label $extra"
timeout=${BOOT_TIMEOUT:-1800}
# KVM when the host has a usable one, else TCG (scripts/accel.sh; MM_ACCEL).
accel=$(bash "$REPO/scripts/accel.sh")
# A benchmark's clock: under TCG a kernel without ACPI has no HPET or PM
# timer to calibrate its TSC against ("could not calculate TSC khz"), one
# with ACPI finds the TSCs unsynchronized: both mark the TSC unstable and
# time on refined-jiffies (1 ms steps) or hpet. The guest's TSC is the
# host's: tsc_early_khz= gives its frequency, tsc=reliable skips the sync
# check and the watchdog. The clocksource used is recorded (boot.meta).
if [ "$mode" = bench ]; then
	cmdline="$cmdline tsc=reliable"
	[ "$accel" = tcg ] && cmdline="$cmdline tsc_early_khz=$(bash "$REPO/scripts/accel.sh" --tsc-khz)"
fi
if [ -n "${MM_HOST:-}" ]; then
	qargs="$qargs -fsdev local,id=hostroot,path=/,security_model=none,readonly=on -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot"
	cmdline="$cmdline medley.host=1"
fi

if [ "$mode" = shell ]; then
	say "boot: $kernel interactive: the guest shell is on this terminal; 'exit' leaves (Ctrl-A X kills QEMU)"
	# shellcheck disable=SC2086
	exec qemu-system-x86_64 -accel "$accel" -nographic -no-reboot $qargs \
		-kernel "$obj/arch/x86/boot/bzImage" -initrd "$img" -append "$cmdline"
fi

console=$outdir/console.log results=$outdir/results.txt
rm -f "$console" "$results"
say "boot: $kernel ($mode) - console: $console (timeout ${timeout}s)"
start=$(date +%s)
rc=0
# shellcheck disable=SC2086
timeout --foreground -k 10 "$timeout" qemu-system-x86_64 -accel "$accel" -display none -no-reboot \
	-monitor none $qargs -kernel "$obj/arch/x86/boot/bzImage" -initrd "$img" \
	-append "$cmdline" -serial "file:$console" -serial "file:$results" </dev/null &
qpid=$!
# Progress: the guest's last result line, the time left from previous runs
# (make check's record of "boot <kernel>", or bench.sh's PROGRESS_EST).
. "$REPO/scripts/progress.sh"
lastline() { tail -c 300 "$results" 2>/dev/null | tr -d '\r' | grep -a . | tail -1; }
progress_watch $qpid "  boot $kernel" "${PROGRESS_EST:-$(eta_estimate "boot $kernel")}" "" "" "" lastline
wait $qpid || rc=$?
secs=$(( $(date +%s) - start ))
[ $rc = 124 ] && say "boot: $kernel: TIMEOUT after ${timeout}s (hang)"
say "boot: $kernel finished in ${secs}s"
# What the results were measured on, for bench.sh and the reports.
{ echo "accel: $accel"
  echo "clocksource: $(console_clocksource "$console")"
} > "$outdir/boot.meta"
if [ "$mode" = bench ]; then
	grep -aq MEDLEY-DONE "$results" || { tail -30 "$console" >&2; die "bench boot $kernel did not complete (console: $console)"; }
	/usr/bin/python3 "$REPO/scripts/results.py" --splat-only "$console" || die "splat during bench boot $kernel (console: $console)"
	exit 0
fi
/usr/bin/python3 "$REPO/scripts/results.py" --name "$kernel" --json "$outdir/results.json" --ktap "$outdir/results.ktap" "$console" "$results"
