# shellcheck shell=bash
# Sourced by scripts/roundtrip.sh and by the tests: a throw-away copy of the
# repository (scripts, checks, one topic) and of the cache (a shared clone of
# the base, no worktrees), so nothing touches the real topic worktrees,
# branches or cover letters.
#
#   sb_new DIR            DIR/repo + DIR/cache; exports MM_CACHE, MM_OUT,
#                         SB_REPO, SB_SRC (the real repository)
#   sb_topic TOPIC        copy branches/TOPIC, cover-letters/TOPIC(.sent) in
#   sb_demo [TOPIC]       make a small demo topic (2 patches on mm/; 1 if TOPIC is demo1) in the
#                         sandbox only; MM_TOPICS becomes that topic
#   sb_sparse DIR TOPIC   make DIR a sparse checkout (git cone mode) of the
#                         base: the folders the topic's patches touch, scripts/
#                         and what get_maintainer.pl wants to see; a full
#                         kernel checkout (and its removal) takes minutes on a
#                         busy machine, this takes seconds
#   sb_worktree TOPIC     the topic's worktree as such a sparse checkout
#                         (import.sh then reuses it)
SB_SRC=${SB_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# the real cache, as scripts/lib.sh derives it (roundtrip.sh passes its own)
SB_REAL_CACHE=${SB_REAL_CACHE:-$(. "$SB_SRC/scripts/lib.sh" && echo "$CACHE")}

sb_new() {
	local d=$1 ver
	mkdir -p "$d/repo/branches" "$d/repo/cover-letters" "$d/cache"
	cp -a "$SB_SRC/scripts" "$SB_SRC/checks" "$d/repo/"
	cp "$SB_SRC/branches/BASE" "$d/repo/branches/"
	[ -f "$SB_REAL_CACHE/base-version" ] || { echo "no base in $SB_REAL_CACHE: run 'make base'" >&2; return 1; }
	ver=$(cat "$SB_REAL_CACHE/base-version")
	git clone -q --shared --no-checkout "$SB_REAL_CACHE/base" "$d/cache/base"
	# the clone also brings the real sent/* tags: drop them, the sandbox
	# restores its own from cover-letters/<topic>.sent/
	git -C "$d/cache/base" tag -l 'sent/*' | xargs -r git -C "$d/cache/base" tag -d >/dev/null
	echo "$ver" >"$d/cache/base-version"
	git -C "$d/repo" init -q 2>/dev/null || true
	export MM_CACHE=$d/cache MM_OUT=$d/repo/out SB_REPO=$d/repo
	unset MM_LIST_DIR
}

sb_topic() {
	local t=$1
	[ -d "$SB_SRC/branches/$t" ] && cp -a "$SB_SRC/branches/$t" "$SB_REPO/branches/"
	[ -f "$SB_SRC/cover-letters/$t" ] && cp -a "$SB_SRC/cover-letters/$t" "$SB_REPO/cover-letters/"
	[ -d "$SB_SRC/cover-letters/$t.sent" ] && cp -a "$SB_SRC/cover-letters/$t.sent" "$SB_REPO/cover-letters/"
	[ -d "$SB_SRC/checks/exceptions" ] && mkdir -p "$SB_REPO/checks/exceptions"
	return 0
}

# Two small, checkpatch-clean patches made with plumbing (no checkout).
sb_demo() {
	local t=${1:-demo} base tag idx prev blob c1 c2 tmp
	export MM_TOPICS=$t
	tag=v$(cat "$MM_CACHE/base-version")
	base=$MM_CACHE/base
	tmp=$(mktemp -d)
	idx=$tmp/index
	export GIT_AUTHOR_NAME="mm-medley developers" GIT_AUTHOR_EMAIL=mm-medley@lists.example.org
	export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	GIT_INDEX_FILE=$idx git -C "$base" read-tree "$tag"
	# demo_comment FILE TEXT: the base's FILE with the comment TEXT before
	# its first #include, staged in the scratch index
	demo_comment() {
		git -C "$base" show "$tag:$1" | sed "0,/^#include/s//\/* $2 *\/\n#include/" >"$tmp/${1##*/}"
		GIT_INDEX_FILE=$idx git -C "$base" update-index --cacheinfo "100644,$(git -C "$base" hash-object -w "$tmp/${1##*/}"),$1"
	}
	demo_comment mm/ksm.c "Demo for the b4 round trip: this comment is all the patch does."
	c1=$(printf '%s\n' "mm/ksm: note the b4 demo at the top of the file" "" \
		"A comment only, so that the round trip of the submission tooling has" \
		"a patch for the KSM maintainers to review." "" \
		"Originally-by: Demo Author <demo.author@example.org>" \
		"Link: https://lore.kernel.org/r/20250101000000.1-demo@example.org" \
		"Signed-off-by: mm-medley developers <mm-medley@lists.example.org>" |
		git -C "$base" commit-tree "$(GIT_INDEX_FILE=$idx git -C "$base" write-tree)" -p "$tag")
	demo_comment mm/page_alloc.c "Demo for the b4 round trip: a second, independent comment."
	c2=$(printf '%s\n' "mm/page_alloc: note the b4 demo at the top of the file" "" \
		"A second comment-only patch, touching a file with other maintainers," \
		"so that the To/Cc of the two patches differ." "" \
		"Fixes: 0123456789ab (\"mm: a made-up upstream commit for the demo\")" \
		"Signed-off-by: mm-medley developers <mm-medley@lists.example.org>" |
		git -C "$base" commit-tree "$(GIT_INDEX_FILE=$idx git -C "$base" write-tree)" -p "$c1")
	mkdir -p "$SB_REPO/branches/$t"
	# "demo1": the single-patch variant (b4 mixes the cover into the patch)
	[ "$t" = demo1 ] && c2=$c1
	git -C "$base" format-patch -q --zero-commit --no-signature --no-cover-letter --numbered \
		--subject-prefix=PATCH --abbrev=12 -o "$SB_REPO/branches/$t" "$tag..$c2"
	unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
	cat >"$SB_REPO/cover-letters/$t" <<-EOF
	[PATCH 6.12] mm: a demo series for the b4 round trip

	This series exists only to exercise the submission tooling: two
	comment-only patches on mm/ksm.c and mm/page_alloc.c.

	Motivation: prove that b4 prep/send, the local list and b4 am agree.
	Design: nothing to design.
	Results: none, it changes no code.

	Base: Debian 12's linux-source-6.12 package, version $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null),
	unpacked and committed as one commit. The base-commit below names that
	commit of the fork's base tree, not a commit of linux.git.
	EOF
	rm -rf "$tmp"
}

sb_sparse_dirs() {
	local t=$1
	{
		cat "$SB_REPO/branches/$t"/*.patch 2>/dev/null |
			sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' |
			while read -r f; do d=$(dirname "$f"); [ "$d" = . ] || echo "$d"; done
		# get_maintainer.pl checks that these folders exist (top_of_kernel_tree)
		printf '%s\n' scripts LICENSES Documentation/mm arch/x86/mm include/linux/sched drivers/base \
			fs/proc init ipc kernel/sched lib/math mm
	} | sort -u
}

sb_sparse() {
	local dir=$1 t=$2 tag
	tag=v$(cat "$MM_CACHE/base-version")
	# shellcheck disable=SC2046
	git -C "$dir" sparse-checkout set --cone $(sb_sparse_dirs "$t") &&
		git -C "$dir" checkout -q -f --detach "$tag"
}

sb_worktree() {
	local t=$1 tag wt=$MM_CACHE/work/$1
	tag=v$(cat "$MM_CACHE/base-version")
	git -C "$MM_CACHE/base" worktree add -q --no-checkout --detach "$wt" "$tag" && sb_sparse "$wt" "$t"
}
