#!/usr/bin/env bash
# Keep b4's sent tags (sent/<topic>-vN: the series as sent, annotated with
# the cover letter, base-commit and change-id) in the repository, so that a
# fresh import still has them and `b4 prep --compare-to vN` works.
#
#   sent-tags.sh save TOPIC     for each sent/<topic>-vN tag of the topic's
#                               worktree: cover-letters/<topic>.sent/vN.tag
#                               (tag message) + vN.mbox (the patches)
#   sent-tags.sh restore TOPIC  recreate the missing tags from those files:
#                               git am on the base (committer date = author
#                               date), git tag -a with the saved message.
#                               Needs the worktree clean; import.sh calls it
#                               right after resetting the branch to the base.
. "$(dirname "$0")/lib.sh"
cmd=${1:?usage: sent-tags.sh save|restore TOPIC}
t=${2:?usage: sent-tags.sh save|restore TOPIC}
check_topic "$t"
wt=$WORK/$t
dir=$REPO/cover-letters/$t.sent
[ -e "$wt/.git" ] || die "no worktree for $t: run 'make import TOPIC=$t'"
cd "$wt" || exit 1
ident=(-c user.name=mm-medley -c user.email=mm-medley@localhost)

case $cmd in
save)
	mkdir -p "$dir"
	n=0
	for ref in $(git for-each-ref --format='%(refname:strip=2)' "refs/tags/sent/$t-v*"); do
		v=${ref##*-}
		msg=$(git for-each-ref --format='%(contents)' "refs/tags/$ref")
		base=$(printf '%s\n' "$msg" | sed -n 's/^base-commit: *//p' | head -1)
		[ -n "$base" ] || die "$ref has no base-commit in its message"
		printf '%s\n' "$msg" >"$dir/$v.tag"
		git format-patch -q --stdout --no-signature --zero-commit --abbrev=12 \
			"$base..$ref^{commit}" >"$dir/$v.mbox"
		n=$((n + 1))
	done
	say "sent-tags: $t: $n sent tag(s) saved in ${dir#"$REPO"/}/"
	;;
restore)
	[ -d "$dir" ] || exit 0
	[ -z "$(git status --porcelain --untracked-files=no)" ] || die "$wt is not clean"
	head=$(git symbolic-ref -q --short HEAD || git rev-parse HEAD)
	n=0
	for f in "$dir"/v*.tag; do
		[ -e "$f" ] || continue
		v=$(basename "$f" .tag)
		name=sent/$t-$v
		git rev-parse -q --verify "refs/tags/$name" >/dev/null && continue
		base=$(sed -n 's/^base-commit: *//p' "$f" | head -1)
		git cat-file -e "$base^{commit}" 2>/dev/null || die "$name: base-commit $base is not in this tree"
		git checkout -q -f --detach "$base"
		if ! git "${ident[@]}" am -q --keep-cr --committer-date-is-author-date "$dir/$v.mbox" >"$CACHE/sent-tags-$t.log" 2>&1; then
			git am --abort >/dev/null 2>&1 || true
			git checkout -q -f "$head"
			cat "$CACHE/sent-tags-$t.log" >&2
			die "could not replay $name from ${dir#"$REPO"/}/$v.mbox"
		fi
		git "${ident[@]}" tag -a --cleanup=verbatim -F "$f" "$name" HEAD
		n=$((n + 1))
	done
	git checkout -q -f "$head"
	[ "$n" -eq 0 ] || say "sent-tags: $t: restored $n sent tag(s) from ${dir#"$REPO"/}/"
	;;
*) die "usage: sent-tags.sh save|restore TOPIC" ;;
esac
