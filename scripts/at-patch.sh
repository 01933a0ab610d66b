#!/usr/bin/env bash
# A worktree of topic t at its Nth patch (t@N), for bisect builds and for
# benchmarks that compare a series step by step.
. "$(dirname "$0")/lib.sh"
t=${1:?usage: at-patch.sh TOPIC N}; n=${2:?usage: at-patch.sh TOPIC N}
check_topic "$t"
shopt -s nullglob
patches=("$REPO/branches/$t"/*.patch)
[ "$n" -ge 0 ] && [ "$n" -le ${#patches[@]} ] || die "$t has ${#patches[@]} patches, not $n"
wt=$WORK/$t@$n
tag=$(base_tag)
if [ ! -e "$wt/.git" ]; then
	git -C "$BASE" worktree prune
	git -C "$BASE" worktree add -q -f --detach "$wt" "$tag"
fi
cd "$wt"
drop_stale_lock "$wt"
git am --abort >/dev/null 2>&1 || true
# Reuse the worktree when it already holds exactly these patches (keeps
# incremental builds incremental).
want=$(cat "${patches[@]:0:$n}" /dev/null | sha1sum | cut -c1-16)
[ "$(cat "$CACHE/patches-$t@$n.sum" 2>/dev/null)" = "$want" ] && [ -z "$(git status --porcelain -uno)" ] && { echo "$wt"; exit 0; }
git checkout -q -f --detach "$tag" && git clean -q -fd
for p in "${patches[@]:0:$n}"; do
	git am -q --keep-cr "$p" || { git am --abort; die "$t: $(basename "$p") does not apply"; }
done
echo "$want" > "$CACHE/patches-$t@$n.sum"
echo "$wt"
