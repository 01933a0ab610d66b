# shellcheck shell=bash
# Common settings for every script: where the caches live, which topics
# exist, how to print. Sourced, never run.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mm-medley}
BASE=$CACHE/base            # git tree of the unpacked linux-source-6.12
WORK=$CACHE/work            # one git worktree per topic
OBJ=$CACHE/obj              # one object folder per topic (O=)
OUT=${MM_OUT:-$REPO/out}    # every result a person or a machine reads
TARBALL=${MM_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# The topics, in merge order: branches/medley/order is their one list.
topics_from_order() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO/branches/medley/order" 2>/dev/null | tr -s ' \n' ' ' | sed 's/ $//'; }
TOPICS=${MM_TOPICS:-$(topics_from_order)}
BUILD_LOCK=$CACHE/build.lock
# Debian's python3 first (the tree's scripts need python3-ply, reports need
# matplotlib), whatever python a developer has earlier on PATH.
export PATH="/usr/bin:/bin:$PATH"
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# Each tree's objects live in <tree>/.obj (ignored by git; $OBJ/<name> is a
# symlink to it), so every compile sees its sources at "..": with ccache's
# base_dir, the base, every topic and the medley share cached objects for
# every file they have in common.
export CCACHE_BASEDIR=$CACHE
# Depend mode: a miss compiles once, without ccache's extra preprocessor
# run (kbuild's -Wp,-MMD lists the headers); a cold build is what bounds a
# cold `make check`, and hits between trees still need equal headers.
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}

say()  { printf '%s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# Valid values: a topic, "base" (unpatched), "medley" (all topics).
check_topic() {
	local t=$1 x
	for x in $TOPICS base medley; do [ "$x" = "$t" ] && return 0; done
	die "unknown topic '$t'; topics are: $TOPICS (and base, medley)"
}

# drop_stale_lock DIR: a git index.lock in DIR that no running process
# holds open was left by an interrupted run (make check's time budget stops
# a step with SIGKILL after SIGTERM, possibly inside a checkout); every
# later git command in DIR would fail on it. A live git keeps its lock
# file open until it commits it, so one that nobody has open is stale.
drop_stale_lock() {
	local lock
	lock=$(git -C "$1" rev-parse --path-format=absolute --git-path index.lock 2>/dev/null) || return 0
	[ -e "$lock" ] || return 0
	# (not "find | grep -q": under pipefail, find's SIGPIPE or a process
	# that ended mid-walk would read as "nobody holds it")
	[ -z "$(find /proc/[0-9]*/fd -maxdepth 1 -lname "$lock" -print -quit 2>/dev/null || true)" ] || return 0
	rm -f "$lock"
	say "$(basename "$1"): removed $lock, left by an interrupted run"
}

base_version() { cat "$CACHE/base-version" 2>/dev/null || die "no base yet: run 'make base'"; }
base_tag() { echo "v$(base_version)"; }

# console_clocksource LOG: the clocksource a guest ended up timing with, from
# its console (the kernel's last "Switched to clocksource" line), or unknown.
console_clocksource() {
	local cs
	cs=$(sed -n 's/.*clocksource: Switched to clocksource \([^ ]*\).*/\1/p' "$1" 2>/dev/null | tr -d '\r' | tail -1)
	echo "${cs:-unknown}"
}
