"""Skill files in and out (docs/import-export.md): Ragent declaration files (``*.properties`` + a
markdown manual) and Agent Skills folders (``SKILL.md`` with YAML front matter).

Plain Python, no Django. Reading builds a ``Dataset`` (relative POSIX path → bytes) from a folder,
a zip or single files, with the limits of ``limits.py`` and no way out of the dataset folder;
``parse_dataset`` turns it into one ``ParsedFile`` per file — a ``SkillDeclaration`` or the
errors that refuse it, each naming the file and the 1-based line. The field rules themselves
(code pattern, lengths, tool ids against the intent tree) are *not* checked here: the importer
hands declarations to ``skills_app.io.services`` so a rule lives in one place. Writing
(``export_files``) gives back exactly what ``parse_dataset`` reads as the same records.

Libraries: ``javaproperties`` reads and writes ``.properties`` (escapes, continuation lines,
``#``/``!`` comments); PyYAML reads and writes the front matter.
"""

from __future__ import annotations

import io
import math
import os
import posixpath
import re
import stat
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import javaproperties
import yaml

from .catalog import Skill
from .errors import DomainError, Problem
from .limits import (
    IMPORT_MAX_FILE_BYTES,
    IMPORT_MAX_FILES,
    IMPORT_MAX_TOTAL_BYTES,
    IMPORT_MAX_UPLOAD_BYTES,
)
from .yaml_reading import check_scalars, refused_character

PROPERTIES = "properties"
SKILL_MD = "skill-md"
FORMATS = (PROPERTIES, SKILL_MD)
SKILL_MD_NAME = "SKILL.md"

#: Keys of a declaration file, in the order the exporter writes them.
PROPERTIES_KEYS = ("skill-code", "name", "description", "content-file", "tool-ids", "sort-order", "enabled")
PROPERTIES_REQUIRED = ("skill-code", "name", "description", "content-file")
#: Front-matter keys of SKILL.md that Skill Console reads, and the Agent Skills keys it knows but
#: does not keep (reported as a warning, never silently dropped).
SKILL_MD_KEYS = ("name", "description", "allowed-tools", "metadata")
SKILL_MD_NOT_KEPT = ("license", "compatibility")
#: ``metadata`` keys that carry the fields Agent Skills has no key for.
METADATA_KEYS = ("skill-code", "display-name", "sort-order", "enabled")

#: Spellings of a tool list that are not the key of their format: refused, because ignoring them
#: would turn the skill into one that gates no tool ("no restriction").
_TOOLISH = frozenset({"allowedtools", "allowedtool", "tools", "tool", "toolids", "toolid", "gatedtools"})


def _p(code: str, template: str, /, **params: Any) -> Problem:
    """A cause a page can translate (``Problem``: the English sentence, with code and params)."""
    return Problem(code, template, params)


KEYS_TWICE = "key '%(key)s' is set twice (first on line %(first)s)"
UNKNOWN_TOOL_KEY = (
    "unknown key '%(key)s'; the gated tools are read from '%(tool_key)s' only (the skill would gate no tool)"
)
UNKNOWN_KEY = "unknown key '%(key)s' is not imported (keys read: %(keys)s)"
OUT_OF_FOLDER = "a symbolic link that points out of the dataset folder; not read"
FILE_TOO_BIG = "%(size)s bytes; at most %(max)s bytes per file"


def _toolish(key: str) -> bool:
    return "".join(ch for ch in key.lower() if ch.isalnum()) in _TOOLISH


# ---- results --------------------------------------------------------------------------------
@dataclass(frozen=True)
class FileIssue:
    """An error or a warning located in a file: ``str()`` is ``file:line: cause`` (``file: cause``
    when no line applies, e.g. a missing key; ``file:line: field: cause`` for a service refusal of
    one field). ``cause`` is a ``Problem`` (code, template, params) so a page can translate it."""

    source: str
    line: int | None
    cause: Problem | str
    field: str = ""

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{where}: {self.field}: {self.cause}" if self.field else f"{where}: {self.cause}"


class SkillFileError(DomainError):
    """A whole dataset is refused (too many files, a zip entry that escapes the folder, not a zip…).
    ``source`` names the file or entry, ``line`` is ``None`` unless a line applies."""

    code = "invalid_skill_files"

    def __init__(self, cause: Problem | str, *, source: str, line: int | None = None) -> None:
        self.issue = FileIssue(source, line, cause)
        self.source, self.line, self.cause = source, line, cause
        super().__init__(str(self.issue), details={"source": source, "line": line, "cause": cause})


@dataclass(frozen=True)
class Dataset:
    """Files to import: ``files`` maps a relative POSIX path to its bytes; ``refused`` maps a path
    that may not be read (a symlink out of the folder, a file over the size limit) to why.
    ``flat`` is True for single files uploaded without their folders (``read_files``): a
    declaration's ``content-file`` that names a folder (``manuals/x.md``, as the export writes it)
    is then found by its base name (``resolve_content_file``)."""

    label: str
    files: Mapping[str, bytes]
    refused: Mapping[str, Problem] = field(default_factory=dict)
    flat: bool = False


@dataclass(frozen=True)
class SkillDeclaration:
    """One skill as a file declares it (not yet validated: the services do that).

    ``tool_ids`` is the declared list (``()`` = the manual gates no tool); ``sort_order`` and
    ``enabled`` are ``None`` when the file does not say (create: 0 / enabled; update: keep).
    ``lines`` maps a field (``skill_code``, ``name``, ``description``, ``content``, ``tool_ids``,
    ``sort_order``, ``enabled``) to ``(file, line)`` so a service refusal can point at it.
    """

    source: str
    format: str
    skill_code: str
    name: str
    description: str
    content: str
    tool_ids: tuple[str, ...]
    sort_order: int | None
    enabled: bool | None
    lines: Mapping[str, tuple[str, int | None]]

    def where(self, field_name: str) -> tuple[str, int | None]:
        """``(file, line)`` of the field, or ``(source, None)`` when the file does not set it."""
        return self.lines.get(field_name, (self.source, None))


@dataclass(frozen=True)
class ParsedFile:
    """What one file of a dataset is: a declaration, or errors; ``ignored`` says why a file that is
    no skill file was not read (e.g. a script bundled in an Agent Skills folder)."""

    source: str
    declaration: SkillDeclaration | None = None
    errors: tuple[FileIssue, ...] = ()
    warnings: tuple[FileIssue, ...] = ()
    ignored: Problem | str | None = None


# ---- reading a folder, a zip or single files -------------------------------------------------
def _check_count(n: int, label: str) -> None:
    if n > IMPORT_MAX_FILES:
        raise SkillFileError(
            _p("import_too_many_files", "holds more than %(max)s files; import it in parts", max=IMPORT_MAX_FILES),
            source=label,
        )


def _safe_relative(name: str) -> str | None:
    """``name`` as a clean relative POSIX path, or ``None`` when it is absolute, has a drive or a
    ``..`` part, or a backslash."""
    if not name or "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":") or "\x00" in name:
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return None
    return "/".join(parts)


def read_folder(root: Path | str) -> Dataset:
    """Every regular file under ``root`` (symlinks are followed only while they stay inside the
    folder; one that points out is refused, never read). Raises ``SkillFileError`` when the folder
    does not exist or holds more than ``IMPORT_MAX_FILES`` files or ``IMPORT_MAX_TOTAL_BYTES``."""
    root = Path(root)
    if not root.is_dir():
        raise SkillFileError(_p("import_not_folder", "not a folder"), source=str(root))
    real_root = root.resolve()
    files: dict[str, bytes] = {}
    refused: dict[str, Problem] = {}
    total = 0
    paths: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):  # never into a folder link: see below
        dirnames.sort()
        for d in list(dirnames):
            full = Path(dirpath) / d
            if full.is_symlink():
                rel = full.relative_to(root).as_posix()
                target = full.resolve()
                if not target.is_relative_to(real_root):
                    refused[rel] = _p("import_link_out", OUT_OF_FOLDER)
                dirnames.remove(d)  # a link inside the folder would list its files twice
        paths.extend(Path(dirpath) / f for f in sorted(filenames))
    _check_count(len(paths), str(root))
    for full in paths:
        rel = full.relative_to(root).as_posix()
        target = full.resolve()
        if not target.is_relative_to(real_root):
            refused[rel] = _p("import_link_out", OUT_OF_FOLDER)
            continue
        if not target.is_file():
            refused[rel] = _p("import_not_regular", "not a regular file; not read")
            continue
        size = target.stat().st_size
        if size > IMPORT_MAX_FILE_BYTES:
            refused[rel] = _p("import_file_too_big", FILE_TOO_BIG, size=size, max=IMPORT_MAX_FILE_BYTES)
            continue
        total += size
        if total > IMPORT_MAX_TOTAL_BYTES:
            raise SkillFileError(
                _p(
                    "import_too_many_bytes",
                    "holds more than %(max)s bytes; import it in parts",
                    max=IMPORT_MAX_TOTAL_BYTES,
                ),
                source=str(root),
            )
        files[rel] = target.read_bytes()
    return Dataset(label=str(root), files=files, refused=refused)


def read_zip(data: bytes, *, label: str = "upload.zip") -> Dataset:
    """The files of a zip archive (bytes). Refused whole (``SkillFileError``) when it is no zip, is
    over ``IMPORT_MAX_UPLOAD_BYTES``, holds more than ``IMPORT_MAX_FILES`` entries, an entry name is
    absolute, has ``..`` or a backslash, appears twice, is a symbolic link, or the files unpack to
    more than ``IMPORT_MAX_TOTAL_BYTES`` (counted while reading, whatever the headers claim). A file
    over ``IMPORT_MAX_FILE_BYTES`` is refused alone. A single top folder wrapping everything (the way
    a folder is zipped) is kept in the paths."""
    if len(data) > IMPORT_MAX_UPLOAD_BYTES:
        raise SkillFileError(
            _p(
                "import_upload_too_big",
                "is %(size)s bytes; at most %(max)s bytes may be uploaded",
                size=len(data),
                max=IMPORT_MAX_UPLOAD_BYTES,
            ),
            source=label,
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise SkillFileError(
            _p("import_not_zip", "is not a readable zip archive (%(cause)s)", cause=str(exc)), source=label
        ) from None
    _check_count(len(infos), label)
    files: dict[str, bytes] = {}
    refused: dict[str, Problem] = {}
    total = 0
    for info in infos:
        if info.is_dir():
            continue
        rel = _safe_relative(info.filename)
        if rel is None:
            raise SkillFileError(
                _p(
                    "import_unsafe_entry",
                    "entry '%(entry)s' has an unsafe path (absolute, '..' or '\\'); the archive is refused",
                    entry=info.filename,
                ),
                source=label,
            )
        if rel in files or rel in refused:
            raise SkillFileError(
                _p("import_entry_twice", "entry '%(entry)s' appears twice; the archive is refused", entry=rel),
                source=label,
            )
        if stat.S_ISLNK(info.external_attr >> 16):
            raise SkillFileError(
                _p("import_entry_link", "entry '%(entry)s' is a symbolic link; the archive is refused", entry=rel),
                source=label,
            )
        if info.file_size > IMPORT_MAX_FILE_BYTES:
            refused[rel] = _p("import_file_too_big", FILE_TOO_BIG, size=info.file_size, max=IMPORT_MAX_FILE_BYTES)
            continue
        try:
            with archive.open(info) as fh:
                content = fh.read(IMPORT_MAX_FILE_BYTES + 1)
        except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, EOFError) as exc:
            refused[rel] = _p("import_unpack_failed", "cannot be unpacked (%(cause)s)", cause=str(exc))
            continue
        if len(content) > IMPORT_MAX_FILE_BYTES:
            refused[rel] = _p(
                "import_unpacks_too_big",
                "unpacks to more than %(max)s bytes; at most %(max)s per file",
                max=IMPORT_MAX_FILE_BYTES,
            )
            continue
        total += len(content)
        if total > IMPORT_MAX_TOTAL_BYTES:
            raise SkillFileError(
                _p(
                    "import_unpacks_too_many_bytes",
                    "unpacks to more than %(max)s bytes; import it in parts",
                    max=IMPORT_MAX_TOTAL_BYTES,
                ),
                source=label,
            )
        files[rel] = content
    return Dataset(label=label, files=files, refused=refused)


def read_files(named: Iterable[tuple[str, bytes]], *, label: str = "upload") -> Dataset:
    """Single files (an upload of several files, without folders): ``named`` yields ``(file name,
    bytes)``; only the base name is kept. Refused (``SkillFileError``) when two files have the same
    name, or past the limits."""
    files: dict[str, bytes] = {}
    refused: dict[str, Problem] = {}
    total = 0
    items = list(named)
    _check_count(len(items), label)
    for raw_name, content in items:
        name = posixpath.basename((raw_name or "").replace("\\", "/"))
        if not name or name in (".", ".."):
            raise SkillFileError(
                _p("import_no_name", "a file has no usable name ('%(name)s')", name=raw_name), source=label
            )
        if name in files or name in refused:
            raise SkillFileError(
                _p("import_same_name", "two files are named '%(name)s'; upload a folder as a zip instead", name=name),
                source=label,
            )
        if len(content) > IMPORT_MAX_FILE_BYTES:
            refused[name] = _p("import_file_too_big", FILE_TOO_BIG, size=len(content), max=IMPORT_MAX_FILE_BYTES)
            continue
        total += len(content)
        if total > IMPORT_MAX_TOTAL_BYTES:
            raise SkillFileError(
                _p(
                    "import_files_too_many_bytes",
                    "more than %(max)s bytes in all; import them in parts",
                    max=IMPORT_MAX_TOTAL_BYTES,
                ),
                source=label,
            )
        files[name] = content
    return Dataset(label=label, files=files, refused=refused, flat=True)


def read_path(path: Path | str) -> Dataset:
    """A folder (``read_folder``), a ``.zip`` (``read_zip``) or one file (``read_files``) on disk."""
    path = Path(path)
    if path.is_dir():
        return read_folder(path)
    if not path.exists():
        raise SkillFileError(_p("import_missing", "no such file or folder"), source=str(path))
    size = path.stat().st_size
    if path.suffix.lower() == ".zip" or zipfile.is_zipfile(path):
        if size > IMPORT_MAX_UPLOAD_BYTES:
            raise SkillFileError(
                _p(
                    "import_upload_too_big",
                    "is %(size)s bytes; at most %(max)s bytes may be uploaded",
                    size=size,
                    max=IMPORT_MAX_UPLOAD_BYTES,
                ),
                source=str(path),
            )
        return read_zip(path.read_bytes(), label=str(path))
    if size > IMPORT_MAX_FILE_BYTES:
        raise SkillFileError(
            _p(
                "import_path_too_big",
                "is %(size)s bytes; at most %(max)s bytes per file",
                size=size,
                max=IMPORT_MAX_FILE_BYTES,
            ),
            source=str(path),
        )
    return read_files([(path.name, path.read_bytes())], label=str(path))


# ---- text ------------------------------------------------------------------------------------
class _FileProblem(Exception):
    def __init__(self, line: int | None, cause: str) -> None:
        self.line, self.cause = line, cause


def decode_text(data: bytes) -> str:
    """UTF-8 text with a leading BOM dropped and line endings normalised to ``\\n`` (line numbers
    are kept). Raises ``_FileProblem`` naming the line of the first byte that is not UTF-8."""
    try:
        text = data.decode()  # UTF-8, str.decode's default
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _FileProblem(
            line, _p("import_not_utf8", "not UTF-8 text (byte 0x%(byte)s)", byte=f"{data[exc.start]:02x}")
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


#: Integers shown as they are in a cause; a larger one is named by its size (Python refuses to
#: write one of more than 4,300 digits, and a hex literal of YAML makes one without that limit).
MAX_SHOWN_INT = 2**63


def _lone_surrogate(text: str) -> Problem | None:
    """``import_lone_surrogate`` when ``text`` holds a lone UTF-16 surrogate (a ``\\ud800``
    escape): it is not text, cannot be stored as UTF-8, and is refused naming the line."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    return _p(
        "import_lone_surrogate",
        "a lone surrogate (\\u%(code)s) is not text; write the character itself",
        code=f"{ord(found.group()):04x}",
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def _reprable(value: Any) -> Any:
    """``value`` if its ``repr`` can be written, else what it is (``a list``): a YAML hex literal
    makes an int Python refuses to write (more than 4,300 digits)."""
    try:
        repr(value)
    except ValueError:
        return str(_type_name(value))
    return value


def _type_name(value: Any) -> Problem:
    """What a YAML value is, as a phrase (``a number (5)``) a page can translate."""
    if value is None:
        return _p("kind_nothing", "nothing")
    if isinstance(value, bool):
        return _p("kind_boolean", "a boolean (%(value)s)", value=str(value).lower())
    if isinstance(value, int) and abs(value) > MAX_SHOWN_INT:  # str() of it may not even be allowed
        return _p("kind_number", "a number (%(value)s)", value=f"an integer of {value.bit_length()} bits")
    if isinstance(value, (int, float)):
        return _p("kind_number", "a number (%(value)s)", value=value)
    if isinstance(value, dict):
        return _p("kind_mapping", "a mapping")
    if isinstance(value, list):
        return _p("kind_list", "a list")
    if value == "":
        return _p("kind_empty_string", "an empty string")
    return _p("kind_other", "a %(type)s (%(value)s)", type=type(value).__name__, value=value)


def _parse_bool(value: Any, key: str, line: int | None) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise _FileProblem(
        line, _p("import_not_bool", "%(key)s must be true or false, not %(value)r", key=key, value=_reprable(value))
    )


#: A whole number in a file: ASCII digits with at most one leading minus (``--3`` and ``٣`` are not).
_WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def _parse_int(value: Any, key: str, line: int | None) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
        try:
            return int(value.strip())
        except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits())
            pass
    raise _FileProblem(
        line, _p("import_not_int", "%(key)s must be a whole number, not %(value)r", key=key, value=_reprable(value))
    )


# ---- .properties -----------------------------------------------------------------------------
def _content_path(base_dir: str, value: str, line: int | None = None) -> str:
    """The dataset path of a ``content-file`` value (relative to the declaration's folder)."""
    value = value.strip()
    if not value:
        raise _FileProblem(
            line, _p("content_file_empty", "content-file is empty; name the markdown manual next to this file")
        )
    if value.startswith("/") or "\\" in value or (len(value) > 1 and value[1] == ":"):
        raise _FileProblem(
            line,
            _p(
                "content_file_absolute",
                "content-file '%(value)s' must be a relative path with '/' separators",
                value=value,
            ),
        )
    if ".." in value.split("/"):
        raise _FileProblem(
            line,
            _p(
                "content_file_parent",
                "content-file '%(value)s' may not contain '..'; the manual must be inside the dataset folder",
                value=value,
            ),
        )
    joined = _safe_relative(posixpath.join(base_dir, value))  # join("", value) is value
    if joined is None:
        raise _FileProblem(
            line, _p("content_file_unusable", "content-file '%(value)s' is not a usable path", value=value)
        )
    return joined


def resolve_content_file(dataset: Dataset, path: str, value: str, line: int | None = None) -> str:
    """The dataset path of the manual a declaration names: ``path`` itself when the dataset holds
    it; in a flat dataset (single files, ``Dataset.flat``) else the one file with ``path``'s base
    name, whatever its folder (the export writes ``manuals/<code>.md``; uploaded alone it is
    ``<code>.md``). Single files never share a base name (``read_files`` refuses two files of one
    name, naming it), so that match is unique. Raises ``_FileProblem`` at ``line`` when the file
    is refused (``content_file_refused``) or missing (``content_file_missing``)."""
    if dataset.flat and path not in dataset.files and path not in dataset.refused:
        path = posixpath.basename(path)  # a flat dataset's paths are base names, each once
    if path in dataset.refused:
        raise _FileProblem(
            line,
            _p(
                "content_file_refused",
                "content-file '%(value)s': %(reason)s",
                value=value,
                reason=dataset.refused[path],
            ),
        )
    if path not in dataset.files:
        raise _FileProblem(
            line,
            _p(
                "content_file_missing",
                "content-file '%(value)s' is not in the dataset (looked for '%(path)s')",
                value=value,
                path=path,
            ),
        )
    return path


def _tool_ids_value(raw: str, line: int) -> tuple[str, ...]:
    names = tuple(t.strip() for t in raw.split(",") if t.strip())
    if not names:
        raise _FileProblem(
            line, _p("tool_ids_empty", "tool-ids is empty; leave the key out for a manual that gates no tool")
        )
    return names


def parse_properties(source: str, data: bytes, dataset: Dataset) -> ParsedFile:
    """One Ragent declaration file (docs/import-export.md): UTF-8, ``#``/``!`` comments, keys
    ``skill-code``, ``name``, ``description``, ``content-file`` (relative to this file; never out of
    the dataset), ``tool-ids`` (comma separated), ``sort-order``, ``enabled``. A key set twice, a
    missing required key, an empty ``tool-ids``, a misspelt tool key, a bad number or boolean, a
    manual that is missing, refused or not UTF-8 are errors; other unknown keys are warnings."""
    errors: list[FileIssue] = []
    warnings: list[FileIssue] = []
    values: dict[str, tuple[str, int]] = {}
    try:
        text = decode_text(data)
    except _FileProblem as p:
        return ParsedFile(source, errors=(FileIssue(source, p.line, p.cause),))
    line = 1
    try:
        for element in javaproperties.parse(text):
            start = line
            line += element.source.count("\n")
            if not isinstance(element, javaproperties.KeyValue):
                continue
            key = element.key
            odd = _lone_surrogate(key + element.value)
            if odd is not None:
                errors.append(FileIssue(source, start, odd))
                continue
            if key in values:
                errors.append(FileIssue(source, start, _p("key_twice", KEYS_TWICE, key=key, first=values[key][1])))
            elif key in PROPERTIES_KEYS:
                values[key] = (element.value, start)
            elif _toolish(key):
                errors.append(
                    FileIssue(source, start, _p("unknown_tool_key", UNKNOWN_TOOL_KEY, key=key, tool_key="tool-ids"))
                )
            else:
                warnings.append(
                    FileIssue(source, start, _p("unknown_key", UNKNOWN_KEY, key=key, keys=", ".join(PROPERTIES_KEYS)))
                )
    except javaproperties.InvalidUEscapeError as exc:
        errors.append(FileIssue(source, line, _p("bad_u_escape", "invalid \\u escape '%(escape)s'", escape=exc.escape)))
    missing = [k for k in PROPERTIES_REQUIRED if k not in values]
    for key in missing:
        errors.append(FileIssue(source, None, _p("missing_key", "missing key '%(key)s'", key=key)))
    lines: dict[str, tuple[str, int | None]] = {}
    for key, field_name in (
        ("skill-code", "skill_code"),
        ("name", "name"),
        ("description", "description"),
        ("tool-ids", "tool_ids"),
        ("sort-order", "sort_order"),
        ("enabled", "enabled"),
    ):
        if key in values:
            lines[field_name] = (source, values[key][1])

    def read(fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except _FileProblem as p:
            errors.append(FileIssue(source, p.line, p.cause))
            return None

    tool_ids: tuple[str, ...] = ()
    if "tool-ids" in values:
        tool_ids = read(_tool_ids_value, *values["tool-ids"]) or ()
    sort_order = (
        read(_parse_int, values["sort-order"][0], "sort-order", values["sort-order"][1])
        if "sort-order" in values
        else None
    )
    enabled = read(_parse_bool, values["enabled"][0], "enabled", values["enabled"][1]) if "enabled" in values else None
    content = ""  # pragma: no mutate
    if "content-file" in values:
        raw, at = values["content-file"]
        try:
            path = _content_path(posixpath.dirname(source), raw, at)
            path = resolve_content_file(dataset, path, raw.strip(), at)
            try:
                content = decode_text(dataset.files[path])
            except _FileProblem as p:
                errors.append(FileIssue(path, p.line, p.cause))
            lines["content"] = (path, 1)
        except _FileProblem as p:
            errors.append(FileIssue(source, p.line, p.cause))
    if errors:
        return ParsedFile(source, errors=tuple(sorted(errors, key=_issue_order)), warnings=tuple(warnings))
    return ParsedFile(
        source,
        warnings=tuple(warnings),
        declaration=SkillDeclaration(
            source=source,
            format=PROPERTIES,
            skill_code=values["skill-code"][0].strip(),
            name=values["name"][0],
            description=values["description"][0],
            content=content,
            tool_ids=tool_ids,
            sort_order=sort_order,
            enabled=enabled,
            lines=lines,
        ),
    )


def _issue_order(issue: FileIssue) -> float:
    """Issues by line, those without a line (a missing key) last."""
    return math.inf if issue.line is None else issue.line


def content_file_of(source: str, data: bytes, dataset: Dataset | None = None) -> str | None:
    """The dataset path a declaration's ``content-file`` names (``None`` when it names none or the
    file cannot be read) — so the report does not list a manual as an ignored file. Given the
    ``dataset``, the path it resolves to there (``resolve_content_file``; as named when missing)."""
    try:
        for element in javaproperties.parse(decode_text(data)):
            if isinstance(element, javaproperties.KeyValue) and element.key == "content-file":
                path = _content_path(posixpath.dirname(source), element.value)
                if dataset is None:
                    return path
                try:
                    return resolve_content_file(dataset, path, element.value.strip())
                except _FileProblem:
                    return path
    except (_FileProblem, javaproperties.InvalidUEscapeError):
        return None
    return None


# ---- SKILL.md --------------------------------------------------------------------------------
class _Mapping(dict[str, Any]):
    """A YAML mapping that remembers the 0-based line of each key."""

    lines: dict[Any, int]


class _FrontMatterLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key set twice in one mapping is refused (PyYAML would
    keep the last one silently) and every mapping remembers the line of each key."""


def _construct_mapping(loader: _FrontMatterLoader, node: yaml.MappingNode) -> _Mapping:
    loader.flatten_mapping(node)
    out = _Mapping()
    out.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)  # pragma: no mutate
        line = key_node.start_mark.line
        try:
            hash(key)
        except TypeError:
            raise _FileProblem(line, _p("key_not_plain", "a key must be a plain name")) from None
        if key in out:
            raise _FileProblem(line, _p("key_twice", KEYS_TWICE, key=key, first=out.lines[key] + 2))
        out[key] = loader.construct_object(value_node, deep=True)  # pragma: no mutate
        out.lines[key] = line
    return out


_FrontMatterLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _construct_str(loader: _FrontMatterLoader, node: yaml.ScalarNode) -> str:
    value = loader.construct_yaml_str(node)
    odd = _lone_surrogate(value)
    if odd is not None:
        raise _FileProblem(node.start_mark.line, odd)
    return value


_FrontMatterLoader.add_constructor("tag:yaml.org,2002:str", _construct_str)


check_scalars(_FrontMatterLoader)


def split_front_matter(text: str) -> tuple[str, str, int]:
    """``(front matter YAML, body, body's first line)`` of a SKILL.md (text already decoded). The
    file starts with a line ``---`` and the block ends at the next line ``---``; one blank line
    after it is not part of the manual. Raises ``_FileProblem`` (line 1) otherwise."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        raise _FileProblem(
            1, _p("front_matter_missing", "SKILL.md must start with YAML front matter: a first line '---'")
        )
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            body = "\n".join(lines[i + 1 :])
            first = i + 2
            if body.startswith("\n"):
                body, first = body[1:], first + 1
            return "\n".join(lines[1:i]) + "\n", body, first
    raise _FileProblem(
        1, _p("front_matter_unclosed", "the front matter opened on line 1 is never closed by a line '---'")
    )


def _yaml_problem(exc: yaml.YAMLError, front: str) -> _FileProblem:
    """The error PyYAML raised reading ``front`` (the front matter), at its line of the file."""
    # the front matter starts on the file's line 2; PyYAML counts from 0
    if isinstance(exc, yaml.reader.ReaderError):  # a character YAML refuses: no mark, a position
        line, cause = refused_character(front, exc)
        return _FileProblem(line + 1, _p("front_matter_yaml", "invalid YAML front matter: %(cause)s", cause=cause))
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    cause = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    context_mark = getattr(exc, "context_mark", None)
    if context:
        if context_mark is not None and mark is not None and context_mark.line != mark.line:
            context = f"{context} that starts on line {context_mark.line + 2}"
        cause = f"{cause} ({context})"
    return _FileProblem(
        mark.line + 2 if mark is not None else None,
        _p("front_matter_yaml", "invalid YAML front matter: %(cause)s", cause=cause),
    )


def _string(value: Any, key: str, line: int) -> str:
    if isinstance(value, str):
        return value
    raise _FileProblem(
        line,
        _p("value_not_text", "%(key)s must be text, not %(kind)s; put it in quotes", key=key, kind=_type_name(value)),
    )


def _allowed_tools(value: Any, line: int) -> tuple[str, ...]:
    """``allowed-tools``: a string of names separated by spaces or commas, or a list of names.
    Anything else — empty, another type, a list item that is no name — is refused: it must never
    read as "the skill gates no tool"."""
    empty = _p("allowed_tools_empty", "allowed-tools is empty; leave the key out for a manual that gates no tool")
    if isinstance(value, str):
        names = tuple(value.replace(",", " ").split())
        if not names:
            raise _FileProblem(line, empty)
        return names
    if isinstance(value, list):
        if not value:
            raise _FileProblem(line, empty)
        for i, item in enumerate(value, start=1):
            if not isinstance(item, str) or not item.strip():
                raise _FileProblem(
                    line,
                    _p(
                        "allowed_tools_item",
                        "allowed-tools item %(index)s must be a tool name, not %(kind)s",
                        index=i,
                        kind=_type_name(item),
                    ),
                )
        return tuple(item.strip() for item in value)
    if value is None:
        raise _FileProblem(line, empty)
    raise _FileProblem(
        line,
        _p(
            "allowed_tools_type",
            "allowed-tools must be tool names separated by spaces (or a list), not %(kind)s",
            kind=_type_name(value),
        ),
    )


def agent_skill_name(code: str) -> str:
    """The Agent Skills ``name`` (lowercase letters, digits, single hyphens) for a skill code."""
    return code.replace("_", "-")


def parse_skill_md(source: str, data: bytes) -> ParsedFile:
    """One Agent Skills ``SKILL.md`` (docs/import-export.md): YAML front matter then the manual.

    The skill code is ``metadata.skill-code`` when present, else the front matter's ``name``; the
    skill's name is ``metadata.display-name``, else ``name``. ``allowed-tools`` becomes tool_ids.
    A UTF-8 BOM and CRLF are accepted; malformed YAML, a key set twice, a missing ``name`` or
    ``description``, a value of the wrong type and a bad ``allowed-tools`` are errors naming the
    line; unknown keys (and ``license``/``compatibility``, which are not kept) are warnings."""
    errors: list[FileIssue] = []
    warnings: list[FileIssue] = []
    try:
        text = decode_text(data)
        front, body, body_line = split_front_matter(text)
        try:
            meta = yaml.load(front, Loader=_FrontMatterLoader)  # noqa: S506 — a SafeLoader subclass
        except yaml.YAMLError as exc:
            raise _yaml_problem(exc, front) from None
        except RecursionError:
            raise _FileProblem(
                2, _p("front_matter_yaml", "invalid YAML front matter: %(cause)s", cause="nested too deeply")
            ) from None
        except _FileProblem as p:
            raise _FileProblem(p.line + 2, p.cause) from None  # type: ignore[operator]  # _construct_mapping's: always a line
        if not isinstance(meta, dict):
            raise _FileProblem(
                2,
                _p(
                    "front_matter_not_mapping",
                    "the front matter must be a mapping of keys (name, description, …), not %(kind)s",
                    kind=_type_name(meta),
                ),
            )
    except _FileProblem as p:
        return ParsedFile(source, errors=(FileIssue(source, p.line, p.cause),))

    def at(key: str, mapping: Any = meta) -> int:  # a _Mapping: the front matter or its metadata
        return mapping.lines[key] + 2

    lines: dict[str, tuple[str, int | None]] = {"content": (source, body_line)}
    values: dict[str, Any] = {}
    for key in meta:
        if not isinstance(key, str):
            errors.append(FileIssue(source, at(key), _p("key_not_name", "key %(key)r is not a name", key=key)))
        elif key in SKILL_MD_KEYS:
            continue
        elif key in SKILL_MD_NOT_KEPT:
            warnings.append(
                FileIssue(
                    source,
                    at(key),
                    _p(
                        "key_not_kept",
                        "'%(key)s' is an Agent Skills key that Skill Console does not keep; not imported",
                        key=key,
                    ),
                )
            )
        elif _toolish(key):
            errors.append(
                FileIssue(source, at(key), _p("unknown_tool_key", UNKNOWN_TOOL_KEY, key=key, tool_key="allowed-tools"))
            )
        else:
            warnings.append(
                FileIssue(source, at(key), _p("unknown_key", UNKNOWN_KEY, key=key, keys=", ".join(SKILL_MD_KEYS)))
            )

    def read(fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except _FileProblem as p:
            errors.append(FileIssue(source, p.line, p.cause))
            return None

    for key in ("name", "description"):
        if key not in meta:
            errors.append(FileIssue(source, None, _p("missing_key", "missing key '%(key)s'", key=key)))
        else:
            values[key] = read(_string, meta[key], key, at(key))
    if "name" in meta:
        lines["name"] = lines["skill_code"] = (source, at("name"))
    if "description" in meta:
        lines["description"] = (source, at("description"))
    tool_ids: tuple[str, ...] = ()
    if "allowed-tools" in meta:
        tool_ids = read(_allowed_tools, meta["allowed-tools"], at("allowed-tools")) or ()
        lines["tool_ids"] = (source, at("allowed-tools"))
    sort_order = enabled = None
    code: Any = values.get("name")  # a string once no error was found
    display: Any = values.get("name")
    metadata = meta.get("metadata")
    if "metadata" in meta and not isinstance(metadata, dict):
        errors.append(
            FileIssue(
                source,
                at("metadata"),
                _p(
                    "metadata_not_mapping",
                    "metadata must be a mapping of keys, not %(kind)s",
                    kind=_type_name(metadata),
                ),
            )
        )
    elif isinstance(metadata, dict):
        for key in metadata:
            line = at(key, metadata)
            if key == "skill-code":
                code = read(_string, metadata[key], "metadata.skill-code", line)
                lines["skill_code"] = (source, line)
            elif key == "display-name":
                display = read(_string, metadata[key], "metadata.display-name", line)
                lines["name"] = (source, line)
            elif key == "sort-order":
                sort_order = read(_parse_int, metadata[key], "metadata.sort-order", line)
                lines["sort_order"] = (source, line)
            elif key == "enabled":
                enabled = read(_parse_bool, metadata[key], "metadata.enabled", line)
                lines["enabled"] = (source, line)
            elif isinstance(key, str) and _toolish(key):
                errors.append(
                    FileIssue(
                        source,
                        line,
                        _p("unknown_tool_key", UNKNOWN_TOOL_KEY, key=f"metadata.{key}", tool_key="allowed-tools"),
                    )
                )
            else:
                warnings.append(
                    FileIssue(
                        source,
                        line,
                        _p(
                            "unknown_key",
                            UNKNOWN_KEY,
                            key=f"metadata.{key}",
                            keys=", ".join(f"metadata.{k}" for k in METADATA_KEYS),
                        ),
                    )
                )
    folder = posixpath.basename(posixpath.dirname(source))
    name = values.get("name")
    if folder and isinstance(name, str) and folder != name:
        taken = "metadata.skill-code" if isinstance(metadata, dict) and "skill-code" in metadata else "name"
        warnings.append(
            FileIssue(
                source,
                at("name"),
                _p(
                    "folder_not_name",
                    "the folder is '%(folder)s' but name is '%(name)s' (Agent Skills expects them equal); "
                    "the skill code is taken from %(taken)s",
                    folder=folder,
                    name=name,
                    taken=taken,
                ),
            )
        )
    if errors:
        return ParsedFile(source, errors=tuple(sorted(errors, key=_issue_order)), warnings=tuple(warnings))
    return ParsedFile(
        source,
        warnings=tuple(warnings),
        declaration=SkillDeclaration(
            source=source,
            format=SKILL_MD,
            skill_code=code.strip(),
            name=display,  # text: no errors
            description=values["description"],
            content=body,
            tool_ids=tool_ids,
            sort_order=sort_order,
            enabled=enabled,
            lines=lines,
        ),
    )


# ---- a dataset -------------------------------------------------------------------------------
def is_skill_file(path: str) -> bool:
    """True for a declaration file (``*.properties``) or an Agent Skills ``SKILL.md``."""
    return path.lower().endswith(".properties") or posixpath.basename(path) == SKILL_MD_NAME


def parse_dataset(dataset: Dataset) -> list[ParsedFile]:
    """One ``ParsedFile`` per file of ``dataset`` in path order: each declaration file and SKILL.md
    parsed; the manuals that declarations name are not listed; every other file is listed as
    ignored with why. Two files declaring the same skill code are both errors."""
    out: list[ParsedFile] = []
    manuals: set[str] = set()
    for path in sorted(dataset.files):
        if path.lower().endswith(".properties"):
            named = content_file_of(path, dataset.files[path], dataset)
            if named:
                manuals.add(named)
    for path in sorted(set(dataset.files) | set(dataset.refused)):
        if path in dataset.refused:
            if is_skill_file(path):
                out.append(ParsedFile(path, errors=(FileIssue(path, None, dataset.refused[path]),)))
            elif path not in manuals:
                out.append(ParsedFile(path, ignored=dataset.refused[path]))
            continue
        if path.lower().endswith(".properties"):
            out.append(parse_properties(path, dataset.files[path], dataset))
        elif posixpath.basename(path) == SKILL_MD_NAME:
            out.append(parse_skill_md(path, dataset.files[path]))
        elif path not in manuals:
            out.append(
                ParsedFile(
                    path,
                    ignored=_p(
                        "not_a_skill_file",
                        "not a skill file (*.properties or SKILL.md) "
                        "nor a manual that a declaration names; not imported",
                    ),
                )
            )
    seen: set[str] = set()
    dupes: set[str] = set()
    for parsed in out:
        if parsed.declaration is not None:
            code = parsed.declaration.skill_code
            if code in seen:
                dupes.add(code)
            else:
                seen.add(code)
    if not dupes:
        return out
    sources = {
        code: [p.source for p in out if p.declaration is not None and p.declaration.skill_code == code]
        for code in dupes
    }
    result = []
    for parsed in out:
        decl = parsed.declaration
        if decl is not None and decl.skill_code in dupes:
            file, line = decl.where("skill_code")
            others = ", ".join(s for s in sources[decl.skill_code] if s != parsed.source)
            result.append(
                ParsedFile(
                    parsed.source,
                    warnings=parsed.warnings,
                    errors=(
                        FileIssue(
                            file,
                            line,
                            _p(
                                "code_declared_twice",
                                "skill code '%(code)s' is also declared by %(others)s; nothing of either is imported",
                                code=decl.skill_code,
                                others=others,
                            ),
                        ),
                    ),
                )
            )
        else:
            result.append(parsed)
    return result


# ---- writing ---------------------------------------------------------------------------------
#: Declaration files keep non-ASCII text as is (UTF-8), not as ``\\u`` escapes.
_AS_WRITTEN: dict[str, Any] = {"ensure_ascii": False}


def _properties_text(skill: Skill, content_file: str) -> str:
    pairs = [
        ("skill-code", skill.code),
        ("name", skill.name),
        ("description", skill.description),
        ("content-file", content_file),
    ]
    if skill.tool_ids:
        pairs.append(("tool-ids", ",".join(skill.tool_ids)))
    pairs += [("sort-order", str(skill.sort_order)), ("enabled", "true" if skill.enabled else "false")]
    head = "# Skill Console declaration (docs/import-export.md)\n"
    return head + "".join(javaproperties.join_key_value(k, v, **_AS_WRITTEN) + "\n" for k, v in pairs)


#: How the front matter is written: UTF-8 as is, keys in the order given, one line per value.
_YAML_STYLE: dict[str, Any] = {"allow_unicode": True, "sort_keys": False, "width": 10_000, "default_flow_style": False}


def _skill_md_text(skill: Skill, name: str) -> str:
    front: dict[str, Any] = {"name": name, "description": skill.description}
    if skill.tool_ids:
        front["allowed-tools"] = " ".join(skill.tool_ids)
    front["metadata"] = {
        "skill-code": skill.code,
        "display-name": skill.name,
        "sort-order": str(skill.sort_order),
        "enabled": "true" if skill.enabled else "false",
    }
    text = yaml.safe_dump(front, **_YAML_STYLE)
    return f"---\n{text}---\n\n{skill.content}"


def export_files(skills: Iterable[Skill], *, format: str) -> dict[str, bytes]:
    """The files (relative path → UTF-8 bytes, ``str.encode``'s default) that declare ``skills`` in ``format``:

    - ``properties``: ``<code>.properties`` and its manual ``manuals/<code>.md``;
    - ``skill-md``: ``<name>/SKILL.md`` where the folder and ``name`` are the code with ``_`` as
      ``-`` (the code itself when two codes would meet), with ``metadata.skill-code`` carrying the
      exact code.

    ``parse_dataset`` reads them back as the same records (code, name, description, manual,
    tool_ids, sort_order, enabled). Raises ``ValueError`` for an unknown format."""
    skills = list(skills)
    out: dict[str, bytes] = {}
    if format == PROPERTIES:
        for s in skills:
            manual = f"manuals/{s.code}.md"
            out[f"{s.code}.properties"] = _properties_text(s, manual).encode()
            # the reader drops one leading BOM; a manual that starts with U+FEFF keeps it that way
            out[manual] = (("\ufeff" if s.content.startswith("\ufeff") else "") + s.content).encode()
        return out
    if format == SKILL_MD:
        names = [agent_skill_name(s.code) for s in skills]
        for s, name in zip(skills, names):
            folder = name if names.count(name) == 1 else s.code
            out[f"{folder}/{SKILL_MD_NAME}"] = _skill_md_text(s, folder).encode()
        return out
    raise ValueError(f"unknown format '{format}'; formats: {', '.join(FORMATS)}")


#: The timestamp of every exported zip entry (a zip keeps even seconds only).
_ZIP_TIME = (2026, 1, 1, 0, 0, 0)


def zip_files(files: Mapping[str, bytes], *, folder: str = "") -> bytes:
    """A zip archive (bytes) of ``files`` under ``folder/`` (when given), in path order, with a fixed
    timestamp so the same files give the same archive."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # each entry says its compression
        for path in sorted(files):
            info = zipfile.ZipInfo(f"{folder}/{path}" if folder else path, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[path])
    return buffer.getvalue()
