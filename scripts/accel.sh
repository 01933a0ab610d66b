#!/usr/bin/env bash
# Which QEMU accelerator the guests run on: prints "kvm" or "tcg" on stdout,
# the reason on stderr.
#   MM_ACCEL=kvm|tcg     the choice, no questions asked
#   otherwise KVM when the host offers a usable one: the CPU has vmx or svm,
#   /dev/kvm can be opened read-write, and a probe boot of a built kernel
#   under KVM prints its first console line within MM_ACCEL_PROBE_SECS
#   (default 10) seconds. A nested or half-working KVM can pass the first
#   two and then hang at the first instruction: the probe is what catches
#   it. TCG otherwise.
# The probe's answer is kept per boot of the host (its boot id) in
# $CACHE/accel/<boot id>: one probe per host boot, not one per guest boot.
# When no kernel is built yet the probe cannot run: TCG, and nothing kept.
# For the tests, every host fact can be replaced:
#   MM_CPUINFO (/proc/cpuinfo), MM_KVM_DEV (/dev/kvm),
#   MM_BOOT_ID (/proc/sys/kernel/random/boot_id), MM_ACCEL_PROBE (a command
#   run instead of the probe boot; it succeeds when KVM works).
#
# accel.sh --tsc-khz: the host's TSC frequency in kHz (scripts/tsc-khz.c,
# kept per host boot id too), for TCG guests' tsc_early_khz=.
. "$(dirname "$0")/lib.sh"

if [ "${1:-}" = --tsc-khz ]; then
	boot_id=$(cat "${MM_BOOT_ID:-/proc/sys/kernel/random/boot_id}" 2>/dev/null || echo unknown)
	kept=$CACHE/accel/$boot_id.tsc-khz
	mkdir -p "$CACHE/accel"
	if [ ! -s "$kept" ]; then
		bin=$CACHE/accel/tsc-khz
		[ "$bin" -nt "$REPO/scripts/tsc-khz.c" ] || gcc -O2 -o "$bin" "$REPO/scripts/tsc-khz.c" || die "cannot build scripts/tsc-khz.c"
		"$bin" > "$kept.tmp" && mv "$kept.tmp" "$kept"
	fi
	cat "$kept"; exit 0
fi

case ${MM_ACCEL:-} in
kvm|tcg) say "accel: ${MM_ACCEL} (MM_ACCEL)"; echo "$MM_ACCEL"; exit 0 ;;
'') ;;
*) die "MM_ACCEL must be kvm or tcg, not '$MM_ACCEL'" ;;
esac

cpuinfo=${MM_CPUINFO:-/proc/cpuinfo}
dev=${MM_KVM_DEV:-/dev/kvm}
tcg() { say "accel: tcg ($1)"; echo tcg; exit 0; }

grep -qwE '^flags[[:space:]]*:.*\b(vmx|svm)\b' "$cpuinfo" 2>/dev/null || tcg "no vmx or svm flag in $cpuinfo"
[ -e "$dev" ] || tcg "no $dev"
# (open it read-write, as QEMU will; -r/-w alone say nothing for root)
{ : <>"$dev"; } 2>/dev/null || tcg "$dev cannot be opened read-write"

boot_id=$(cat "${MM_BOOT_ID:-/proc/sys/kernel/random/boot_id}" 2>/dev/null || echo unknown)
kept=$CACHE/accel/$boot_id
if [ -f "$kept" ]; then
	read -r a why < "$kept"
	say "accel: $a (probed at this host boot: ${why:-ok}; $kept)"
	echo "$a"; exit 0
fi

probe() {
	if [ -n "${MM_ACCEL_PROBE:-}" ]; then bash -c "$MM_ACCEL_PROBE"; return; fi
	local k log secs=${MM_ACCEL_PROBE_SECS:-10} pid i
	k=$(ls -t "$OBJ"/*/arch/x86/boot/bzImage 2>/dev/null | head -1) || true
	[ -n "$k" ] || return 2
	log=$(mktemp)
	# earlyprintk: the first line comes before any driver; no initramfs,
	# so the kernel stops at the root mount anyway.
	qemu-system-x86_64 -accel kvm -display none -no-reboot -monitor none -m 256M \
		-kernel "$k" -append "earlyprintk=serial,ttyS0 console=ttyS0 panic=-1" \
		-serial "file:$log" </dev/null >/dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < secs * 5; i++)); do
		grep -aq 'Linux version' "$log" 2>/dev/null && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
	grep -aq 'Linux version' "$log"; local rc=$?
	rm -f "$log"
	return $rc
}
rc=0
probe || rc=$?
mkdir -p "$CACHE/accel"
case $rc in
0) echo "kvm probe-boot-ok" > "$kept"; say "accel: kvm (the probe boot printed its first line)"; echo kvm ;;
2) tcg "no built kernel to probe KVM with yet; asked again next time" ;;
*) echo "tcg probe-boot-silent" > "$kept"
   tcg "the probe boot under KVM printed nothing in ${MM_ACCEL_PROBE_SECS:-10}s; kept in $kept" ;;
esac
