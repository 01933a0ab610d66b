# shellcheck shell=bash
# Sourced by every check. A check is run as `checks/<name> TOPIC`; its
# result is one KTAP result line on stdout (scripts/ktap.sh), diagnostic
# "# " lines above it, and its exit status (KSFT codes):
#   pass SUMMARY    "# <name>: SUMMARY", "ok 1 - <name>"; exit 0
#   failed REASON   "not ok 1 - <name> # REASON"; exit 1
# It writes its log to out/checks/<topic>/<name>.log and one row per patch
# to out/checks/<topic>/<name>.tsv ("<patch#|series>\t<ok|FAIL|ok*|->\t<note>")
# for the table of scripts/check-series.sh, which reads the result line
# (ktap_take).
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
. "$REPO/scripts/ktap.sh"
CHECK=$(basename "$0")
pass() { printf '%s: %s\n' "$CHECK" "$*" | diag; ok "$CHECK"; exit "$KSFT_PASS"; }
failed() { notok "$CHECK # $(printf '%s' "$*" | tr '\n' ' ')"; exit "$KSFT_FAIL"; }
T=${1:?usage: checks/$CHECK TOPIC}
check_topic "$T"
CDIR=$OUT/checks/$T
mkdir -p "$CDIR"
LOG=$CDIR/$CHECK.log
TSV=$CDIR/$CHECK.tsv
: > "$LOG"; : > "$TSV"
# A check that stops on a failed command (set -e) still says so in its
# result line, instead of leaving the table's row blank.
trap 'failed "stopped by a failed command at line $LINENO of checks/$CHECK (log: $LOG)"' ERR
shopt -s nullglob
PATCHES=("$REPO/branches/$T"/*.patch)
NP=${#PATCHES[@]}
[ "$NP" -gt 0 ] || { echo "series	FAIL	no patches" > "$TSV"; failed "$T has no patches"; }
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
