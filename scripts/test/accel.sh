#!/usr/bin/env bash
# The accelerator choice (TAP): scripts/accel.sh with made-up host facts (a
# cpuinfo with or without vmx/svm, a /dev/kvm that is there, missing or not
# openable, a probe boot that prints or stays silent), the MM_ACCEL
# override, and the probe's answer kept per host boot id.
. "$(dirname "$0")/prelude.lib"
printf 'processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic vmx sse2\n' > "$T/cpu-vmx"
printf 'processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic svm sse2\n' > "$T/cpu-svm"
printf 'processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic hypervisor sse2\n' > "$T/cpu-none"
# "vmx" elsewhere than in the flags line is no flag
printf 'processor\t: 0\nmodel name\t: vmx svm emulator\nflags\t\t: fpu sse2\n' > "$T/cpu-name"
: > "$T/kvm"; mkdir "$T/kvm-dir"
echo 11111111-aaaa > "$T/boot1"; echo 22222222-bbbb > "$T/boot2"
# the probe stand-ins count their runs
echo 'echo x >> '"$T"'/probes; exit 0' > "$T/probe-ok"
echo 'echo x >> '"$T"'/probes; exit 1' > "$T/probe-silent"
echo 'echo x >> '"$T"'/probes; exit 2' > "$T/probe-nokernel"
# run EXPECTED WHAT VAR=VALUE...: accel.sh in a fresh environment
run() {
	local want=$1 what=$2 got; shift 2
	got=$(env -u MM_ACCEL MM_CACHE="$T/cache" MM_CPUINFO="$T/cpu-vmx" MM_KVM_DEV="$T/kvm" \
		MM_BOOT_ID="$T/boot1" MM_ACCEL_PROBE="bash $T/probe-ok" "$@" bash "$S/accel.sh" 2>"$T/err")
	if [ "$got" = "$want" ]; then ok "$what: $want"; else notok "$what: wanted $want, got '$got' ($(cat "$T/err"))"; fi
}
probes() { { wc -l < "$T/probes"; } 2>/dev/null || echo 0; }

run tcg "MM_ACCEL=tcg wins over a working KVM" MM_ACCEL=tcg
run kvm "MM_ACCEL=kvm wins over a host without the flag" MM_ACCEL=kvm MM_CPUINFO="$T/cpu-none"
if ! MM_ACCEL=qemu bash "$S/accel.sh" >/dev/null 2>"$T/err" && grep -q 'must be kvm or tcg' "$T/err"; then ok "MM_ACCEL=qemu is refused"; else notok "MM_ACCEL=qemu is refused"; fi
run tcg "no vmx/svm flag" MM_CPUINFO="$T/cpu-none"
run tcg "vmx in the model name is not the flag" MM_CPUINFO="$T/cpu-name"
run tcg "flag but no /dev/kvm" MM_KVM_DEV="$T/nothing"
run tcg "flag but /dev/kvm cannot be opened read-write" MM_KVM_DEV="$T/kvm-dir"
[ "$(probes)" = 0 ] && ok "no probe boot when a cheap fact already says tcg" || notok "a probe ran for a host without KVM"
run tcg "no kernel to probe with yet" MM_ACCEL_PROBE="bash $T/probe-nokernel"
[ ! -e "$T/cache/accel/11111111-aaaa" ] && ok "that answer is not kept (asked again once a kernel is built)" || notok "an answer without a probe was kept"
rm -f "$T/probes"
run tcg "KVM whose probe boot stays silent (hangs)" MM_ACCEL_PROBE="bash $T/probe-silent"
run tcg "the silent probe is kept for this host boot" MM_ACCEL_PROBE="bash $T/probe-ok"
[ "$(probes)" = 1 ] && ok "one probe for two choices in one host boot" || notok "probes run: $(probes), wanted 1"
run kvm "a new host boot probes again; svm host, probe boots" MM_BOOT_ID="$T/boot2" MM_CPUINFO="$T/cpu-svm"
run kvm "the kvm answer is kept too" MM_BOOT_ID="$T/boot2" MM_ACCEL_PROBE="bash $T/probe-silent"
[ "$(probes)" = 2 ] && ok "two host boots, two probes" || notok "probes run: $(probes), wanted 2"
run tcg "MM_ACCEL=tcg wins over a kept kvm answer" MM_BOOT_ID="$T/boot2" MM_ACCEL=tcg
# the host's TSC frequency for TCG guests' tsc_early_khz=: measured once a host boot
k=$(MM_CACHE="$T/cache" MM_BOOT_ID="$T/boot1" bash "$S/accel.sh" --tsc-khz 2>"$T/err")
[ "${k:-0}" -gt 100000 ] 2>/dev/null && [ "$k" -lt 10000000 ] && ok "--tsc-khz measures the host TSC: $k kHz" || notok "--tsc-khz: '$k' ($(cat "$T/err"))"
echo 12345 > "$T/cache/accel/11111111-aaaa.tsc-khz"
[ "$(MM_CACHE="$T/cache" MM_BOOT_ID="$T/boot1" bash "$S/accel.sh" --tsc-khz)" = 12345 ] && ok "--tsc-khz is kept per host boot" || notok "--tsc-khz measured again"
ktap_exit
