#!/usr/bin/env bash
# The guest's shared helpers stay the only ones (TAP): every guest tests
# script (guest/*/tests, guest/init/init, guest/*/variants/boot) sources
# scripts/ktap.sh, which the initramfs holds as /lib/ktap.sh, and neither
# defines its own ok/notok/skip/verdict/diag nor prints a result line by
# hand; no guest C program defines its own now() or cpu_now() (they are in
# guest/lib/mm_guest.h) or prints a KTAP result line with printf (the
# tree's kselftest.h does). <1 s.
# Usage: guest-helpers.sh [REPO]   (default: this repository)
. "$(dirname "$0")/prelude.lib"
R=${1:-$(cd "$S/.." && pwd)}
cd "$R" || exit 1

scripts=$(ls guest/*/tests guest/init/init guest/*/variants/boot 2>/dev/null)
[ -n "$scripts" ] || { notok "guest tests scripts found under $R/guest"; ktap_exit; }

# a function of the helper's defined again: "NAME() {" or "NAME () {"
defines=$(grep -nE '^[[:space:]]*(ok|notok|nok|not_ok|skip|verdict|diag|pass|fail)[[:space:]]*\(\)' $scripts)
is "$defines" "" "no guest tests script defines its own ok/notok/skip/verdict/diag"

# a result line printed by hand: echo/printf of "ok N" or "not ok N"
# (the helper numbers results: its lines need no echo)
byhand=$(grep -nE '(echo|printf)[[:space:]]+(-[a-z]+[[:space:]]+)?["'\'']?(not )?ok (\$|[0-9%])' $scripts)
is "$byhand" "" "no guest tests script prints an ok/not ok line by hand"

# each sources the helper: /lib/ktap.sh in the guest, scripts/ktap.sh on
# the host (variants/boot runs there)
missing=
for f in $scripts; do
	grep -qE '^[[:space:]]*\. ("?\$repo/scripts|/lib)/ktap\.sh' "$f" || missing="$missing $f"
done
is "${missing# }" "" "every guest tests script sources the KTAP helper"

# the initramfs holds it where they look
grep -q 'file /lib/ktap.sh $REPO/scripts/ktap.sh' scripts/initramfs.sh
is $? 0 "scripts/initramfs.sh ships scripts/ktap.sh as /lib/ktap.sh"

csrc=$(find guest -name '*.c' -not -path 'guest/lib/*' | sort)
# a definition of a clock the shared header has: "double now(void)" and
# the like, at the start of a line or after "static"/"inline"
clocks=$(grep -nE '^[a-z _]*[[:space:]*](now|cpu_now|now_ns)[[:space:]]*\([[:space:]]*(void)?[[:space:]]*\)[[:space:]]*(\{|$)' $csrc)
is "$clocks" "" "no guest C program defines its own now() or cpu_now() (guest/lib/mm_guest.h)"

# a KTAP result line printed by hand, outside kernel modules' pr_info
ctap=$(grep -nE 'printf\("(not )?ok %' $csrc)
is "$ctap" "" "no guest C program prints a KTAP result line by hand (kselftest.h)"

# each program that uses a clock of the header includes it, and its build
# script finds it
noinc=
for f in $(grep -lE '\b(now|cpu_now)\(\)' $csrc); do
	grep -q '#include "mm_guest.h"' "$f" || noinc="$noinc $f"
done
is "${noinc# }" "" "every guest C program that calls now() includes mm_guest.h"
nobuild=
for f in $(grep -l '#include "mm_guest.h"' $csrc); do
	b=${f#guest/}; b=guest/${b%%/*}/build
	grep -q 'here/../lib' "$b" || nobuild="$nobuild $b"
done
is "${nobuild# }" "" "the build script of each program that includes mm_guest.h adds -I guest/lib"

# What the helper prints is what the host reads: a run framed as /init
# frames it (under busybox sh, the guest's shell, when there is one), a
# topic's tests with a program's kselftest.h lines nested (its skip line
# ends in a space), then scripts/results.py on it. A topic that passes,
# and one that crashed (exit status 139) after one of its three results.
sh=$(command -v busybox >/dev/null && echo "busybox sh" || echo sh)
$sh -c '. "$1"
	ktap_header 1; ktap_plan 2
	ktap_subtest a
	{ ktap_header; ktap_plan 3
	  printf "KTAP version 1\n1..2\nok 1 prog x\nok 2 prog y # SKIP \n" | sed "s/^/    /"
	  verdict 0 "prog exits 0"; skip "b" "no b here"; notok "c"; } | sed "s/^/    /"
	ktap_subtest_end a 0
	ktap_subtest b
	{ ktap_header; ktap_plan 3; ok "first"; } | sed "s/^/    /"
	ktap_subtest_end b 139
	echo MEDLEY-DONE' _ "$R/scripts/ktap.sh" > "$T/results.txt"
echo "Linux version 6.12" > "$T/console.log"
/usr/bin/python3 "$R/scripts/results.py" --name h --json "$T/r.json" "$T/console.log" "$T/results.txt" > "$T/r.out" 2>&1
rc=$?
got=$(/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for t in d["tests"]:
    print(t["group"], t["name"], t["status"], t["directive"])
for p in d.get("problems", []):
    print("problem:", p["group"], p["message"].split(";")[0])' "$T/r.json" 2>&1)
want="a prog x ok 
a prog y ok SKIP
a prog exits 0 ok 
a b ok SKIP
a c not ok 
b first ok 
problem: b b: after 1 of 3 results, exit status 139"
IS_DETAIL=$T/r.out is "$rc:$got" "1:$want" "results.py reads the helper's lines and kselftest.h's (a crash fails its topic)"
ktap_exit
