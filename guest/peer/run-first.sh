# shellcheck shell=sh
# run_first N SECS PROGRAM ARGS...: run PROGRAM until it has printed N
# results, then stop it and remove what it left in /tmp (PEER_TMP); its
# status: 0 when those N passed (or skipped), 1 when one failed, its own
# when it ended before N results, 124 when SECS passed first (a hang
# guard). Sourced by guest/peer/tests; scripts/test/peer-first.sh tests it.
run_first() {
	local n=$1 secs=$2 tmp=${PEER_TMP:-/tmp} waited=0 pid got before bad out
	out=$tmp/peer-first.out
	shift 2
	before=$(ls "$tmp")
	"$@" > $out 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		got=$(grep -cE '^(not )?ok [0-9]+ ' $out)
		[ "$got" -ge "$n" ] && break
		[ $waited -ge "$secs" ] && break
		sleep 1
		waited=$((waited + 1))
	done
	got=$(grep -cE '^(not )?ok [0-9]+ ' $out)
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid; wait $pid
		for f in $(ls "$tmp"); do
			case " $(echo $before) peer-first.out " in
			*" $f "*) ;;
			*) ! grep -q " $tmp/$f " /proc/mounts || umount "$tmp/$f"
			   rm -rf "${tmp:?}/$f" ;;
			esac
		done
		cat $out
		bad=$(grep -cE '^not ok [0-9]+ ' $out)
		rm -f $out
		[ "$got" -ge "$n" ] || { echo "# no $n results in ${secs}s"; return 124; }
		echo "# stopped after its first $n results (guest/peer/subset says why)"
		[ "$bad" = 0 ] || return 1
		return 0
	fi
	wait $pid
	local rc=$?
	cat $out; rm -f $out
	return $rc
}
