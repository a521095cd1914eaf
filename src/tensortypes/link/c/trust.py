"""What the module cache trusts: nothing another user can write (layer 6, ``link``).

Loading a compiled module runs its code (its ``PyInit_`` function), so a
module another user could have written or replaced must never be loaded. The
rules are those of OpenSSH's ``StrictModes`` and of ccache's and pip's caches:

- the cache directory is owned by you and neither group- nor world-writable;
- so is each directory above it (following the path as written and as
  resolved through symbolic links), where root may also be the owner, up to
  the first one owned by root or carrying the sticky bit (``/tmp``): above a
  sticky directory nobody else can rename or replace what you own inside it;
- each entry (its directory, its binary and its checksum) is owned by you, is
  a real directory or regular file (no symbolic link), and is not group- or
  world-writable. An entry owned by another user is never loaded, and is
  reported; an entry of yours with open permissions is rebuilt.

The library never changes the mode of a directory you named: it refuses it
with a ``CacheError`` saying what to do. What it writes itself (build
directories, sources, binaries, checksums, probe files) it creates private
(0700 / 0600) and installs by an atomic rename.

Where the platform has no user ids (``os.getuid`` missing), nothing is checked.

>>> import tempfile
>>> check_directory(tempfile.mkdtemp()) is None
True
"""

from __future__ import annotations

import os
import stat

from tensortypes.errors import CacheError

__all__ = ["check_directory", "entry_problem", "foreign_owner", "write_private", "HOW_TO_FIX"]

_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH

HOW_TO_FIX = (
    "Set TENSORTYPES_CACHE_DIR or tensortypes.config.cache_dir to a directory that "
    "only you can write (the default ~/.cache/tensortypes is created so); "
    "tensortypes never changes the permissions of a directory you named."
)


def _uid():
    getuid = getattr(os, "getuid", None)
    return None if getuid is None else getuid()


def _mode(st) -> str:
    return oct(stat.S_IMODE(st.st_mode))[2:].rjust(4, "0")


def _parents(path: str):
    """The directories above ``path``, nearest first, as written and as resolved."""
    seen = set()
    for start in (path, os.path.realpath(path)):
        chain = []
        current = start
        while True:
            parent = os.path.dirname(current)
            if parent == current:
                break
            chain.append(parent)
            current = parent
        if chain and tuple(chain) not in seen:
            seen.add(tuple(chain))
            yield chain


def check_directory(path: str) -> None:
    """Raise ``CacheError`` unless ``path`` and its parents are safe to load modules from.

    ``path`` is an existing directory (symbolic links allowed). See the module
    docstring for the rules; nothing is changed on disk.
    """
    uid = _uid()
    if uid is None:
        return
    try:
        st = os.stat(path)
    except OSError as exc:
        raise CacheError(f"cannot inspect the module cache directory {path}: {exc}") from None
    if st.st_uid != uid:
        raise CacheError(
            f"the module cache directory {path} is owned by user id {st.st_uid}, "
            f"not by you (user id {uid}); loading modules from it would run "
            f"another user's code. {HOW_TO_FIX}"
        )
    if st.st_mode & _OTHERS_WRITE:
        raise CacheError(
            f"the module cache directory {path} can be written by other users "
            f"(mode {_mode(st)}); a module one of them put there would run in your "
            f"process. Remove their write access (chmod go-w {path}) if it is "
            f"yours alone to use, or choose another directory. {HOW_TO_FIX}"
        )
    for chain in _parents(path):
        for parent in chain:
            try:
                pst = os.stat(parent)
            except OSError as exc:
                raise CacheError(
                    f"cannot inspect {parent}, a parent of the module cache directory {path}: {exc}"
                ) from None
            if pst.st_uid not in (uid, 0):
                raise CacheError(
                    f"the module cache directory {path} is inside {parent}, which is owned by "
                    f"user id {pst.st_uid}, not by you (user id {uid}) or root; that user "
                    f"could replace the cache with modules of their own. {HOW_TO_FIX}"
                )
            if pst.st_mode & stat.S_ISVTX:
                break  # nobody else can rename or remove what is ours in a sticky directory
            if pst.st_mode & _OTHERS_WRITE:
                raise CacheError(
                    f"the module cache directory {path} is inside {parent}, which other users "
                    f"can write (mode {_mode(pst)}, no sticky bit); any of them could replace "
                    f"the cache with modules of their own. {HOW_TO_FIX}"
                )
            if pst.st_uid == 0:
                break  # root's directories are as trusted as root


def foreign_owner(path: str) -> int | None:
    """The user id owning ``path`` (not following a link) when it is not you, else None."""
    uid = _uid()
    if uid is None:
        return None
    try:
        owner = os.lstat(path).st_uid
    except OSError:
        return None
    return owner if owner != uid else None


def entry_problem(entry: str, files) -> str | None:
    """Why the cache entry ``entry`` with ``files`` in it must not be loaded, or None.

    The entry is a real directory and each file a regular file (symbolic links
    are refused), all owned by you and writable by nobody else.
    """
    uid = _uid()
    for path, want_dir in ((entry, True), *((os.path.join(entry, f), False) for f in files)):
        try:
            st = os.lstat(path)
        except OSError as exc:
            return f"{path}: {exc.strerror or exc}"
        if want_dir and not stat.S_ISDIR(st.st_mode):
            return f"{path} is not a directory"
        if not want_dir and not stat.S_ISREG(st.st_mode):
            return f"{path} is not a regular file"
        if uid is None:
            continue
        if st.st_uid != uid:
            return f"{path} is owned by user id {st.st_uid}, not by you (user id {uid})"
        if st.st_mode & _OTHERS_WRITE:
            return f"{path} can be written by other users (mode {_mode(st)})"
    return None


def write_private(path: str, text: str) -> None:
    """Create the new file ``path`` with mode 0600 holding ``text`` (fails if it exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
