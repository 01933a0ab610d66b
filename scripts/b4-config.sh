#!/usr/bin/env bash
# Make b4 and git send-email in the base repository (and so in every topic
# worktree) use the local transport only: sendemail.smtpserver =
# scripts/sendmail-local (never a network endpoint; without it b4 0.12 picks
# the kernel.org web endpoint in a kernel tree), no patatt signing, the
# project identity as sender, cover letters kept in an empty commit, To/Cc
# from scripts/get_maintainer.pl. Idempotent; series.sh runs it.
. "$(dirname "$0")/lib.sh"
[ -d "$BASE/.git" ] || die "no base repository at $BASE: run 'make base'"
# Written only where the value differs: a set base is then only read, and
# readers never contend for .git/config.lock.
c() {
	case $1 in
	--unset-all) git -C "$BASE" config --get-all "$2" >/dev/null || return 0 ;;
	*) [ "$(git -C "$BASE" config --get "$1" 2>/dev/null)" != "$2" ] || return 0 ;;
	esac
	git -C "$BASE" config "$@"
}
c sendemail.smtpserver "$REPO/scripts/sendmail-local"
c --unset-all sendemail.smtpserverport 2>/dev/null || true
c --unset-all sendemail.smtpencryption 2>/dev/null || true
c sendemail.from "${MM_SENDER_NAME:-mm-medley developers} <${MM_SENDER_EMAIL:-mm-medley@lists.example.org}>"
c b4.send-no-patatt-sign yes
c b4.prep-cover-strategy commit
c b4.send-auto-to-cmd "scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nol"
c b4.send-auto-cc-cmd "scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nom"
