"""What the series checks (checks/series-*) share: the series as written by
scripts/series.sh, read as mails, and how one check runs.

A series check is `checks/series-<name> TOPIC`. The series checked is
$MM_SERIES_DIR, else the highest out/series/<topic>/v<N>/. Its result is
one KTAP result line on stdout, as every check's (checks/common.sh):
diagnostic "# " lines, then "ok 1 - series-<name>", "not ok 1 -
series-<name> # <reason>" or "ok 1 - series-<name> # SKIP <reason>"; and
its exit status: 0 pass, 1 fail, 4 (KSFT_SKIP) when there is nothing to
check. It writes the details to out/checks/<topic>/series-<name>.log and
one row to series-<name>.tsv (the row format of checks/common.sh).
Each check is a function check(series, log) -> [problems]; main() below
does the rest.
"""
import email
import email.policy
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import libpaths  # noqa: E402

# The repository, cache, base, work and out folders (scripts/lib.sh's).
paths = libpaths.get


class Series:
    def __init__(self, topic):
        self.topic = topic
        d = os.environ.get('MM_SERIES_DIR')
        if not d:
            cands = []
            for p in glob.glob(os.path.join(paths().OUT, 'series', topic, 'v*')):
                m = re.fullmatch(r'v(\d+)', os.path.basename(p))
                if m and os.path.isdir(p):
                    cands.append((int(m.group(1)), p))
            d = max(cands)[1] if cands else None
        self.dir = d
        m = re.search(r'/v(\d+)(\.new|\.rejected)?/?$', d or '')
        self.revision = int(m.group(1)) if m else None
        self.mails = []
        for f in sorted(glob.glob(os.path.join(d, '*.eml'))) if d else []:
            with open(f, 'rb') as fh:
                msg = email.message_from_binary_file(fh, policy=email.policy.default)
            self.mails.append((os.path.basename(f), msg))

    def subject(self, msg):
        return re.sub(r'\s+', ' ', str(msg.get('Subject', ''))).strip()

    def body(self, msg):
        part = msg.get_body(preferencelist=('plain',)) or msg
        return part.get_content()

    def counter(self, msg):
        m = re.match(r'^\[([^]]*)\]', self.subject(msg))
        if not m:
            return None
        c = re.search(r'(?:^|\s)(\d+)/(\d+)(?:\s|$)', m.group(1))
        return (int(c.group(1)), int(c.group(2))) if c else None

    def patches(self):
        """Mails that carry a patch (every one but a 0/N cover)."""
        out = []
        for name, msg in self.mails:
            c = self.counter(msg)
            if c and c[0] == 0:
                continue
            out.append((name, msg))
        return out

    def cover(self):
        for name, msg in self.mails:
            c = self.counter(msg)
            if c and c[0] == 0:
                return name, msg
        return self.mails[0] if len(self.mails) == 1 else (None, None)


def tree_for(topic):
    wt = os.path.join(paths().WORK, topic)
    if os.path.exists(os.path.join(wt, 'scripts', 'get_maintainer.pl')):
        return wt
    return paths().BASE


def tree_script(topic, name):
    """(tree, path of scripts/<name> in the topic's tree, error or None)"""
    tree = tree_for(topic)
    path = os.path.join(tree, 'scripts', name)
    return tree, path, None if os.path.exists(path) else f'no scripts/{name} in {tree}'


def message_part(body):
    """The commit message of a patch mail: up to the first '---' line."""
    lines = []
    for line in body.split('\n'):
        if line.rstrip() == '---' or line.startswith('diff --git '):
            break
        lines.append(line)
    return lines


def policy(topic):
    """checks/send.conf: '<topic> [rfc] [cc=ADDR]...' -> {'rfc': bool, 'cc': [...]}"""
    pol = {'rfc': False, 'cc': []}
    f = os.path.join(paths().REPO, 'checks', 'send.conf')
    if os.path.exists(f):
        for line in open(f, encoding='utf-8'):
            parts = line.split('#', 1)[0].split()
            if not parts or parts[0] != topic:
                continue
            for w in parts[1:]:
                if w.lower() == 'rfc':
                    pol['rfc'] = True
                elif w.startswith('cc='):
                    pol['cc'].append(w[3:])
    return pol


KSFT_PASS, KSFT_FAIL, KSFT_SKIP = 0, 1, 4


def result(name, status, reason=''):
    """The check's KTAP result line (its number is 1: it is the only one;
    whoever runs several numbers them, scripts/ktap.sh's ktap_take)."""
    reason = re.sub(r'\s+', ' ', reason).strip()
    if status == KSFT_PASS:
        return f'ok 1 - {name}'
    if status == KSFT_SKIP:
        return f'ok 1 - {name} # SKIP {reason}'
    return f'not ok 1 - {name} # {reason}'


def main(check, what, func):
    """Run func(series, log) on the series of the topic named by argv[1]
    as the check series-<check> that proves WHAT; print its diagnostics
    and result line, write its log and row, exit with its status."""
    name = f'series-{check}'
    if len(sys.argv) != 2:
        sys.exit(f'usage: checks/{name} TOPIC')
    topic = sys.argv[1]
    p = paths()
    logdir = os.path.join(p.OUT, 'checks', topic)
    os.makedirs(logdir, exist_ok=True)
    logf = os.path.join(logdir, name + '.log')
    s = Series(topic)
    log = [f'# {name} {topic}: {what}', f'# series: {s.dir}']
    if not s.dir or not s.mails:
        out = [result(name, KSFT_SKIP, f'no series written (make series TOPIC={topic})')]
        status, row = KSFT_SKIP, 'series\t-\tno series written\n'
    else:
        errors = func(s, log)
        log += [f'FAIL: {e}' for e in errors]
        if errors:
            status = KSFT_FAIL
            out = [f'# {line}' for e in errors for line in f'{name}: {topic}: {e}'.splitlines()]
            out.append(result(name, status, f'{len(errors)} problem(s): {errors[0]}' + (' ...' if len(errors) > 1 else '')))
        else:
            status = KSFT_PASS
            shown = re.sub(r'[.]new$', '', os.path.relpath(s.dir, p.REPO))
            out = [f'# {name}: {topic}: {what} ({len(s.mails)} mails, {shown})', result(name, status)]
        # one row for the table of scripts/check-series.sh (checks/common.sh)
        note = errors[0] if errors else what
        row = f"series\t{'FAIL' if errors else 'ok'}\t{note[:100]}\n"
    with open(logf, 'w', encoding='utf-8') as fh:
        fh.write('\n'.join(log + out) + '\n')
    with open(os.path.join(logdir, name + '.tsv'), 'w', encoding='utf-8') as fh:
        fh.write(row)
    print('\n'.join(out))
    sys.exit(status)
