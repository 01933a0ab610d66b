#!/usr/bin/env bash
# The medley: every topic imported on its own (each must apply alone on the
# base), then merged in the order of branches/medley/order into branch
# "medley", linux-next style. Conflicts are resolved by the rerere records
# kept in branches/medley/rr-cache; a conflict without a record fails and
# names the files.
#   medley.sh            build branch medley in $WORK/medley
#   medley.sh --record   after resolving a conflict by hand in $WORK/medley
#                        and committing the merge: save the resolution
. "$(dirname "$0")/lib.sh"
wt=$WORK/medley
rr=$REPO/branches/medley/rr-cache
gitdir=$(git -C "$BASE" rev-parse --absolute-git-dir)
if [ "${1:-}" = --record ]; then
	mkdir -p "$rr"
	rsync -a "$gitdir/rr-cache/" "$rr/"
	say "medley: saved $(ls "$rr" | wc -l) resolutions in branches/medley/rr-cache"
	exit 0
fi
bash "$REPO/scripts/base.sh" >/dev/null
order=$(topics_from_order)
for t in $order; do check_topic "$t"; done
tag=$(base_tag)
# Nothing to do when the inputs are those of the last run and the tree is
# as that run left it (keeps the medley build incremental).
sum=$(cat "$REPO/branches/medley/order" $(for t in $order; do ls "$REPO/branches/$t"/*.patch "$REPO/cover-letters/$t" 2>/dev/null; done) \
	$(find "$rr" -type f 2>/dev/null | sort) | sha1sum | cut -c1-16)
if [ -e "$wt/.git" ] && [ "$(cat "$CACHE/medley.sum" 2>/dev/null)" = "$sum $(git -C "$wt" rev-parse 'HEAD^{tree}' 2>/dev/null)" ] &&
   [ -z "$(git -C "$wt" status --porcelain -uno)" ]; then
	say "medley: up to date ($(git -C "$wt" rev-parse --short HEAD))"; exit 0
fi
if [ ! -e "$wt/.git" ]; then git -C "$BASE" worktree prune; git -C "$BASE" worktree add -q -f --detach "$wt" "$tag"; fi
cd "$wt"
drop_stale_lock "$wt"
git merge --abort >/dev/null 2>&1 || true
git am --abort >/dev/null 2>&1 || true
g() { git -c user.name=mm-medley -c user.email=mm-medley@localhost -c rerere.enabled=true -c rerere.autoUpdate=true "$@"; }
# Each topic alone on the base, as its own series would be applied (in this
# worktree, so the topics' own worktrees are never touched).
for t in $order; do
	g checkout -q -f -B "medley-topic/$t" "$tag"
	for p in "$REPO/branches/$t"/*.patch; do
		[ -f "$p" ] || continue
		g am -q --keep-cr "$p" >"$CACHE/medley-am.log" 2>&1 || { g am --abort; cat "$CACHE/medley-am.log" >&2; die "medley: $t: $(basename "$p") does not apply alone on the base"; }
	done
done
g checkout -q -f -B medley "$tag"
git clean -q -fdx -e /.obj -e /.obj-bench
mkdir -p "$gitdir/rr-cache"
[ -d "$rr" ] && rsync -a "$rr/" "$gitdir/rr-cache/"
for t in $order; do
	if g merge -q --no-ff --no-edit -m "Merge topic '$t' into medley" "medley-topic/$t" >"$CACHE/medley-merge.log" 2>&1; then
		say "medley: merged $t"
		continue
	fi
	left=$(git diff --name-only --diff-filter=U)
	if [ -z "$left" ]; then
		g commit -q --no-edit && { say "medley: merged $t (conflict resolved by the recorded resolution)"; continue; }
	fi
	say "medley: merging $t conflicts in: $left"
	say "  resolve in $wt, 'git commit', then 'scripts/medley.sh --record' and rerun"
	exit 1
done
echo "$sum $(git rev-parse 'HEAD^{tree}')" > "$CACHE/medley.sum"
say "medley: branch medley = $tag + $(echo $order | wc -w) topics merged ($(git rev-parse --short HEAD))"
