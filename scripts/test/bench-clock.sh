#!/usr/bin/env bash
# A benchmark's clock (TAP): the clocksource a guest's console says it
# switched to, and the report's refusal to compare boots that timed with
# different clocksources or with a tick-based one (meta.txt fixtures).
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
. "$S/lib.sh"
set +e
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$S/ktap.sh"
echo "TAP version 13"
# A no-ACPI kernel under TCG: tsc first, then the watchdog's fallback.
printf '%s\r\n' "[    0.000000] Linux version 6.12.118+" \
	"[    0.412000] clocksource: Switched to clocksource tsc-early" \
	"[    0.950000] clocksource: Switched to clocksource tsc" \
	"[    1.210000] tsc: Marking TSC unstable due to TSCs unsynchronized" \
	"[    1.220000] clocksource: Switched to clocksource refined-jiffies" > "$T/c1"
printf '%s\n' "[    0.4] clocksource: Switched to clocksource tsc-early" "[    0.9] clocksource: Switched to clocksource tsc" "MEDLEY-DONE" > "$T/c2"
echo "[    0.1] Linux version 6.12.118+" > "$T/c3"
[ "$(console_clocksource "$T/c1")" = refined-jiffies ] && ok "the last switch counts (TSC marked unstable: refined-jiffies)" || notok "c1: $(console_clocksource "$T/c1")"
[ "$(console_clocksource "$T/c2")" = tsc ] && ok "tsc=reliable boot: tsc" || notok "c2: $(console_clocksource "$T/c2")"
[ "$(console_clocksource "$T/c3")" = unknown ] && ok "no switch line: unknown" || notok "c3: $(console_clocksource "$T/c3")"
meta() { printf '%s\n' "command: make bench TOPIC=demo" "kernel base: 6.12.118+ (base)" "$@" > "$T/meta.txt"; }
clocks() { /usr/bin/python3 "$S/report.py" --clocks "$T/meta.txt" > "$T/why"; }
meta "accel base: tcg" "clocksource base: tsc" "accel topic: tcg" "clocksource topic: tsc"
clocks && ok "two boots on tsc are compared" || notok "two boots on tsc refused: $(cat "$T/why")"
meta "clocksource base: tsc" "clocksource topic: tsc-early"
clocks && ok "tsc-early and tsc are one counter: compared" || notok "tsc-early vs tsc refused: $(cat "$T/why")"
meta "clocksource base: hpet" "clocksource topic: refined-jiffies"
! clocks && grep -q 'refined-jiffies' "$T/why" && ok "a boot on refined-jiffies is refused" || notok "refined-jiffies not refused"
meta "clocksource base: hpet" "clocksource topic: tsc"
! clocks && grep -q 'different clocksources: base hpet, topic tsc' "$T/why" && ok "hpet against tsc is refused" || notok "hpet vs tsc not refused: $(cat "$T/why")"
meta "clocksource base: tsc" "clocksource topic: unknown"
! clocks && ok "a boot whose clock is unknown is refused" || notok "unknown not refused"
meta
clocks && ok "results without clock lines (recorded before) still show" || notok "old meta refused"
# The page: a refused topic shows why and not its table.
mkdir -p "$T/out/report" "$T/out/bench/demo"
printf '%s\n' "# demo" "" "| config | ns |" "|---|---|" "| base | 7023 |" "| topic | 5000 |" > "$T/out/report/demo.md"
meta "accel base: tcg" "clocksource base: hpet" "accel topic: tcg" "clocksource topic: refined-jiffies"
cp "$T/meta.txt" "$T/out/bench/demo/"
/usr/bin/python3 "$S/report.py" "$T/out" demo >/dev/null
h=$T/out/report/index.html
grep -q 'Comparison refused' "$h" && ! grep -q '<td>5000</td>' "$h" && ok "the page refuses the comparison and leaves out the table" || notok "page shows a refused comparison"
grep -q 'accel topic: tcg' "$h" && grep -q 'clocksource base: hpet' "$h" && ok "the page shows each boot's accelerator and clocksource" || notok "accel/clocksource not on the page"
ktap_exit
