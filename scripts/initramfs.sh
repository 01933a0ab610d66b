#!/usr/bin/env bash
# Build the guest initramfs for a kernel object folder with the tree's own
# usr/gen_init_cpio (no root needed): busybox-static, guest/init/init, the
# KTAP helper scripts/ktap.sh as /lib/ktap.sh (sourced by /init and every
# topic's tests), and /opt/<t> from guest/<t>/build for each topic named
# (plus the peer suite).
# Usage: initramfs.sh SRC OBJ OUTPUT.cpio.gz TOPIC...
. "$(dirname "$0")/lib.sh"
src=$1 obj=$2 img=$3; shift 3
stage=$obj/guest-stage
rm -rf "$stage" && mkdir -p "$stage/opt"
[ -x "$obj/usr/gen_init_cpio" ] || die "$obj/usr/gen_init_cpio missing: build the kernel first"
busybox=$(command -v busybox || echo /bin/busybox)
file "$busybox" | grep -q 'statically linked' || die "busybox-static is needed (make deps)"
# uapi headers of this very kernel, for the test programs.
make -s -C "$src" O="$obj" headers_install >/dev/null
for t in "$@"; do
	b=$REPO/guest/$t/build
	[ -x "$b" ] || continue
	mkdir -p "$stage/opt/$t"
	say "initramfs: building guest programs of $t"
	if ! KSRC=$src KOBJ=$obj OUTDIR=$stage/opt/$t "$b" >"$obj/guest-build-$t.log" 2>&1; then
		tail -20 "$obj/guest-build-$t.log" >&2
		die "guest programs of $t failed to build (log: $obj/guest-build-$t.log)"
	fi
	for f in tests bench; do
		[ -f "$REPO/guest/$t/$f" ] && install -m 755 "$REPO/guest/$t/$f" "$stage/opt/$t/$f"
	done
done
list=$stage.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "dir /bin 0755 0 0"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $REPO/guest/init/init 0755 0 0"
	echo "dir /lib 0755 0 0"
	echo "file /lib/ktap.sh $REPO/scripts/ktap.sh 0644 0 0"
	echo "dir /opt 0755 0 0"
	(cd "$stage" && find opt -mindepth 1 | sort | while read -r p; do
		if [ -d "$p" ]; then echo "dir /$p 0755 0 0"
		else echo "file /$p $stage/$p $(stat -c %a "$p") 0 0"; fi
	done)
} > "$list"
"$obj/usr/gen_init_cpio" "$list" | gzip -1 > "$img"
say "initramfs: $img ($(du -h "$img" | cut -f1))"
