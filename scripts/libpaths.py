"""The folders every tool works in, as scripts/lib.sh derives them: the
repository, the cache (MM_CACHE, else $XDG_CACHE_HOME or ~/.cache, then
mm-medley), the base tree, the topic worktrees, the object folders and
the results (MM_OUT, else out/ of the repository). lib.sh is the one
place that derives them; the Python tools ask it (once per process):

    sys.path.insert(0, <scripts/>); import libpaths; libpaths.get().OUT
"""
import collections
import os
import subprocess

Paths = collections.namedtuple("Paths", "REPO CACHE BASE WORK OBJ OUT")
LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib.sh")
_paths = None


def get():
    global _paths
    if _paths is None:
        script = '. "$1"; printf "%s\\n" ' + " ".join('"$%s"' % k for k in Paths._fields)
        out = subprocess.run(["bash", "-c", script, "lib.sh", LIB],
                             check=True, capture_output=True, text=True).stdout
        _paths = Paths(*out.split("\n")[:len(Paths._fields)])
    return _paths
