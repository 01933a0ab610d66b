#!/usr/bin/env bash
# Builds through distcc (TAP): which DISTCC_HOSTS answer (a listener on
# 127.0.0.1 stands in for distccd, a closed port for a host that is down),
# the slots that set -j, and the fall-back to a local build.
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
. "$S/lib.sh"
. "$S/distcc.sh"
set +e
T=$(mktemp -d)
. "$S/ktap.sh"
echo "TAP version 13"
# a listener on a free port, and a port nobody listens on
/usr/bin/python3 -c '
import socket, sys, time
a = socket.socket(); a.bind(("127.0.0.1", 0)); a.listen(8)
b = socket.socket(); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1], flush=True)
time.sleep(60)' > "$T/ports" &
lp=$!
trap 'kill $lp 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 50); do [ -s "$T/ports" ] && break; sleep 0.1; done
read -r up down < "$T/ports"
setup() { ( DISTCC_HOSTS=$1; unset CCACHE_PREFIX DISTCC_JOBS; distcc_setup 2>"$T/err"
	echo "${DISTCC_HOSTS:-none}|${CCACHE_PREFIX:-none}|${DISTCC_JOBS:-none}" ) }
is() { if [ "$1" = "$2" ]; then ok "$3"; else notok "$3: wanted '$2', got '$1' ($(cat "$T/err"))"; fi; }
is "$( unset DISTCC_HOSTS; distcc_setup 2>/dev/null; echo "${CCACHE_PREFIX:-none}")" none "no DISTCC_HOSTS: nothing changes"
is "$(setup "127.0.0.1:$up/6")" "127.0.0.1:$up/6|distcc|6" "a host that answers: through distcc, -j its 6 slots"
is "$(setup "127.0.0.1:$up")" "127.0.0.1:$up|distcc|4" "no slots given: distcc's default of 4"
is "$(setup "127.0.0.1:$down/8 127.0.0.1:$up/3,lzo --randomize")" "--randomize 127.0.0.1:$up/3,lzo|distcc|3" "a host that is down is left out, options kept"
grep -q "127.0.0.1:$down/8 does not answer" "$T/err" && ok "and named" || notok "the host that is down is not named"
is "$(setup "127.0.0.1:$down")" "none|none|none" "no host answers: a local build"
grep -q 'building locally' "$T/err" && ok "and it says so" || notok "no word of the local fall-back"
s=$(date +%s); setup "10.255.255.1/4" >/dev/null; e=$(( $(date +%s) - s ))
[ $e -le 5 ] && ok "a host that never answers costs the probe's timeout (${e}s)" || notok "probe took ${e}s"
ktap_exit
