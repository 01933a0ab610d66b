# shellcheck shell=sh
# again TRIES COMMAND...: run COMMAND (a program, or run_first and its
# arguments); when it fails because one of its THP faults fell back to
# small pages ("No THP is allocated": how many PMD-sized blocks are free
# when it faults is the guest's, not the kernel's under test), compact
# memory and run it again, TRIES runs in all. Each failed try is a TAP
# comment with the THP and compaction counters it moved. Any other
# failure, and the last try's, is the result. Sourced by guest/peer/tests;
# scripts/test/peer-again.sh tests it (PEER_VMSTAT, PEER_COMPACT: files in
# place of /proc/vmstat and /proc/sys/vm/compact_memory).
again_vm() {
	grep -E '^(thp_fault_alloc|thp_fault_fallback|thp_split_pmd|compact_stall|compact_fail) ' \
		"${PEER_VMSTAT:-/proc/vmstat}"
}
again() {
	local tries=$1 k=1 rc out=${PEER_TMP:-/tmp}/peer-again.out
	shift
	while :; do
		again_vm > $out.vm
		"$@" > $out 2>&1
		rc=$?
		case $rc in 0|4) break ;; esac
		grep -q 'No THP is allocated' $out || break
		[ $k -lt "$tries" ] || break
		echo "# try $k of $tries: No THP is allocated ($(again_vm |
			awk 'NR == FNR { a[$1] = $2; next } { printf "%s%s +%d", s, $1, $2 - a[$1]; s = ", " }' $out.vm -)); memory compacted, again"
		echo 1 > "${PEER_COMPACT:-/proc/sys/vm/compact_memory}"
		k=$((k + 1))
	done
	cat $out
	rm -f $out $out.vm
	return $rc
}
