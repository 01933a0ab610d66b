#!/usr/bin/env bash
# The peer suite's +thp-again=N (guest/peer/again.sh, TAP): a program that
# fails only with "No THP is allocated" runs again after a compaction, N
# runs at most, each failed try said with the counters it moved; any other
# failure, a pass and a skip are final at once. Fake programs under
# busybox sh, as in the guest; fake /proc/vmstat and compact_memory files
# (nothing is written to the host's /proc).
. "$(dirname "$0")/prelude.lib"
REPO=$(cd "$S/.." && pwd)
sh=$(command -v busybox >/dev/null && echo "busybox sh" || echo sh)
mkdir -p "$T/tmp" "$T/bin"
printf 'thp_fault_alloc 10\nthp_fault_fallback 0\nthp_split_pmd 0\ncompact_stall 0\ncompact_fail 0\n' > "$T/vmstat"
# a fake program: fails with "No THP is allocated" until its Nth run
# (counted in $T/runs), then exits with $2; each failed run moves the
# fallback counter as the kernel would
prog() {
	printf '#!/bin/sh\nn=$(( $(cat %s/runs 2>/dev/null || echo 0) + 1 )); echo $n > %s/runs\n' "$T" "$T" > "$T/bin/$1"
	printf 'if [ $n -lt %s ]; then sed -i "s/^thp_fault_fallback .*/thp_fault_fallback $n/" %s/vmstat; echo "Bail out! No THP is allocated"; exit 1; fi\necho "ok 1 split"; exit %s\n' "$2" "$T" "$3" >> "$T/bin/$1"
	chmod +x "$T/bin/$1"
}
prog thp2 2 0     # its THPs on the second run
prog never 99 0   # never gets them
prog other 1 1    # passes the THP check, fails otherwise
prog skip 1 4
again_run() { # NAME TRIES: prints "status|runs|compacted (0/1)|tries said" and the output
	local out rc
	rm -f "$T/runs" "$T/compact"
	out=$(cd "$REPO/guest/peer" && PEER_TMP=$T/tmp PEER_VMSTAT=$T/vmstat PEER_COMPACT=$T/compact \
		$sh -c '. ./again.sh; again "$0" "$1"' "$2" "$T/bin/$1" 2>&1)
	rc=$?
	echo "$rc|$(cat "$T/runs")|$(cat "$T/compact" 2>/dev/null || echo 0)|$(echo "$out" | grep -c '^# try')"
	echo "$out"
}
r=$(again_run thp2 3)
is "$(echo "$r" | head -1)" "0|2|1|1" "no THP on the first run: compacted, passes on the second, one try said"
case $r in *"# try 1 of 3: No THP is allocated (thp_fault_alloc +0, thp_fault_fallback +1,"*"memory compacted, again"*"ok 1 split"*) ok "the failed try is said, with the counters it moved" ;;
	*) notok "output: $r" ;; esac
r=$(again_run never 3)
is "$(echo "$r" | head -1)" "1|3|1|2" "never a THP: three runs, two tries said, the last one's failure is the result"
r=$(again_run other 3)
is "$(echo "$r" | head -1)" "1|1|0|0" "another failure: one run, not repeated"
r=$(again_run skip 3)
is "$(echo "$r" | head -1)" "4|1|0|0" "a skip: one run"
r=$(again_run never 1)
is "$(echo "$r" | head -1)" "1|1|0|0" "+thp-again absent (one run): never repeated"
[ -z "$(ls "$T/tmp")" ] && ok "nothing left in PEER_TMP" || notok "PEER_TMP: $(ls "$T/tmp")"
ktap_exit
