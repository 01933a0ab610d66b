#!/usr/bin/env bash
# make export TOPIC=t: rewrite branches/t/ from branch t. The options are
# fixed so that import followed by export is byte-identical.
. "$(dirname "$0")/lib.sh"
t=${1:?usage: export.sh TOPIC}
check_topic "$t"
case $t in base|medley) die "export takes a topic: $TOPICS" ;; esac
wt=$WORK/$t
[ -e "$wt/.git" ] || die "no worktree for $t: run 'make import TOPIC=$t'"
cd "$wt"
git rev-parse -q --verify "refs/heads/$t" >/dev/null || die "no branch $t in $wt"
[ -z "$(git status --porcelain --untracked-files=no)" ] || die "$wt has uncommitted changes; commit them first"
tag=$(base_tag)
# Skip the b4 tracking commit (empty cover) if present: its text lives in
# cover-letters/<topic>.
first=$tag
cover=$(git log --format=%H --grep='^--- b4-submit-tracking ---' "$tag..$t" | tail -1)
[ -n "$cover" ] && first=$cover
tmp=$(mktemp -d)
git format-patch -q --zero-commit --no-signature --no-cover-letter --numbered \
	--subject-prefix=PATCH --abbrev=12 -o "$tmp" "$first..$t"
mkdir -p "$REPO/branches/$t"
rm -f "$REPO/branches/$t"/*.patch
cp "$tmp"/*.patch "$REPO/branches/$t/" 2>/dev/null || true
rm -rf "$tmp"
say "export: $t: $(ls "$REPO/branches/$t"/*.patch 2>/dev/null | wc -l) patches in branches/$t/"
