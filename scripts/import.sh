#!/usr/bin/env bash
# make import TOPIC=t: branch t = recorded base + git am of branches/t/*.patch,
# checked out in the topic's worktree (outside the repository).
# On a patch that does not apply: name it and the file, abort the am (the
# worktree is left at the last good state and the base tree is untouched),
# exit non-zero.
. "$(dirname "$0")/lib.sh"
t=${1:?usage: import.sh TOPIC}
check_topic "$t"
[ "$t" = base ] && { bash "$REPO/scripts/base.sh"; exit 0; }
[ "$t" = medley ] && exec bash "$REPO/scripts/medley.sh"
bash "$REPO/scripts/base.sh" >/dev/null
wt=$WORK/$t
tag=$(base_tag)
if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	git -C "$BASE" worktree prune
	git -C "$BASE" worktree add -q -f --detach "$wt" "$tag"
fi
cd "$wt"
drop_stale_lock "$wt"
shopt -s nullglob
patches=("$REPO/branches/$t"/*.patch)
# Already imported from exactly these files, and untouched since: keep the
# files (and their timestamps, so builds stay incremental).
sum=$(cat "${patches[@]}" $(ls "$REPO/cover-letters/$t" 2>/dev/null) /dev/null | sha1sum | cut -c1-16)
if [ "$(cat "$CACHE/import-$t.sum" 2>/dev/null)" = "$sum $(git rev-parse "$t^{tree}" 2>/dev/null)" ] &&
   [ "$(git rev-parse --abbrev-ref HEAD)" = "$t" ] && [ -z "$(git status --porcelain -uno)" ]; then
	say "import: $t up to date ($(git rev-parse --short HEAD))"; exit 0
fi
rm -f "$CACHE/import-$t.sum"
# Recover from an interrupted import: abort any am in progress.
git am --abort >/dev/null 2>&1 || true
git checkout -q -f --detach "$tag"
git clean -q -fdx -e /.obj -e /.obj-bench
git checkout -q -B "$t" "$tag"
# b4's sent tags of earlier revisions (sent/<t>-vN), kept in cover-letters/<t>.sent/
[ -d "$REPO/cover-letters/$t.sent" ] && bash "$REPO/scripts/sent-tags.sh" restore "$t"
[ ${#patches[@]} -gt 0 ] || { say "import: $t has no patches yet; branch $t = $tag"; exit 0; }
# Restore the b4 tracking (cover) commit first, if the topic was enrolled.
if [ -f "$REPO/cover-letters/$t" ] && grep -q -- '--- b4-submit-tracking ---' "$REPO/cover-letters/$t"; then
	git -c user.name="$(git -C "$REPO" config user.name || echo mm-medley)" \
	    -c user.email="$(git -C "$REPO" config user.email || echo mm-medley@localhost)" \
	    commit -q --allow-empty -F "$REPO/cover-letters/$t"
fi
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	if ! git am -q --keep-cr "$p" >"$CACHE/import-$t.log" 2>&1; then
		file=$(sed -n 's/^error: patch failed: \(.*\):[0-9]*$/\1/p; s/^error: \(.*\): does not exist in index$/\1/p' "$CACHE/import-$t.log" | head -1)
		git am --abort >/dev/null 2>&1 || true
		git checkout -q -f "$tag" && git branch -q -D "$t" 2>/dev/null || true
		git checkout -q -B "$t" "$tag"
		say "import: $t: patch $n ($(basename "$p")) does not apply${file:+ (file: $file)}"
		sed 's/^/  /' "$CACHE/import-$t.log" >&2
		exit 1
	fi
done
echo "$sum $(git rev-parse "$t^{tree}")" > "$CACHE/import-$t.sum"
say "import: $t = $tag + $n patches ($(git rev-parse --short HEAD)) in $wt"
