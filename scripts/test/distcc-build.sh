#!/usr/bin/env bash
# A topic's kernel objects built by build.sh through distcc (TAP): a distccd
# listening on 127.0.0.1 stands in for a remote build host. build.sh (its
# locks, ccache with an empty cache, CCACHE_PREFIX=distcc) compiles a few of
# the topic's objects in a scratch object folder; distccd's own statistics
# must count every one of them, and the same objects built locally (no
# DISTCC_HOSTS) must be byte for byte the same.
#   MM_DISTCC_TOPIC  the topic (default: the first of branches/medley/order
#                    with an imported worktree)
# Skipped (KSFT_SKIP) without distcc/distccd or an imported topic.
# It configures a kernel in a scratch object folder and builds its prepare
# step and the objects twice, under build.sh's locks (it waits while other
# kernel builds hold them).
. "$(dirname "$0")/prelude.lib"
. "$S/lib.sh"
set +e
t=${MM_DISTCC_TOPIC:-}
if [ -z "$t" ]; then
	for x in $TOPICS; do [ -e "$WORK/$x/.git" ] && { t=$x; break; }; done
fi
if ! command -v distccd >/dev/null || ! command -v distcc >/dev/null; then
	skip "build through distcc" "distcc/distccd not installed (make deps)"; ktap_exit
fi
if [ -z "$t" ] || [ ! -e "$WORK/$t/.git" ]; then
	skip "build through distcc" "no imported topic (make import TOPIC=t)"; ktap_exit
fi
# The objects: the topic's changed mm/ C files its own object folder built
# (so they are in its configuration), at most four; else mm/page_alloc.o.
objs=$(cat "$REPO/branches/$t"/*.patch | sed -n 's|^+++ b/\(mm/[a-z_0-9]*\)\.c$|\1.o|p' | sort -u |
	while read -r o; do [ -f "$OBJ/$t/$o" ] && echo "$o"; done | head -4 | tr '\n' ' ')
objs=${objs:-mm/page_alloc.o}
diag <<<"topic $t, objects: $objs"

# distccd on two free ports (compiles, statistics), logging to a file
ports=$(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
read -r port sport <<<"$ports"
distccd --daemon --no-detach --listen 127.0.0.1 --port "$port" --allow 127.0.0.1 \
	--stats --stats-port "$sport" --jobs 2 --log-stderr --log-level info 2>"$T/distccd.log" &
dpid=$!
trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; rm -rf "$T"' EXIT
stats() { # the value of distccd's statistic $1
	/usr/bin/python3 - "$sport" "$1" <<-'EOF'
	import socket, sys
	s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
	s.sendall(b"GET / HTTP/1.0\r\n\r\n")
	data = b""
	while True:
	    b = s.recv(4096)
	    if not b:
	        break
	    data += b
	for line in data.decode(errors="replace").splitlines():
	    w = line.split()
	    if len(w) == 2 and w[0] == sys.argv[2]:
	        print(w[1])
	EOF
}
for _ in $(seq 50); do [ -n "$(stats dcc_compile_ok 2>/dev/null)" ] && break; sleep 0.2; done
before=$(stats dcc_compile_ok)
[ -n "$before" ] && ok "distccd answers on 127.0.0.1:$port (statistics on $sport)" ||
	{ notok "distccd did not start"; diag "$T/distccd.log"; ktap_exit; }

# The topic's branch in a scratch worktree of its own ($WORK/<t>@distcc,
# kept for the next run like the check's @check and @bisect trees): the
# sources cannot change between the two builds (the topic's owner may be
# editing $WORK/$t).
src=$WORK/$t@distcc
if [ ! -e "$src/.git" ]; then
	git -C "$BASE" worktree prune
	git -C "$BASE" worktree add -q -f --detach "$src" "refs/heads/$t" 2>"$T/err"
fi
drop_stale_lock "$src"
if ! { git -C "$src" checkout -q -f --detach "refs/heads/$t" && git -C "$src" clean -q -fdx; } 2>>"$T/err"; then
	notok "a scratch worktree of branch $t in $src"; diag "$T/err"; ktap_exit
fi
obj=$T/obj
build() { # build LOG [VAR=VALUE...]: build.sh's build of $objs in $obj
	local log=$1; shift
	env "$@" BUILD_TARGETS="$objs" bash "$S/build.sh" "$t" "$src" "$obj" >"$log" 2>&1
}
# 1. through distcc: an empty ccache, so that every object is a miss.
# A compile that fails on a host makes distcc leave that host out for
# DISTCC_BACKOFF_PERIOD (60 s) and compile here: objtool's
# parse-options.c fails under distcc (it is then compiled here, as distcc
# does), and the objects after it went to the local compiler in some
# runs. No back-off: every object is asked of the stand-in host.
if build "$T/distcc.out" DISTCC_HOSTS="127.0.0.1:$port/2" DISTCC_BACKOFF_PERIOD=0 CCACHE_DIR="$T/ccache-distcc"; then
	ok "build.sh $t ($objs) with DISTCC_HOSTS=127.0.0.1:$port/2"
else
	notok "build.sh $t with DISTCC_HOSTS"; tail -20 "$T/distcc.out" | diag
fi
grep -q "through distcc on 127.0.0.1:$port/2 (2 slots)" "$T/distcc.out" && ok "build.sh says it builds through distcc" ||
	{ notok "build.sh did not choose distcc"; diag "$T/distcc.out"; }
after=$(stats dcc_compile_ok)
cp "$obj/build.log" "$T/distcc-build.log" 2>/dev/null
n=0 missing=
for o in $objs; do
	n=$((n + 1))
	# distccd logs each job it compiled with its source file
	grep -Eq "COMPILE_OK .*[ /]${o%.o}\.c\$" "$T/distccd.log" || missing="$missing $o"
done
[ "$((after - before))" -ge "$n" ] && [ -z "$missing" ] &&
	ok "distccd compiled them: dcc_compile_ok $before -> $after, each of the $n sources in its log" ||
	{ notok "distccd compiled $((after - before)) jobs for $n objects; not in its log:${missing:- none}"
	  grep '^distcc\[' "$T/distcc-build.log" | head -20 | diag; }
mkdir -p "$T/via-distcc"
for o in $objs; do cp "$obj/$o" "$T/via-distcc/${o//\//_}" 2>/dev/null; rm -f "$obj/$o"; done
# 2. the same objects, built here: no distcc, another empty ccache
if build "$T/local.out" CCACHE_DIR="$T/ccache-local"; then ok "build.sh $t ($objs) locally"
else notok "build.sh $t locally"; tail -20 "$T/local.out" | diag; fi
grep -q 'through distcc' "$T/local.out" && notok "the local build went through distcc" || ok "the local build did not use distcc"
[ "$(stats dcc_compile_ok)" = "$after" ] && ok "distccd compiled nothing of the local build" ||
	notok "distccd's count moved during the local build: $after -> $(stats dcc_compile_ok)"
diff=
for o in $objs; do
	cmp -s "$obj/$o" "$T/via-distcc/${o//\//_}" && continue
	diff="$diff $o"
	# which sections differ, for the diagnosis
	for x in "$obj/$o" "$T/via-distcc/${o//\//_}"; do objdump -h "$x" | awk '$1 ~ /^[0-9]+$/ { print $2, $3 }' > "$x.sections"; done
	diff "$T/via-distcc/${o//\//_}.sections" "$obj/$o.sections" | head -10 | diag
done
[ -z "$diff" ] && ok "the objects built through distcc are those of the local build ($n, byte for byte)" ||
	notok "objects differ between the distcc and the local build:$diff"
ktap_exit
