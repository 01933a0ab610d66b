#!/usr/bin/env bash
# Progress and time left (TAP): the estimator on fixture records of earlier
# make check runs (check-runs/*.tsv), the line it prints, and the watcher's
# output off a terminal (one line per PROGRESS_EVERY, not one per tick).
. "$(dirname "$0")/prelude.lib"
. "$S/lib.sh"
. "$S/progress.sh"
set +e
R=$T/runs; mkdir -p "$R"
run() { # FILE STATE then "step passed failed seconds" lines
	local f=$R/$1 st=$2; shift 2
	{ printf '# make check 2026-12-0%s commit abc, %s start\n' "${f: -5:1}" "$st"
	  printf '# step\tpassed\tfailed\tseconds\tcpu\tlog\n'
	  for l in "$@"; do printf '%s\t1\t\n' "$l" | tr ' ' '\t' | sed 's/\t$//'; done; } > "$f"
}
# columns: step name (one word here), passed, failed, seconds
run 20261201T100000.tsv cold "boot-sksm 5 0 300" "build-medley 1 0 900"
run 20261202T100000.tsv warm "boot-sksm 5 0 100" "build-medley 1 0 60"
run 20261203T100000.tsv warm "boot-sksm 5 0 120" "build-medley 1 0 70"
run 20261204T100000.tsv warm "boot-sksm 4 1 999" "build-medley 1 0 80"
run 20261205T100000.tsv warm "boot-sksm 5 0 110"
is "$(eta_estimate boot-sksm "$R")" 115 "median of the passing records (300 100 120 110), a failed run left out"
is "$(eta_estimate boot-sksm "$R" warm)" 110 "warm runs only when the cache is warm (100 120 110)"
is "$(eta_estimate build-medley "$R" cold)" 900 "cold runs only when the cache is cold"
is "$(eta_estimate build-medley "$R" none)" 75 "a state no run had: every run (median of 900 60 70 80)"
for i in 6 7 8 9; do run 2026121${i}T100000.tsv warm "boot-sksm 5 0 $((i * 1000))"; done
is "$(eta_estimate boot-sksm "$R")" 7000 "only the last five records count (110 6000 7000 8000 9000)"
is "$(eta_estimate no-such-step "$R")" "" "a step never recorded: no estimate"
is "$(eta_estimate boot-sksm "$T/empty")" "" "no records at all: no estimate"
# make check's real names have a space: "boot sksm"
printf '# make check x, warm start\nboot sksm\t5\t0\t42\t30\tlog\n' > "$T/real.tsv"; mkdir "$T/real"; mv "$T/real.tsv" "$T/real/"
is "$(eta_estimate "boot sksm" "$T/real")" 42 "step names with a space, as make check writes them"
echo "# total 600s: 400 passed, 0 failed, 0 known failures" >> "$R/20261202T100000.tsv"
echo "# total 700s: 400 passed, 0 failed, 0 known failures" >> "$R/20261203T100000.tsv"
echo "# total 100s: 3 passed, 9 failed, 0 known failures" >> "$R/20261204T100000.tsv"
is "$(eta_total "$R")" 650 "a whole run: the median of the passing runs' totals"
is "$(eta_fmt 45)" 45s "45 s"
is "$(eta_fmt 185)" 3m05s "3 min 5 s"
is "$(eta_fmt 3720)" 1h02m "1 h 2 min"
is "$(progress_line 30 100)" "    30s  ~1m10s left" "time left from the estimate"
is "$(progress_line 130 100)" "  2m10s  30s over the estimate (1m40s)" "past the estimate it says so"
is "$(progress_line 60 900 300 1200 objects)" "  1m00s  300/1200 objects  ~3m00s left" "time left from the counts when there are"
is "$(progress_line 60 "" 12 "" objects)" "  1m00s  12 objects" "a count without a total: no guess"
is "$(progress_line 5 "")" "     5s" "nothing known: elapsed time only"
# progress_watch on a clock of its own: date and sleep stand-ins (shell
# functions, which progress_watch calls before any command of that name).
# Each "sleep" moves the clock one second; at second $stop the watched
# process is ended. Nothing here waits on the real clock, so what is
# printed does not depend on how fast or busy the machine is.
cat > "$T/clock.sh" <<'CLOCK'
clock=1000 stop=${stop:-5}
date() { echo "$clock"; }
sleep() { clock=$((clock + 1)); if [ $((clock - 1000)) -ge "$stop" ]; then kill "$watched"; wait "$watched" || true; fi; return 0; }
CLOCK
watch_fake() { # LABEL EST [COUNT_FN TOTAL UNIT] [DETAIL_FN], on the fake clock
	( . "$T/clock.sh"; tail -f /dev/null & watched=$!; trap 'kill $watched 2>/dev/null || true' EXIT; progress_watch $watched "$@" )
}
# off a terminal: one line per PROGRESS_EVERY seconds, not per tick
PROGRESS_EVERY=2 stop=5 watch_fake demo 100 2>"$T/w" </dev/null
is "$(cat "$T/w")" "$(printf 'demo     2s  ~1m38s left\ndemo     4s  ~1m36s left')" \
	"off a terminal, a 5 s step prints a line at 2 s and 4 s at PROGRESS_EVERY=2, with the time left"
! grep -q $'\r' "$T/w" && ok "and no carriage return" || notok "watch lines: $(cat -A "$T/w")"
# on a terminal (script(1) gives one): the line is rewritten in place
if command -v script >/dev/null; then
	# (CI set means "not a terminal" to progress_watch: this case is a terminal)
	env -u CI script -qfc "bash -c '. \"$S/lib.sh\"; . \"$S/progress.sh\"; stop=3; . \"$T/clock.sh\"; tail -f /dev/null & watched=\$!; progress_watch \$watched tty 100'" /dev/null > "$T/tty" 2>&1
	# (each tick: carriage return, the line, erase to its end; a line per tick)
	is "$(grep -o $'\rtty [^\033]*left\033\\[K' "$T/tty" | wc -l)" 3 "on a terminal the line is rewritten in place (\\r ... ESC[K), once a tick"
fi
# callers run under set -euo pipefail: a detail or count function that
# fails (grep finding nothing yet) must not end them
failing() { grep -q nothing /dev/null; }
( set -euo pipefail; PROGRESS_EVERY=1 stop=3 watch_fake "strict" "" failing 10 objects failing 2>/dev/null; echo survived ) > "$T/strict"
grep -q survived "$T/strict" && ok "failing count and detail functions do not end a set -e caller" || notok "progress_watch ended a set -e caller"
ktap_exit
