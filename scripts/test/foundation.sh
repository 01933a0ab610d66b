#!/usr/bin/env bash
# Tests of the foundation scripts (TAP): topic validation, import/export
# round trip, a patch that does not apply, the console splat detector, the
# config-survival check. Uses a private cache that shares the real base
# repository's objects, so it never touches the topics' worktrees.
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
REPO=$(cd "$S/.." && pwd)
. "$S/lib.sh"
set +e
T=$(mktemp -d)
trap 'git -C "$BASE" worktree prune; rm -rf "$T"' EXIT
. "$S/ktap.sh"
check() { local what=$1; shift; if "$@" >>"$T/log" 2>&1; then ok "$what"; else notok "$what"; tail -5 "$T/log" | sed 's/^/# /'; fi; }
echo "TAP version 13"
# The fixtures below run check.sh on empty caches: its free-disk guard
# for a cold start must not depend on this machine's disk (tested apart).
export MM_DISK_NEED_GB=0
disk_guard() {
	local d=$T/diskguard
	mkdir -p "$d"
	! MM_CACHE=$d/cache MM_OUT=$d/out MM_DISK_NEED_GB=1000000 bash "$S/check.sh" >"$d/o" 2>&1 &&
		grep -q "make check from an empty cache ($d/cache) needs about 1000000 GB free there" "$d/o" &&
		[ ! -e "$d/out/check" ]
}
check "make check from an empty cache refuses to start on too little disk, naming the need" disk_guard

unknown() { ! bash "$S/import.sh" no-such-topic >"$T/o" 2>&1 && grep -q "unknown topic 'no-such-topic'; topics are: try-alloc-pages" "$T/o"; }
check "import refuses an unknown topic and lists the topics" unknown
unknown_build() { ! bash "$S/build.sh" nope >"$T/o" 2>&1 && grep -q "topics are:" "$T/o"; }
check "build refuses an unknown topic" unknown_build
unknown_boot() { ! bash "$S/boot.sh" nope >"$T/o" 2>&1 && grep -q "topics are:" "$T/o"; }
check "boot refuses an unknown topic" unknown_boot
make_unknown() { ! make -s -C "$REPO" import >"$T/o" 2>&1 && grep -q "TOPIC=... is required" "$T/o"; }
check "make import without TOPIC says what is needed" make_unknown

# make check's lanes call base.sh side by side (check-series and a round trip
# start at the same second): eight at once must all succeed.
parallel_base() {
	local pids=() p rc=0
	for p in 1 2 3 4 5 6 7 8; do bash "$S/base.sh" >>"$T/log" 2>&1 & pids+=($!); done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	return $rc
}
check "eight base.sh at once all succeed (no race on the base's config)" parallel_base

# A scratch repository: a fake topic in a private cache and a private copy
# of branches/ (so nothing in the real branches/ changes).
mkdir -p "$T/cache" "$T/repo"
cp -r "$REPO/scripts" "$REPO/checks" "$T/repo/"
mkdir -p "$T/repo/branches/demo" "$T/repo/cover-letters"
ln -s "$BASE" "$T/cache/base"
cp "$CACHE/base-version" "$T/cache/"
export MM_CACHE=$T/cache MM_TOPICS=demo
R=$T/repo/scripts
wt=$T/cache/work/demo
mkdemo() {
	bash "$R/import.sh" demo &&
	cd "$wt" &&
	printf '%s\n' "// SPDX-License-Identifier: GPL-2.0" "/* demo */" > mm/medley-demo.c &&
	git add mm/medley-demo.c &&
	git -c user.name=T -c user.email=t@example.org commit -q -s -m "mm: demo" -m "A demo change for the tests." &&
	echo "/* two */" >> mm/medley-demo.c &&
	git -c user.name=T -c user.email=t@example.org commit -q -s -a -m "mm: demo two" -m "Another demo change." &&
	cd - >/dev/null &&
	bash "$R/export.sh" demo && [ "$(ls "$T/repo/branches/demo" | wc -l)" = 2 ]
}
check "export writes a topic's commits as patches" mkdemo
roundtrip() {
	cp -r "$T/repo/branches/demo" "$T/before" &&
	bash "$R/import.sh" demo && bash "$R/export.sh" demo && diff -r "$T/before" "$T/repo/branches/demo"
}
check "import then export is byte-identical" roundtrip
badpatch() {
	sed -i 's|^+/\* two \*/|+/* two */|; s|^ /\* demo \*/| /* not what the tree has */|' "$T/repo/branches/demo/0002-"*.patch
	! bash "$R/import.sh" demo >"$T/o" 2>&1 &&
	grep -q "patch 2 (0002-mm-demo-two.patch) does not apply (file: mm/medley-demo.c)" "$T/o" &&
	[ -z "$(git -C "$BASE" status --porcelain -uno)" ] &&
	[ -z "$(git -C "$wt" status --porcelain -uno)" ] && ! git -C "$wt" am --show-current-patch >/dev/null 2>&1
}
check "a patch that does not apply is named with its file; trees left clean" badpatch
cp "$T/before"/* "$T/repo/branches/demo/"
recover() { bash "$R/import.sh" demo >/dev/null 2>&1; (cd "$wt" && git am "$T/repo/branches/demo/0002-"*.patch >/dev/null 2>&1); bash "$R/import.sh" demo && [ -z "$(git -C "$wt" status --porcelain -uno)" ]; }
check "an interrupted import (am in progress) recovers on the next run" recover
# A run stopped inside a git command leaves index.lock behind (a CI run
# failed check-series sksm on one): the next run drops it, but
# never a lock that a live process holds open.
stalelock() {
	local lock; lock=$(git -C "$wt" rev-parse --path-format=absolute --git-path index.lock)
	(exec 5>"$lock"; bash "$R/import.sh" demo && [ -e "$lock" ]) &&
	: >"$lock" && bash "$R/import.sh" demo && [ ! -e "$lock" ] && git -C "$wt" checkout -q --detach HEAD
}
check "a stale index.lock is dropped on the next run, a held one is kept" stalelock
# A fragment's "# use: <file>" names a shared fragment of guest/: one that
# does not exist stops the build before anything is configured.
mkdir -p "$T/repo/guest/demo"
cp "$REPO/guest/common.config" "$T/repo/guest/"
printf '# use: no-such.config\n' > "$T/repo/guest/demo/config"
baduse() { ! bash "$R/build.sh" demo >"$T/o" 2>&1 && grep -q "asks for guest/no-such.config" "$T/o"; }
check "a fragment's '# use:' of a missing shared fragment is refused by name" baduse
unset MM_CACHE MM_TOPICS

# The console splat detector.
printf '%s\n' "[    1.0] Linux version 6.12" "[    2.0] ok" > "$T/clean.log"
printf '%s\n' "MEDLEY-DONE" > "$T/done.txt"
check "a clean console passes" /usr/bin/python3 "$S/results.py" "$T/clean.log" "$T/done.txt"
for s in "BUG: sleeping function called from invalid context at mm/page_alloc.c:1" \
	 "WARNING: possible circular locking dependency detected" \
	 "Kernel panic - not syncing: Fatal exception" "WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:4 foo"; do
	printf '%s\n' "[    1.0] ok" "[    2.0] $s" > "$T/splat.log"
	check "splat fails the run: ${s:0:40}" bash -c "! /usr/bin/python3 '$S/results.py' '$T/splat.log' '$T/done.txt' >/dev/null"
done
check "an incomplete run (no MEDLEY-DONE) fails" bash -c "! /usr/bin/python3 '$S/results.py' '$T/clean.log' /dev/null >/dev/null"
printf '%s\n' "### topic x" "1..2" "ok 1 - a" "not ok 2 - b" "### end x rc=1" "MEDLEY-DONE" > "$T/r.txt"
check "a failing guest test fails the run" bash -c "! /usr/bin/python3 '$S/results.py' '$T/clean.log' '$T/r.txt' >/dev/null"
# make check's cpu column: each step counts its own CPU only. make check
# runs on stub steps here: the kernel lane's three steps each use 2 s of
# CPU, and the light lane's round trip waits until the kernel lane has
# ended (were the kernel lane the light lane's child, its CPU would land
# in whichever light step reaped it).
# Independent of the machine's load and speed: each burn counts its own CPU
# (bash's "times", the shell's user + system time) until it has used 2 s,
# however long that takes on the clock (a loop on $SECONDS got 0 CPU-s in 2
# wall seconds beside kernel builds); the round trip waits for the kernel
# lane's exit, not a fixed time.
lanes() {
	local d=$T/lanes st
	mkdir -p "$d/repo/scripts"
	cp "$S/check.sh" "$S/lib.sh" "$S/ktap.sh" "$S/progress.sh" "$S/results.py" "$d/repo/scripts/"
	st=$d/repo/scripts
	# (times into a file, read by this shell: in a pipe or $(...) it would
	# run in a subshell and report that subshell's CPU)
	burn='cpu=0; while [ $cpu -lt 2 ]; do i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done
times > "$0.t"; read -r u s < "$0.t"; u=${u%.*} s=${s%.*}; cpu=$(( ${u%m*} * 60 + 10#${u#*m} + ${s%m*} * 60 + 10#${s#*m} )); done'
	printf '%s\n' 'true' > "$st/base.sh"
	printf '%s\n' "$burn" > "$st/build.sh"
	# (each step leaves its KTAP where check.sh reads it)
	printf '%s\n' "$burn" 'mkdir -p "$MM_OUT/checks/$1"; printf "KTAP version 1\n1..1\nok 1 build\n" > "$MM_OUT/checks/$1/checks.ktap"' > "$st/check-series.sh"
	printf '%s\n' 'mkdir -p "$MM_OUT/test-scripts"; printf "KTAP version 1\n1..1\n    ok 1 - stub\nok 1 stub\n" > "$MM_OUT/test-scripts/all.ktap"' > "$st/test-scripts.sh"
	# The round trip waits until the kernel lane's process is gone: no
	# process of this check.sh left but the round trip's own ancestors
	# (were the lane this lane's child, its CPU would land here).
	cat > "$st/roundtrip.sh" <<-'EOF'
	anc=" " p=$$
	while [ "$p" -gt 1 ]; do anc="$anc$p "; p=$(awk '{ print $4 }' /proc/$p/stat); done
	# (one grep a round, its pattern not matching its own command line)
	for _i in $(seq 1 1200); do
		others=0
		for f in $(grep -las "$(dirname "$0")/check\.s[h]" /proc/[0-9]*/cmdline); do
			f=${f#/proc/}; f=${f%/cmdline}
			case $anc in *" $f "*) ;; *) others=1 ;; esac
		done
		[ $others = 0 ] && break
		sleep 0.5
	done
	echo "ok 1 - round trip"
	EOF
	# (STUB_FAIL=<topic>: that topic's boot fails its test)
	printf '%s\n' 'mkdir -p "$MM_OUT/boot/$1"; r=ok; [ "${STUB_FAIL:-}" != "$1" ] || r="not ok"; printf "KTAP version 1\n1..1\n$r 1 t\n" > "$MM_OUT/boot/$1/results.ktap"; echo console > "$MM_OUT/boot/$1/console.log"; echo "$1: done"' > "$st/boot.sh"
	printf '%s\n' 'print("ok 1 - peer")' > "$st/peer-compare.py"
	MM_CACHE=$d/cache MM_OUT=$d/out MM_TOPICS=t1 CI=1 bash "$st/check.sh" >"$d/o" 2>&1 || return 1
	cat "$d/out/check/summary.tsv"
	# the tools' unit tests come first, right after base, before the lanes
	[ "$(cut -f1 "$d/out/check/summary.tsv" | head -2 | tr '\n' ' ')" = "base unit " ] || { echo "unit is not the first step"; return 1; }
	# every step read from its KTAP: one pass each
	awk -F'\t' '$2 != 1 || $3 != 0 { bad = 1; print "not counted from its KTAP: " $0 } END { exit bad }' "$d/out/check/summary.tsv" || return 1
	# step passed failed seconds cpu log: each kernel step counted its
	# burn (2 s, at least 1 after rounding), the round trip (asleep) nothing
	awk -F'\t' '$1 ~ /^(build|check-series)/ && $5 < 1 { bad = 1; print "no CPU counted: " $0 }
		$1 == "roundtrip t1" && $5 > 1 { bad = 1; print "the kernel lane counted in: " $0 }
		END { exit bad }' "$d/out/check/summary.tsv" || return 1
	# The kernel lane, its builds done, takes the boots: the round trip
	# waits for its end, so every boot is recorded before the round trip.
	awk -F'\t' '$1 ~ /^boot/ { b = NR } $1 == "roundtrip t1" { r = NR } END { exit !(b && r && b < r) }' "$d/out/check/summary.tsv" ||
		{ echo "the kernel lane did not take the boots"; return 1; }
}
check "make check counts each step's own CPU, not the other lane's" lanes
# A failed step is named at the end, with its failed results, and its logs
# (a boot's console too) are kept in the cache beside the run's record.
failnamed() {
	local d=$T/lanes st=$T/lanes/repo/scripts
	rm -rf "$d/out" "$d/cache/check-runs"
	! MM_CACHE=$d/cache MM_OUT=$d/out MM_TOPICS=t1 CI=1 CHECK_LANES=1 STUB_FAIL=t1 bash "$st/check.sh" >"$d/o" 2>&1 || return 1
	grep -q '^check: FAIL boot t1:' "$d/o" && grep -q '^  not ok 1 t$' "$d/o" || { cat "$d/o"; return 1; }
	ls "$d"/cache/check-runs/*/console-t1.log "$d"/cache/check-runs/*/boot-t1.log "$d"/cache/check-runs/*/failed.txt >/dev/null
}
check "a failed step is named at the end and its logs kept in the cache" failnamed
echo "# foundation: $((ktap_n - ktap_fails)) passed, $ktap_fails failed"
ktap_exit
