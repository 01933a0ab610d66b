#!/usr/bin/env bash
# The peer suite's +results=N (guest/peer/run-first.sh, TAP): a program is
# stopped once it has printed N results and those decide; what it left in
# the scratch folder goes, what was there stays; a program that ends by
# itself keeps its own status; one that never gets to N results is a
# failure (124) once the line's seconds have passed, however fast the
# machine. Fake programs under busybox sh, as in the guest.
. "$(dirname "$0")/prelude.lib"
REPO=$(cd "$S/.." && pwd)
sh=$(command -v busybox >/dev/null && echo "busybox sh" || echo sh)
mkdir -p "$T/tmp" "$T/bin"
prog() { # NAME BODY: a fake program
	printf '#!/bin/sh\n%s\n' "$2" > "$T/bin/$1"; chmod +x "$T/bin/$1"
}
prog pass 'mkdir "$PEER_TMP/left-behind"
echo "TAP version 13"; echo "1..12"; echo "ok 1 a"; echo "ok 2 b # SKIP no"; echo "ok 3 c"; exec sleep 1000'
prog fail 'echo "ok 1 a"; echo "not ok 2 b"; echo "ok 3 c"; exec sleep 1000'
prog short 'echo "ok 1 a"; exec sleep 1000'
prog ends 'echo "ok 1 a"; exit 4'
first() { # NAME SECS: run_first 3 SECS on it; prints "status|output"
	local out rc
	out=$(cd "$REPO/guest/peer" && PEER_TMP=$T/tmp $sh -c '. ./run-first.sh; run_first 3 "$0" "$1"' "$2" "$T/bin/$1" 2>&1)
	rc=$?
	echo "$rc|$out"
}
touch "$T/tmp/was-there"
r=$(first pass 60)
is "${r%%|*}" 0 "three results that pass (one a skip): status 0"
case $r in *"ok 3 c"*"stopped after its first 3 results"*) ok "its output is kept, and says it was stopped" ;;
	*) notok "output: $r" ;; esac
[ ! -e "$T/tmp/left-behind" ] && [ -e "$T/tmp/was-there" ] && [ ! -e "$T/tmp/peer-first.out" ] \
	&& ok "what it left in PEER_TMP is removed, what was there stays" || notok "PEER_TMP: $(ls "$T/tmp")"
r=$(first fail 60)
is "${r%%|*}" 1 "a failed result among the three: status 1"
r=$(first ends 60)
is "${r%%|*}" 4 "a program that ends by itself (KSFT_SKIP) keeps its status"
r=$(first short 1)
is "${r%%|*}" 124 "fewer results than asked for, never more: 124 after the line's seconds"
case $r in *"no 3 results in 1s"*) ok "and it says so" ;; *) notok "output: $r" ;; esac
ktap_exit
