"""Files under ``var/`` that hold secrets or data (the secret key, the SQLite database, the
generated admin password, catalog backups) are readable by their owner only (``0600``, folders
``0700``) from the moment they exist — never created with the umask's mode and narrowed later
(docs/deploy.md, "Files under var/"). One that already exists wider (made by an older version, by
hand or by a tool with the umask's mode) is narrowed: group and other lose every permission bit,
``var/`` and what lies directly in it at every start (``narrow_var``), a folder or file when it is
next used.

Plain Python (no Django import): ``console/settings.py`` uses it before Django is set up.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
#: The permission bits of group and other: never set on anything under ``var/``.
SHARED_BITS = 0o077


def narrow(path: Path) -> Path:
    """Take group's and other's permission bits off ``path`` (``0755`` → ``0700``, ``0644`` →
    ``0600``; the owner's bits stay). A symbolic link, a missing path or one this process does
    not own (it could not change its mode) is left as it is."""
    path = Path(path)
    try:
        st = path.lstat()
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.geteuid():
        return path
    if st.st_mode & SHARED_BITS:
        path.chmod(stat.S_IMODE(st.st_mode) & ~SHARED_BITS)
    return path


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) with mode ``0700``; an existing folder is narrowed
    (``narrow``: ``0755`` → ``0700``). Missing parents are made ``0700`` too; existing ones are
    not touched (they may be outside ``var/``, e.g. the system's temporary folder)."""
    path = Path(path)
    if path.exists():
        return narrow(path)
    missing = []
    for folder in (path, *path.parents):  # Path.mkdir(parents=True) gives parents the umask's mode
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:  # another process made it first: narrowed like any existing one
            narrow(folder)
            continue
        folder.chmod(DIR_MODE)  # mkdir's mode is masked by the umask
    return path


def narrow_var(var: Path) -> Path:
    """``var/`` at a start (``console/settings.py``): created ``0700`` when missing, else narrowed
    with every folder and file directly in it (``db.sqlite3``, ``secret_key``, ``admin_password``,
    ``backups/``, ``runtime/``, ``bench/``, ``static/`` …). Deeper files are not walked: their
    folder is already closed to group and other, and each is narrowed when next written."""
    var = private_dir(var)
    for entry in var.iterdir():
        narrow(entry)
    return var


def private_file(path: Path) -> Path:
    """Make sure ``path`` exists as a file with mode ``0600`` (created empty with that mode when
    missing — e.g. the SQLite database, before SQLite opens it; SQLite gives its ``-wal`` and
    ``-shm`` files the database file's mode). An existing file is narrowed (``0644`` → ``0600``)."""
    path = Path(path)
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return narrow(path)
    os.close(fd)
    os.chmod(path, FILE_MODE)  # os.open's mode is masked by the umask too; never wider than 0600
    return path


def write_private(path: Path, text: str, *, exclusive: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path``, created with mode ``0600`` (``O_EXCL`` when
    ``exclusive``: raises ``FileExistsError`` rather than overwrite — two processes making the
    same secret at once keep the first one's). An existing file is narrowed to ``0600`` first."""
    path = Path(path)
    private_dir(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    fd = os.open(path, flags, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path
