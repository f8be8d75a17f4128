"""git for gitmem: the only package that runs git, through pygit2 or the git command line.

- ``repo``: ``Git``, one repository read and written with pygit2 (imported
  lazily: recall served by a fresh index and the hooks never load it);
- ``command``: every git process (``git diff --cached``, ``cat-file --batch``,
  ``update-index``, ``rev-parse``, ``stripspace``, ``interpret-trailers``…);
- ``tool``: a person's own filter command (the harvest encoder), bounded by
  a timeout and an output cap;
- ``trees``: a commit's tree rewritten along the changed paths only;
- ``packing``: a large change (``PACK_THRESHOLD`` files on) written as one
  pack by ``git fast-import``, its tree built there from the parent's;
- ``heads``: the git dir, the common git dir and HEAD, read from files;
- ``trailers``: the one trailer reader, git's own parser, for a message
  being committed and for commits already made;
- ``rewrite``: every ref's history with one value replaced (``gitmem purge``),
  imported by its one caller only; ``history``: the roots of that walk (refs,
  reflogs, head files) and every text they reach.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.base.gitio.command import (attempt, diff_text, hooks_dir, install_pre_commit, merge_text, newest_ref, person, push, read_blobs, run, short_log,
                                           staged_names, staged_patch, toplevel, uncommitted, update_index,
                                           use_index_v4)
    from gitmem.base.gitio.heads import common_dir, head_commit, read_git_dirs, ref_names
    from gitmem.base.gitio.repo import CommitInfo, Git, PathChange, discover, init
    from gitmem.base.gitio.trailers import Trailers, read_commits, read_message

# Each name is imported from its module on first use (PEP 562): a recall served by a fresh index
# needs only ``heads``, a person's commit only ``command``, and importing the others (``repo``
# with ``staging``, ``trees`` and ``trailers``) costs every such process about 1.5 ms.
_HOMES = {"command": ("attempt", "diff_text", "hooks_dir", "install_pre_commit", "merge_text", "newest_ref", "person",
                      "push", "read_blobs", "run", "short_log", "staged_names", "staged_patch", "toplevel",
                      "uncommitted", "update_index", "use_index_v4"),
          "heads": ("common_dir", "head_commit", "read_git_dirs", "ref_names"),
          "repo": ("CommitInfo", "Git", "PathChange", "discover", "init"),
          "trailers": ("Trailers", "read_commits", "read_message")}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> object:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import sys

    __import__(f"{__name__}.{module}")   # not importlib: the hooks never load it otherwise
    value = getattr(sys.modules[f"{__name__}.{module}"], name)
    globals()[name] = value
    return value


__all__ = ["CommitInfo", "Git", "PathChange", "Trailers", "attempt", "common_dir", "diff_text", "discover", "head_commit",
           "hooks_dir", "init", "install_pre_commit", "merge_text", "newest_ref", "person", "push", "read_blobs", "read_commits", "read_git_dirs", "ref_names",
           "read_message", "run", "short_log", "staged_names", "staged_patch", "toplevel", "uncommitted", "update_index",
           "use_index_v4"]
