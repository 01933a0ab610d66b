#!/usr/bin/env bash
# make deps: install with apt-get everything the fork needs. Idempotent:
# only missing packages are installed, and nothing when all are present.
. "$(dirname "$0")/lib.sh"
pkgs=(linux-source-6.12 git b4 sparse coccinelle qemu-system-x86 gcc make flex bison bc
	libelf-dev libssl-dev cpio busybox-static ccache distcc perl codespell public-inbox
	python3 python3-matplotlib python3-markdown python3-ply python3-git xz-utils file rsync chromium)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && { say "deps: all ${#pkgs[@]} packages present"; exit 0; }
say "deps: installing ${missing[*]}"
[ "$(id -u)" = 0 ] || die "run as root (or install: ${missing[*]})"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq "${missing[@]}" >/dev/null || die "apt-get install failed"
say "deps: installed ${#missing[@]} packages"
