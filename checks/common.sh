# shellcheck shell=bash
# Sourced by every check. A check is run as `checks/<name> TOPIC`; it
# exits 0 (pass) or non-zero (fail), prints a one-line summary, writes its
# log to out/checks/<topic>/<name>.log and one row per patch to
# out/checks/<topic>/<name>.tsv ("<patch#|series>\t<ok|FAIL|ok*|->\t<note>")
# for the table of scripts/check-series.sh.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
CHECK=$(basename "$0")
T=${1:?usage: checks/$CHECK TOPIC}
check_topic "$T"
CDIR=$OUT/checks/$T
mkdir -p "$CDIR"
LOG=$CDIR/$CHECK.log
TSV=$CDIR/$CHECK.tsv
: > "$LOG"; : > "$TSV"
# A check that stops on a failed command (set -e) still says so in its
# summary line, instead of leaving the table's row blank.
trap 'echo "$CHECK: FAIL: stopped by a failed command at line $LINENO of checks/$CHECK (log: $LOG)"' ERR
shopt -s nullglob
PATCHES=("$REPO/branches/$T"/*.patch)
NP=${#PATCHES[@]}
[ "$NP" -gt 0 ] || { echo "$CHECK: $T has no patches"; echo "series	FAIL	no patches" > "$TSV"; exit 1; }
row() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$TSV"; }
log() { printf '%s\n' "$*" >> "$LOG"; }
# A scratch tree of the topic (base + all patches) that check-series made.
scratch() { bash "$REPO/scripts/at-patch.sh" "$T" "$NP"; }
# base_worktree DIR: a scratch worktree of base at the base tag, clean: made
# when missing; a lock or a git am left by an interrupted run is dropped;
# files are rewritten only when they differ from the tag, so objects built
# in DIR/.obj stay up to date.
base_worktree() {
	local tag
	tag=$(base_tag)
	if [ ! -e "$1/.git" ]; then git -C "$BASE" worktree prune; git -C "$BASE" worktree add -q -f --detach "$1" "$tag"; fi
	drop_stale_lock "$1"
	git -C "$1" am --abort >/dev/null 2>&1 || true
	if [ "$(git -C "$1" rev-parse HEAD)" != "$(git -C "$1" rev-parse "$tag^{commit}")" ] ||
	   [ -n "$(git -C "$1" status --porcelain -uno)" ]; then
		git -C "$1" checkout -q -f --detach "$tag"
	fi
	git -C "$1" clean -q -fd -e /.obj
}
# Files the series changes (paths in the tree), optionally filtered by a regex.
changed_files() {
	cat "${PATCHES[@]}" | sed -n 's|^+++ b/||p' | sort -u | grep -E "${1:-.}" || true
}
