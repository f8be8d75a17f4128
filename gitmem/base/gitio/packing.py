"""A large change written as ONE pack by ``git fast-import``, its tree built there too.

Writing one loose object per blob and tree costs a file (and on disk a sync)
each: 100k archived memories took minutes. Above ``PACK_THRESHOLD`` changed
files the write path hands the change to ``git fast-import`` instead, which
reads the parent's tree, applies the changes and writes the new blobs and
trees into one pack, as git itself does for an import.

fast-import can only build a tree as part of a commit on a ref, so it commits
to the scratch ref ``PACK_REF``; the tree of that commit is the result, the
ref is deleted again, and the commit gitmem makes on the branch is still its
own compare-and-swap (``Git.create_commit``). A writer killed in between
leaves at most an unreferenced pack and the scratch ref, which the next large
write replaces: the repository stays sound. The tree is the same as the one
``trees.build`` makes from the same change (a test builds both and compares),
and the same refusals apply: checked here before fast-import runs.
"""

from __future__ import annotations

from gitmem.base.errors import ConflictError, SecurityError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    import pygit2

# Changed files from which one pack beats loose objects. A loose object costs a
# file create and rename; starting fast-import ~10-25 ms. bench/import_size.py
# (objects alone, 2-core machine, ext4): loose 25 / packed 29 ms at 64 files,
# 50 / 52 ms at 128, 310 / 205 ms at 1,000.
PACK_THRESHOLD = 128
PACK_REF = "refs/gitmem/packing"
_COMMITTER = b"gitmem <gitmem@localhost> 0 +0000"


def quote(path: str) -> bytes:
    """``path`` as a C-style quoted string, the form fast-import reads whatever the name holds."""
    out = bytearray(b'"')
    for byte in path.encode("utf-8", "surrogateescape"):
        if byte in (0x22, 0x5C):
            out += b"\\" + bytes((byte,))
        elif byte < 0x20 or byte == 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')


def check(repo: pygit2.Repository, base: pygit2.Tree | None, changes: Mapping[str, bytes | None]) -> None:
    """Refuse what ``trees.build`` refuses: a file over a folder, a folder over a file, a path under a symlink.

    Each folder on a changed path is looked up once in ``base``; fast-import
    itself would silently replace one with the other.
    """
    import pygit2
    from pygit2.enums import FileMode

    folders: dict[str, pygit2.Object | None] = {}

    def entry(path: str) -> pygit2.Object | None:
        if path not in folders:
            try:
                folders[path] = base[path] if base is not None else None
            except KeyError:
                folders[path] = None
        return folders[path]

    written = {p for p, data in changes.items() if data is not None}
    checked: set[str] = set()
    for path, data in changes.items():
        parts = path.split("/")
        cleared = False   # a folder on the path is deleted by this change: below it nothing of the base is left
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            cleared = cleared or folder in changes
            if folder in checked:
                continue
            checked.add(folder)
            if folder in written:
                raise ConflictError(f"cannot create folder {parts[depth - 1]!r}: a file of that name exists")
            if cleared:
                continue
            found = entry(folder)
            if found is not None and found.filemode == FileMode.LINK:
                raise SecurityError(f"refusing to write under {parts[depth - 1]!r}: it is a symlink in the repository")
            if found is not None and found.filemode != FileMode.TREE:
                raise ConflictError(f"cannot create folder {parts[depth - 1]!r}: a file of that name exists")
        if data is None or cleared:
            continue
        folder, _, name = path.rpartition("/")
        sub = entry(folder) if folder else base
        if isinstance(sub, pygit2.Tree) and name in sub and sub[name].filemode == FileMode.TREE:
            raise ConflictError(f"cannot write file {parts[-1]!r}: a folder of that name exists")


def stream(parent: str | None, changes: Mapping[str, bytes | None]) -> bytes:
    """The fast-import input: one commit on ``PACK_REF`` from ``parent``, deletions first, then files."""
    head = [b"feature done\ncommit ", PACK_REF.encode(), b"\ncommitter ", _COMMITTER, b"\ndata 0\n"]
    if parent is not None:
        head.append(b"from %s\n" % parent.encode())
    else:
        head.append(b"deleteall\n")
    parts = head + [b"D %s\n" % quote(p) for p, data in changes.items() if data is None]
    for path, data in changes.items():
        if data is not None:
            parts += [b"M 100644 inline ", quote(path), b"\ndata %d\n" % len(data), data, b"\n"]
    parts.append(b"\ndone\n")
    return b"".join(parts)


def build(root: Path, repo: pygit2.Repository, parent: str | None, changes: Mapping[str, bytes | None]) -> str:
    """Tree id of commit ``parent``'s tree (None: empty) with ``changes`` applied, written as one pack."""
    import pygit2

    from gitmem.base.gitio.command import run

    check(repo, repo[parent].peel(pygit2.Tree) if parent is not None else None, changes)
    # below fastimport.unpackLimit (100 objects) git would explode the pack into loose objects
    run(root, "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet", "--force", "--done",
        stdin=stream(parent, changes))
    ref = repo.references.get(PACK_REF)
    if ref is None:   # pragma: no cover - fast-import succeeded, so it moved the ref
        from gitmem.base.errors import GitError

        raise GitError("git fast-import wrote no commit", hint="check the repository with `git fsck`")
    tree = str(ref.peel(pygit2.Commit).tree_id)
    ref.delete()
    return tree
