#!/usr/bin/env bash
# Unpack Debian's linux-source-6.12 into the cache (outside the repository),
# commit it as a git tree and tag it with its exact version. Idempotent: an
# existing, tagged base is left as it is; a half-made one is made again.
. "$(dirname "$0")/lib.sh"

# One base.sh at a time: make check's two lanes (and every script that
# needs the base) call it side by side, and two of them writing the base's
# config at once made one fail ("could not lock config file"; a CI run
# lost its test-scripts step to that race).
mkdir -p "$CACHE"
exec 6>"$CACHE/base.lock"
flock 6
if [ -f "$CACHE/base-version" ] && git -C "$BASE" rev-parse -q --verify "refs/tags/$(base_tag)" >/dev/null 2>&1; then
	say "base: $(base_tag) at $BASE ($(git -C "$BASE" rev-parse --short "$(base_tag)"))"
	[ "$(git -C "$BASE" config gc.auto)" = 0 ] || git -C "$BASE" config gc.auto 0
	bash "$REPO/scripts/b4-config.sh" >/dev/null   # b4 by hand: local transport only
	exit 0
fi
[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps'"
rm -rf "$BASE" "$CACHE/base-version" "$WORK"
mkdir -p "$CACHE"
tmp=$CACHE/base.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
say "base: unpacking $TARBALL"
tar -C "$tmp" -xJf "$TARBALL"
src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)
# Debian's top-level .gitignore ends with a block that ignores everything at
# the top level ("/*", "!/debian/"): drop it or git would track nothing.
sed -i '/^# Debian packaging/,$d' "$src/.gitignore"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
kver=$(make -s -C "$src" kernelversion)
[ -n "$ver" ] || ver=$kver
tagver="$kver-debian-${ver#*-}"
tagver=${tagver//\~/_}
cd "$src"
git init -q -b base
# No automatic gc: after the first commit of 80k files "git gc --auto"
# repacked the whole tree in the background (minutes of both cores in a
# cold make check), holding this script's lock, inherited, all the while.
# The base is a cache; loose objects serve its worktrees as well.
git config gc.auto 0
git -c user.name="mm-medley" -c user.email="mm-medley@localhost" add -A
GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z" git -c user.name="Debian kernel team" \
	-c user.email="debian-kernel@lists.debian.org" \
	commit -q -m "Linux $kver (Debian linux-source-6.12 $ver)"
# A lightweight tag and fixed dates: the same tarball gives the same commit
# on every machine, so the base-commit of a series is reproducible.
git tag "v$tagver"
cd - >/dev/null
mv "$src" "$BASE"
rm -rf "$tmp"
echo "$tagver" > "$CACHE/base-version"
rec="$tagver $(git -C "$BASE" rev-parse HEAD)"
if [ -f "$REPO/branches/BASE" ] && [ "$(cat "$REPO/branches/BASE")" != "$rec" ]; then
	say "base: warning: branches/BASE records '$(cat "$REPO/branches/BASE")', this machine made '$rec'"
else
	echo "$rec" > "$REPO/branches/BASE"
fi
say "base: v$tagver at $BASE ($(git -C "$BASE" rev-parse --short HEAD))"
# b4 used by hand in any topic worktree: local transport only, from the start.
bash "$REPO/scripts/b4-config.sh" >/dev/null
