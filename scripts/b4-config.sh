#!/usr/bin/env bash
# Make b4 and git send-email in the base repository (and so in every topic
# worktree) use the local transport only: sendemail.smtpserver =
# scripts/sendmail-local (never a network endpoint; without it b4 0.12 picks
# the kernel.org web endpoint in a kernel tree), no patatt signing, the
# project identity as sender, cover letters kept in an empty commit, To/Cc
# from scripts/get_maintainer.pl. Idempotent; series.sh runs it.
. "$(dirname "$0")/lib.sh"
[ -d "$BASE/.git" ] || die "no base repository at $BASE: run 'make base'"
c() { git -C "$BASE" config "$@"; }
c sendemail.smtpserver "$REPO/scripts/sendmail-local"
c --unset-all sendemail.smtpserverport 2>/dev/null || true
c --unset-all sendemail.smtpencryption 2>/dev/null || true
c sendemail.from "${MM_SENDER_NAME:-mm-medley developers} <${MM_SENDER_EMAIL:-mm-medley@lists.example.org}>"
c b4.send-no-patatt-sign yes
c b4.prep-cover-strategy commit
c b4.send-auto-to-cmd "scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nol"
c b4.send-auto-cc-cmd "scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nom"
