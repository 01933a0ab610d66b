#!/usr/bin/env bash
# Builds through distcc (TAP): which DISTCC_HOSTS answer (a listener on
# 127.0.0.1 stands in for distccd, a closed port for a host that is down),
# the slots that set -j, and the fall-back to a local build.
. "$(dirname "$0")/prelude.lib"
. "$S/lib.sh"
. "$S/distcc.sh"
set +e
IS_DETAIL=$T/err
# a listener on a free port, and a port nobody listens on; it lives until
# the test ends (killed below), and the read waits for its ports
mkfifo "$T/ports"
/usr/bin/python3 -c '
import signal, socket
a = socket.socket(); a.bind(("127.0.0.1", 0)); a.listen(8)
b = socket.socket(); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1], flush=True)
signal.pause()' > "$T/ports" &
lp=$!
trap 'kill $lp 2>/dev/null; rm -rf "$T"' EXIT
read -r up down < "$T/ports"
setup() { ( DISTCC_HOSTS=$1; unset CCACHE_PREFIX DISTCC_JOBS; distcc_setup 2>"$T/err"
	echo "${DISTCC_HOSTS:-none}|${CCACHE_PREFIX:-none}|${DISTCC_JOBS:-none}" ) }
is "$( unset DISTCC_HOSTS; distcc_setup 2>/dev/null; echo "${CCACHE_PREFIX:-none}")" none "no DISTCC_HOSTS: nothing changes"
is "$(setup "127.0.0.1:$up/6")" "127.0.0.1:$up/6|distcc|6" "a host that answers: through distcc, -j its 6 slots"
is "$(setup "127.0.0.1:$up")" "127.0.0.1:$up|distcc|4" "no slots given: distcc's default of 4"
is "$(setup "127.0.0.1:$down/8 127.0.0.1:$up/3,lzo --randomize")" "--randomize 127.0.0.1:$up/3,lzo|distcc|3" "a host that is down is left out, options kept"
grep -q "127.0.0.1:$down/8 does not answer" "$T/err" && ok "and named" || notok "the host that is down is not named"
is "$(setup "127.0.0.1:$down")" "none|none|none" "no host answers: a local build"
grep -q 'building locally' "$T/err" && ok "and it says so" || notok "no word of the local fall-back"
# a host that never answers: the probe is bounded by timeout(1) with
# DISTCC_PROBE_SECS, and a probe that timed out (124) leaves the host out.
# A stand-in timeout records its arguments and reports a time-out, so
# nothing here waits or depends on how fast the machine is.
mkdir "$T/bin"
printf '#!/bin/sh\necho "$@" >> "%s"\ncase "$*" in *10.255.255.1*) exit 124 ;; esac\nshift\nexec "$@"\n' \
	"$T/timeout.args" > "$T/bin/timeout"
chmod +x "$T/bin/timeout"
is "$(PATH=$T/bin:$PATH DISTCC_PROBE_SECS=3 setup "10.255.255.1/4 127.0.0.1:$up/2")" "127.0.0.1:$up/2|distcc|2" \
	"a host whose probe times out is left out, the others kept"
is "$(sed -n 1p "$T/timeout.args" | cut -d' ' -f1-3)" "3 bash -c" "the probe runs under timeout DISTCC_PROBE_SECS"
grep -q "10.255.255.1/4 does not answer" "$T/err" && ok "and the host that timed out is named" || notok "no word of the host that timed out"
ktap_exit
