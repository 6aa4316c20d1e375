"""Files under ``var/`` that hold secrets or data (the secret key, the SQLite database, the
generated admin password, catalog backups) are readable by their owner only (``0600``, folders
``0700``) from the moment they exist — never created with the umask's mode and narrowed later
(docs/deploy.md, "Files under var/").

Plain Python (no Django import): ``console/settings.py`` uses it before Django is set up.
"""
from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) with mode ``0700``; an existing folder keeps its mode."""
    path = Path(path)
    if not path.exists():
        path.mkdir(parents=True, mode=DIR_MODE, exist_ok=True)
        path.chmod(DIR_MODE)  # mkdir's mode is masked by the umask
    return path


def private_file(path: Path) -> Path:
    """Make sure ``path`` exists as a file with mode ``0600`` (created empty with that mode when
    missing — e.g. the SQLite database, before SQLite opens it; SQLite gives its ``-wal`` and
    ``-shm`` files the database file's mode)."""
    path = Path(path)
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return path
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
