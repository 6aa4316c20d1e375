"""Exact tests of skill-file reading and parsing (docs/import-export.md), written from the mutmut run
of ``packages/skill-rule/src/skill_rule/skill_files.py``: each refusal's exact code, sentence, parameters, file and
line, each limit at exactly its value and one past it, each parsed value exactly. No database.

Every dataset, file and archive is built inside its test (mutmut forks from a process that already
computed module-level values)."""

from __future__ import annotations

import datetime
import io
import os
import zipfile

import pytest

from skill_rule import Skill
from skill_rule.errors import Problem
from skill_rule.limits import (
    IMPORT_MAX_FILE_BYTES,
    IMPORT_MAX_FILES,
    IMPORT_MAX_TOTAL_BYTES,
    IMPORT_MAX_UPLOAD_BYTES,
)
from skill_rule.skill_files import (
    Dataset,
    FileIssue,
    ParsedFile,
    SkillDeclaration,
    SkillFileError,
    agent_skill_name,
    content_file_of,
    decode_text,
    export_files,
    is_skill_file,
    parse_dataset,
    parse_properties,
    parse_skill_md,
    read_files,
    read_folder,
    read_path,
    read_zip,
    split_front_matter,
    zip_files,
)


def pin(problem):
    """A ``Problem`` as ``(code, sentence, params)``, nested problems (a value's kind) pinned too."""
    assert isinstance(problem, Problem), repr(problem)
    return (problem.code, str(problem), {k: pin(v) if isinstance(v, Problem) else v for k, v in problem.params.items()})


def refusal(call, *args, **kwargs):
    """The ``SkillFileError`` a call raises, as ``(source, line, pinned cause)``; checks that the
    error's message, ``issue`` and ``details`` say the same."""
    with pytest.raises(SkillFileError) as info:
        call(*args, **kwargs)
    err = info.value
    assert err.code == "invalid_skill_files"
    assert err.issue == FileIssue(err.source, err.line, err.cause)
    assert str(err) == err.message == str(err.issue)
    assert err.details == {"source": err.source, "line": err.line, "cause": err.cause}
    return err.source, err.line, pin(err.cause)


def zip_of(entries) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return buffer.getvalue()


def sparse(path, size: int):
    """A file of ``size`` zero bytes that takes no disk space."""
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


TOO_MANY_FILES = (
    "import_too_many_files",
    f"holds more than {IMPORT_MAX_FILES} files; import it in parts",
    {"max": IMPORT_MAX_FILES},
)


def too_big(size: int):
    return (
        "import_file_too_big",
        f"{size} bytes; at most {IMPORT_MAX_FILE_BYTES} bytes per file",
        {"size": size, "max": IMPORT_MAX_FILE_BYTES},
    )


# ---- FileIssue, SkillFileError ------------------------------------------------------------------
def test_a_file_issue_reads_file_line_field_and_cause():
    """``str(FileIssue)``: ``file:line: cause``, ``file: cause`` without a line, ``file:line: field:
    cause`` for a service refusal of one field (line 0 is a line)."""
    assert str(FileIssue("a.properties", 3, "bad")) == "a.properties:3: bad"
    assert str(FileIssue("a.properties", 0, "bad")) == "a.properties:0: bad"
    assert str(FileIssue("a.properties", None, "bad")) == "a.properties: bad"
    assert str(FileIssue("a.properties", 3, "bad", field="name")) == "a.properties:3: name: bad"
    assert str(FileIssue("a.properties", None, "bad", field="name")) == "a.properties: name: bad"


def test_a_skill_file_error_carries_source_line_and_cause():
    """A dataset refusal keeps its source, line and cause, and reads ``file:line: cause``."""
    err = SkillFileError("too big", source="up.zip", line=4)
    assert (err.source, err.line, err.cause, err.code) == ("up.zip", 4, "too big", "invalid_skill_files")
    assert str(err) == err.message == "up.zip:4: too big"
    assert err.issue == FileIssue("up.zip", 4, "too big")
    assert err.details == {"source": "up.zip", "line": 4, "cause": "too big"}
    err = SkillFileError("too big", source="up.zip")
    assert (err.line, str(err), err.details["line"]) == (None, "up.zip: too big", None)


# ---- read_files ----------------------------------------------------------------------------------
def test_single_files_are_read_by_their_base_name_under_the_label_upload():
    """Single files keep their base name (``/`` or ``\\`` separated), the dataset is labelled
    ``upload`` unless told, nothing is refused, and it is flat (no folders)."""
    dataset = read_files([("x/a.properties", b"a"), ("c:\\m\\SKILL.md", b"b"), ("m.md", b"")])
    assert dataset == Dataset("upload", {"a.properties": b"a", "SKILL.md": b"b", "m.md": b""}, {}, flat=True)
    assert dataset.refused == {} and read_files([], label="L") == Dataset("L", {}, {}, flat=True)


@pytest.mark.parametrize("raw", [None, "", ".", "..", "dir/", "a/..", "a\\."])
def test_a_single_file_without_a_usable_name_refuses_the_upload(raw):
    """A file whose base name is empty, ``.`` or ``..`` refuses the upload, naming it as sent."""
    assert refusal(read_files, [("ok.md", b"x"), (raw, b"y")], label="up") == (
        "up",
        None,
        ("import_no_name", f"a file has no usable name ('{raw}')", {"name": raw}),
    )


def test_two_single_files_with_one_name_refuse_the_upload_even_when_the_first_was_too_big():
    """Two files of one base name refuse the upload, also when the first was refused for its size."""
    expected = (
        "up",
        None,
        ("import_same_name", "two files are named 'SKILL.md'; upload a folder as a zip instead", {"name": "SKILL.md"}),
    )
    assert refusal(read_files, [("a/SKILL.md", b"a"), ("b/SKILL.md", b"b")], label="up") == expected
    big = b"a" * (IMPORT_MAX_FILE_BYTES + 1)
    assert refusal(read_files, [("a/SKILL.md", big), ("b/SKILL.md", b"b")], label="up") == expected


def test_a_single_file_of_exactly_the_file_limit_is_read_and_one_byte_more_is_refused_alone():
    """A file of ``IMPORT_MAX_FILE_BYTES`` is read; one byte more is refused alone, the others read."""
    at = b"a" * IMPORT_MAX_FILE_BYTES
    dataset = read_files([("big.md", at + b"a"), ("at.md", at), ("ok.md", b"x")])
    assert dataset.files == {"at.md": at, "ok.md": b"x"}
    assert {k: pin(v) for k, v in dataset.refused.items()} == {"big.md": too_big(IMPORT_MAX_FILE_BYTES + 1)}


def test_single_files_of_exactly_the_total_limit_are_read_and_one_byte_more_refuses_them():
    """Single files adding up to ``IMPORT_MAX_TOTAL_BYTES`` are read; one byte more refuses the upload
    (a refused file does not count)."""
    chunk = b"a" * IMPORT_MAX_FILE_BYTES
    n = IMPORT_MAX_TOTAL_BYTES // IMPORT_MAX_FILE_BYTES
    named = [(f"f{i}.md", chunk) for i in range(n)]
    dataset = read_files([("big.md", chunk + b"a"), *named])
    assert len(dataset.files) == n and list(dataset.refused) == ["big.md"]
    assert refusal(read_files, [*named, ("one.md", b"a")], label="up") == (
        "up",
        None,
        (
            "import_files_too_many_bytes",
            f"more than {IMPORT_MAX_TOTAL_BYTES} bytes in all; import them in parts",
            {"max": IMPORT_MAX_TOTAL_BYTES},
        ),
    )


def test_exactly_the_file_count_limit_of_single_files_is_read_and_one_more_is_refused():
    """``IMPORT_MAX_FILES`` single files are read; one more refuses the upload, naming its label."""
    named = [(f"f{i}.md", b"") for i in range(IMPORT_MAX_FILES)]
    assert len(read_files(named).files) == IMPORT_MAX_FILES
    assert refusal(read_files, [*named, ("x.md", b"")], label="up") == ("up", None, TOO_MANY_FILES)
    assert refusal(read_files, [*named, ("x.md", b"")]) == ("upload", None, TOO_MANY_FILES)


# ---- read_path -----------------------------------------------------------------------------------
def test_read_path_reads_a_folder_a_zip_by_its_suffix_or_its_content_and_a_single_file(tmp_path):
    """A folder is read as a folder, a ``.zip`` (any case) or a file that is a zip as an archive, any
    other file as one single file; each labelled with its path."""
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "a.properties").write_bytes(b"p")
    assert read_path(folder) == Dataset(str(folder), {"a.properties": b"p"}, {})
    archive = zip_of([("s/SKILL.md", b"x")])
    for name in ("up.ZIP", "up.bin"):
        (tmp_path / name).write_bytes(archive)
        assert read_path(tmp_path / name) == Dataset(str(tmp_path / name), {"s/SKILL.md": b"x"}, {})
    (tmp_path / "one.properties").write_bytes(b"q")
    assert read_path(str(tmp_path / "one.properties")) == Dataset(
        str(tmp_path / "one.properties"), {"one.properties": b"q"}, {}, flat=True
    )
    (tmp_path / "fake.zip").write_bytes(b"not a zip")
    assert refusal(read_path, tmp_path / "fake.zip") == (
        str(tmp_path / "fake.zip"),
        None,
        (
            "import_not_zip",
            "is not a readable zip archive (File is not a zip file)",
            {"cause": "File is not a zip file"},
        ),
    )


def test_read_path_of_nothing_is_refused_with_its_code(tmp_path):
    """A path that does not exist: ``no such file or folder`` (``import_missing``), naming the path."""
    assert refusal(read_path, tmp_path / "nope") == (
        str(tmp_path / "nope"),
        None,
        ("import_missing", "no such file or folder", {}),
    )


def test_read_path_limits_a_zip_to_the_upload_limit_and_a_file_to_the_file_limit(tmp_path):
    """A zip of exactly ``IMPORT_MAX_UPLOAD_BYTES`` is opened (here: it is no zip); one byte more is
    refused unread. A single file of exactly ``IMPORT_MAX_FILE_BYTES`` is read; one byte more is
    refused."""
    at = sparse(tmp_path / "at.zip", IMPORT_MAX_UPLOAD_BYTES)
    assert refusal(read_path, at)[2][0] == "import_not_zip"
    over = sparse(tmp_path / "over.zip", IMPORT_MAX_UPLOAD_BYTES + 1)
    assert refusal(read_path, over) == (
        str(over),
        None,
        (
            "import_upload_too_big",
            f"is {IMPORT_MAX_UPLOAD_BYTES + 1} bytes; at most {IMPORT_MAX_UPLOAD_BYTES} bytes may be uploaded",
            {"size": IMPORT_MAX_UPLOAD_BYTES + 1, "max": IMPORT_MAX_UPLOAD_BYTES},
        ),
    )
    one = sparse(tmp_path / "one.md", IMPORT_MAX_FILE_BYTES)
    assert read_path(one) == Dataset(str(one), {"one.md": bytes(IMPORT_MAX_FILE_BYTES)}, {}, flat=True)
    big = sparse(tmp_path / "big.md", IMPORT_MAX_FILE_BYTES + 1)
    assert refusal(read_path, big) == (
        str(big),
        None,
        (
            "import_path_too_big",
            f"is {IMPORT_MAX_FILE_BYTES + 1} bytes; at most {IMPORT_MAX_FILE_BYTES} bytes per file",
            {"size": IMPORT_MAX_FILE_BYTES + 1, "max": IMPORT_MAX_FILE_BYTES},
        ),
    )


# ---- read_folder ---------------------------------------------------------------------------------
def test_a_folder_is_read_in_path_order_with_posix_paths(tmp_path):
    """Every file under the folder, sub-folders included, keyed by its POSIX path, folders and files
    in name order; labelled with the folder."""
    for rel in ("b/z.md", "b/a.md", "a/c/x.md", "z.properties", "a.properties", "m/SKILL.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(rel.encode())
    dataset = read_folder(str(tmp_path))
    assert dataset.label == str(tmp_path) and dataset.refused == {}
    assert list(dataset.files.items()) == [
        ("a.properties", b"a.properties"),
        ("z.properties", b"z.properties"),
        ("a/c/x.md", b"a/c/x.md"),
        ("b/a.md", b"b/a.md"),
        ("b/z.md", b"b/z.md"),
        ("m/SKILL.md", b"m/SKILL.md"),
    ]


def test_a_path_that_is_no_folder_is_refused_as_not_a_folder(tmp_path):
    """``read_folder`` of a file or of nothing: ``not a folder`` (``import_not_folder``)."""
    (tmp_path / "f.md").write_bytes(b"x")
    for path in (tmp_path / "f.md", tmp_path / "nope"):
        assert refusal(read_folder, path) == (str(path), None, ("import_not_folder", "not a folder", {}))


def test_links_out_of_the_folder_are_refused_unread_and_links_inside_are_read_once(tmp_path):
    """A file or folder link that points out of the folder is refused (``import_link_out``), never
    read; a file link inside is read; a folder link inside is skipped (its files are read once); a
    dangling link or anything not a regular file is refused as such."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_bytes(b"secret")
    root = tmp_path / "set"
    (root / "in").mkdir(parents=True)
    (root / "in" / "m.md").write_bytes(b"m")
    os.symlink(outside, root / "out_dir")
    os.symlink(outside / "secret.md", root / "out.md")
    os.symlink(root / "in", root / "in_dir")
    os.symlink(root / "in" / "m.md", root / "alias.md")
    os.symlink(root / "gone.md", root / "dangling.md")
    os.mkfifo(root / "pipe")
    dataset = read_folder(root)
    assert dataset.files == {"alias.md": b"m", "in/m.md": b"m"}
    link_out = ("import_link_out", "a symbolic link that points out of the dataset folder; not read", {})
    not_regular = ("import_not_regular", "not a regular file; not read", {})
    assert {k: pin(v) for k, v in dataset.refused.items()} == {
        "out_dir": link_out,
        "out.md": link_out,
        "dangling.md": not_regular,
        "pipe": not_regular,
    }


def test_a_folder_file_of_exactly_the_file_limit_is_read_and_one_byte_more_is_refused_alone(tmp_path):
    """A file of ``IMPORT_MAX_FILE_BYTES`` is read; one byte more is refused alone, never read."""
    sparse(tmp_path / "at.md", IMPORT_MAX_FILE_BYTES)
    sparse(tmp_path / "big.md", IMPORT_MAX_FILE_BYTES + 1)
    dataset = read_folder(tmp_path)
    assert dataset.files == {"at.md": bytes(IMPORT_MAX_FILE_BYTES)}
    assert {k: pin(v) for k, v in dataset.refused.items()} == {"big.md": too_big(IMPORT_MAX_FILE_BYTES + 1)}


def test_a_folder_of_exactly_the_total_limit_is_read_and_one_byte_more_is_refused(tmp_path):
    """Files adding up to ``IMPORT_MAX_TOTAL_BYTES`` are read (a file too big does not count); one
    byte more refuses the folder (``import_too_many_bytes``)."""
    root = tmp_path / "set"
    root.mkdir()
    first = sparse(root / "f0.md", IMPORT_MAX_FILE_BYTES)
    for i in range(1, IMPORT_MAX_TOTAL_BYTES // IMPORT_MAX_FILE_BYTES):
        os.link(first, root / f"f{i}.md")
    sparse(root / "big.md", IMPORT_MAX_FILE_BYTES + 1)
    dataset = read_folder(root)
    assert len(dataset.files) == IMPORT_MAX_TOTAL_BYTES // IMPORT_MAX_FILE_BYTES and list(dataset.refused) == ["big.md"]
    (root / "one.md").write_bytes(b"a")
    assert refusal(read_folder, root) == (
        str(root),
        None,
        (
            "import_too_many_bytes",
            f"holds more than {IMPORT_MAX_TOTAL_BYTES} bytes; import it in parts",
            {"max": IMPORT_MAX_TOTAL_BYTES},
        ),
    )


def test_a_folder_of_exactly_the_file_count_limit_is_read_and_one_more_file_is_refused(tmp_path):
    """``IMPORT_MAX_FILES`` files (in sub-folders too) are read; one more refuses the folder."""
    (tmp_path / "sub").mkdir()
    for i in range(IMPORT_MAX_FILES):
        (tmp_path / ("sub" if i % 2 else "") / f"f{i}.md").write_bytes(b"")
    assert len(read_folder(tmp_path).files) == IMPORT_MAX_FILES
    (tmp_path / "sub" / "x.md").write_bytes(b"")
    assert refusal(read_folder, tmp_path) == (str(tmp_path), None, TOO_MANY_FILES)


# ---- read_zip ------------------------------------------------------------------------------------
def test_a_zip_is_read_with_clean_paths_its_folders_skipped_and_the_label_upload_zip():
    """Entries keep their clean relative path (``./`` and ``//`` dropped, a top folder kept),
    folder entries are skipped, nothing is refused; the label is ``upload.zip`` unless told."""
    dataset = read_zip(zip_of([("top/", b""), ("top/./a//SKILL.md", b"x"), ("top/m.md", b"")]))
    assert dataset == Dataset("upload.zip", {"top/a/SKILL.md": b"x", "top/m.md": b""}, {})
    assert dataset.refused == {}
    assert refusal(read_zip, b"no zip")[0] == "upload.zip"


def test_a_zip_of_exactly_the_upload_limit_is_opened_and_one_byte_more_is_refused_unread():
    """``IMPORT_MAX_UPLOAD_BYTES`` bytes are opened (here: no zip); one more byte is refused by size."""
    assert refusal(read_zip, bytes(IMPORT_MAX_UPLOAD_BYTES), label="up.zip") == (
        "up.zip",
        None,
        (
            "import_not_zip",
            "is not a readable zip archive (File is not a zip file)",
            {"cause": "File is not a zip file"},
        ),
    )
    assert refusal(read_zip, bytes(IMPORT_MAX_UPLOAD_BYTES + 1), label="up.zip") == (
        "up.zip",
        None,
        (
            "import_upload_too_big",
            f"is {IMPORT_MAX_UPLOAD_BYTES + 1} bytes; at most {IMPORT_MAX_UPLOAD_BYTES} bytes may be uploaded",
            {"size": IMPORT_MAX_UPLOAD_BYTES + 1, "max": IMPORT_MAX_UPLOAD_BYTES},
        ),
    )


def test_a_zip_of_exactly_the_entry_count_limit_is_read_and_one_more_entry_is_refused():
    """``IMPORT_MAX_FILES`` entries (folder entries count) are read; one more refuses the archive."""
    entries = [("d/", b""), *((f"d/f{i}.md", b"") for i in range(IMPORT_MAX_FILES - 1))]
    assert len(read_zip(zip_of(entries)).files) == IMPORT_MAX_FILES - 1
    assert refusal(read_zip, zip_of([*entries, ("x.md", b"")]), label="up.zip") == ("up.zip", None, TOO_MANY_FILES)


@pytest.mark.parametrize("entry", ["C:/x.md", "C:", "a:b.md", "/abs.md", "a/../../x.md", "..", "a\\b.md", ".", "./"])
def test_a_zip_entry_with_an_unsafe_path_refuses_the_archive_naming_it_as_written(entry):
    """An absolute path, a drive, ``..``, a backslash or no path at all refuses the whole archive."""
    data = zip_of([("ok.md", b"x"), (zipfile.ZipInfo(entry), b"y")])
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        written = z.infolist()[1].filename
    if written.endswith("/"):  # zipfile reads a name ending in '/' as a folder: skipped, not refused
        assert read_zip(data).files == {"ok.md": b"x"}
        return
    assert refusal(read_zip, data, label="up.zip") == (
        "up.zip",
        None,
        (
            "import_unsafe_entry",
            f"entry '{written}' has an unsafe path (absolute, '..' or '\\'); the archive is refused",
            {"entry": written},
        ),
    )


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_a_zip_entry_that_appears_twice_refuses_the_archive_even_as_another_spelling_or_after_a_refusal():
    """Two entries with one clean path refuse the archive, naming the path; also when the first was
    refused for its size."""
    expected = (
        "up.zip",
        None,
        ("import_entry_twice", "entry 'a/m.md' appears twice; the archive is refused", {"entry": "a/m.md"}),
    )
    assert refusal(read_zip, zip_of([("a/m.md", b"x"), ("./a//m.md", b"y")]), label="up.zip") == expected
    big = b"a" * (IMPORT_MAX_FILE_BYTES + 1)
    assert refusal(read_zip, zip_of([("a/m.md", big), ("a/m.md", b"y")]), label="up.zip") == expected


def test_a_zip_symbolic_link_refuses_the_archive_with_its_code():
    """An entry whose mode is a symbolic link refuses the archive (``import_entry_link``)."""
    info = zipfile.ZipInfo("a/./manual.md")
    info.external_attr = 0o120777 << 16
    assert refusal(read_zip, zip_of([(info, "/etc/passwd")]), label="up.zip") == (
        "up.zip",
        None,
        (
            "import_entry_link",
            "entry 'a/manual.md' is a symbolic link; the archive is refused",
            {"entry": "a/manual.md"},
        ),
    )


def test_a_zip_entry_of_exactly_the_file_limit_is_read_and_one_byte_more_is_refused_alone():
    """An entry of ``IMPORT_MAX_FILE_BYTES`` is read whole; one byte more is refused alone."""
    at = b"a" * IMPORT_MAX_FILE_BYTES
    dataset = read_zip(zip_of([("big.md", at + b"a"), ("at.md", at), ("ok.md", b"x")]))
    assert dataset.files == {"at.md": at, "ok.md": b"x"}
    assert {k: pin(v) for k, v in dataset.refused.items()} == {"big.md": too_big(IMPORT_MAX_FILE_BYTES + 1)}


def test_a_zip_entry_that_cannot_be_unpacked_is_refused_alone_with_the_cause():
    """An entry whose data fails its checksum is refused (``import_unpack_failed``), the rest read."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("bad.md", b"hello world")
        z.writestr("ok.md", b"fine")
    data = buffer.getvalue().replace(b"hello world", b"hellO world")
    dataset = read_zip(data)
    assert dataset.files == {"ok.md": b"fine"}
    assert {k: pin(v) for k, v in dataset.refused.items()} == {
        "bad.md": (
            "import_unpack_failed",
            "cannot be unpacked (Bad CRC-32 for file 'bad.md')",
            {"cause": "Bad CRC-32 for file 'bad.md'"},
        )
    }


def test_an_entry_is_read_at_most_one_byte_past_the_file_limit_whatever_its_header_says(monkeypatch):
    """Whatever an entry's header claims, reading stops one byte past ``IMPORT_MAX_FILE_BYTES``; an
    entry that unpacks to more is refused alone (``import_unpacks_too_big``)."""
    asked = []

    class Endless(io.BytesIO):
        def read(self, size=-1):
            asked.append(size)
            return b"a" * size

    data = zip_of([("bomb.md", b"tiny"), ("ok.md", b"x")])
    real_open = zipfile.ZipFile.open
    monkeypatch.setattr(
        zipfile.ZipFile,
        "open",
        lambda self, info, *a, **k: Endless() if info.filename == "bomb.md" else real_open(self, info, *a, **k),
    )
    dataset = read_zip(data)
    assert asked == [IMPORT_MAX_FILE_BYTES + 1]
    assert dataset.files == {"ok.md": b"x"}
    assert {k: pin(v) for k, v in dataset.refused.items()} == {
        "bomb.md": (
            "import_unpacks_too_big",
            f"unpacks to more than {IMPORT_MAX_FILE_BYTES} bytes; at most {IMPORT_MAX_FILE_BYTES} per file",
            {"max": IMPORT_MAX_FILE_BYTES},
        )
    }


def test_a_zip_of_exactly_the_total_limit_is_read_and_one_byte_more_is_refused():
    """Entries unpacking to ``IMPORT_MAX_TOTAL_BYTES`` are read (a refused entry does not count); one
    byte more refuses the archive (``import_unpacks_too_many_bytes``)."""
    chunk = b"a" * IMPORT_MAX_FILE_BYTES
    entries = [(f"f{i}.md", chunk) for i in range(IMPORT_MAX_TOTAL_BYTES // IMPORT_MAX_FILE_BYTES)]
    dataset = read_zip(zip_of([("big.md", chunk + b"a"), *entries]))
    assert len(dataset.files) == len(entries) and list(dataset.refused) == ["big.md"]
    assert refusal(read_zip, zip_of([*entries, ("one.md", b"a")]), label="up.zip") == (
        "up.zip",
        None,
        (
            "import_unpacks_too_many_bytes",
            f"unpacks to more than {IMPORT_MAX_TOTAL_BYTES} bytes; import it in parts",
            {"max": IMPORT_MAX_TOTAL_BYTES},
        ),
    )


# ---- text ----------------------------------------------------------------------------------------
def test_decode_text_drops_one_bom_and_reads_every_line_ending_as_a_newline():
    """One leading BOM is dropped (a second is the text's), CRLF and CR become ``\\n``."""
    assert decode_text(b"\xef\xbb\xbf\xef\xbb\xbfa\r\nb\rc\n\r\n") == "\ufeffa\nb\nc\n\n"
    assert decode_text(b"a\xef\xbb\xbf") == "a\ufeff"


def test_text_that_is_not_utf8_is_refused_at_the_line_of_its_first_bad_byte():
    """The refusal names the 1-based line of the first byte that is not UTF-8, and the byte."""
    parsed = parse_properties("P", b"skill-code=a\r\n\nname=\xc3(\n\xff\n", Dataset("t", {}))
    assert [(e.source, e.line, pin(e.cause)) for e in parsed.errors] == [
        ("P", 3, ("import_not_utf8", "not UTF-8 text (byte 0xc3)", {"byte": "c3"}))
    ]
    assert (parsed.source, parsed.declaration, parsed.warnings) == ("P", None, ())


# ---- .properties ---------------------------------------------------------------------------------
DECLARATION = """# 订单修改
! Ragent declaration

skill-code =  order_change\x20\x20
name: 订单修改\x20
description=取消订单\\
    收货地址
content-file= m/order_change.md\x20
tool-ids=cancel_order, ,change_address ,
sort-order= -20
enabled= TRUE
"""


def test_every_field_of_a_declaration_is_read_exactly_and_names_its_line():
    """Each field's value (the code stripped, the name kept as written, the tool list without
    blanks) and the file and line a refusal of it would name."""
    dataset = Dataset("t", {"m/order_change.md": "# 手册\r\n".encode()})
    parsed = parse_properties("o.properties", DECLARATION.encode(), dataset)
    assert parsed == ParsedFile(
        "o.properties",
        declaration=SkillDeclaration(
            source="o.properties",
            format="properties",
            skill_code="order_change",
            name="订单修改 ",
            description="取消订单收货地址",
            content="# 手册\n",
            tool_ids=("cancel_order", "change_address"),
            sort_order=-20,
            enabled=True,
            lines={
                "skill_code": ("o.properties", 4),
                "name": ("o.properties", 5),
                "description": ("o.properties", 6),
                "tool_ids": ("o.properties", 9),
                "sort_order": ("o.properties", 10),
                "enabled": ("o.properties", 11),
                "content": ("m/order_change.md", 1),
            },
        ),
    )


def test_a_declaration_without_the_optional_keys_leaves_them_unset():
    """No ``tool-ids``, ``sort-order`` or ``enabled``: no tools, ``None``, ``None``; ``where`` of
    them is the file without a line."""
    parsed = parse_properties(
        "sub/a.properties",
        b"skill-code=a\nname=A\ndescription=d\ncontent-file=m.md\n",
        Dataset("t", {"sub/m.md": b"x"}),
    )
    d = parsed.declaration
    assert (d.tool_ids, d.sort_order, d.enabled, d.content) == ((), None, None, "x")
    assert d.where("sort_order") == d.where("enabled") == d.where("tool_ids") == ("sub/a.properties", None)
    assert d.where("content") == ("sub/m.md", 1)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", 0),
        ("-0", 0),
        (" 7 ", 7),
        ("-3", -3),
        ("0012", 12),
        ("--3", None),
        ("+3", None),
        ("٣", None),
        ("1.5", None),
        ("1e3", None),
        ("-", None),
        ("", None),
        ("3-", None),
        ("1 2", None),
        ("9" * 5000, None),
    ],
)
def test_a_sort_order_is_a_whole_number_of_ascii_digits_with_one_optional_minus(value, expected):
    """``sort-order``: ASCII digits with at most one leading minus; anything else (``--3`` and
    more digits than Python reads included) is refused at its line, never a crash."""
    parsed = parse_properties(
        "P",
        f"skill-code=a\nname=A\ndescription=d\ncontent-file=m.md\nsort-order={value}\n".encode(),
        Dataset("t", {"m.md": b""}),
    )
    if expected is not None:
        assert parsed.declaration.sort_order == expected
        return
    assert [(e.line, pin(e.cause)) for e in parsed.errors] == [
        (
            5,
            (
                "import_not_int",
                f"sort-order must be a whole number, not {value.strip()!r}",
                {"key": "sort-order", "value": value.strip()},
            ),
        )
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("true", True),
        ("false", False),
        (" True ", True),
        ("FALSE", False),
        ("1", None),
        ("yes", None),
        ("", None),
        ("truefalse", None),
    ],
)
def test_enabled_is_true_or_false_in_any_case(value, expected):
    """``enabled``: ``true`` or ``false`` in any case, spaces around ignored; anything else refused."""
    parsed = parse_properties(
        "P",
        f"skill-code=a\nname=A\ndescription=d\ncontent-file=m.md\nenabled={value}\n".encode(),
        Dataset("t", {"m.md": b""}),
    )
    if expected is not None:
        assert parsed.declaration.enabled is expected
        return
    assert [(e.line, pin(e.cause)) for e in parsed.errors] == [
        (
            5,
            (
                "import_not_bool",
                f"enabled must be true or false, not {value.strip()!r}",
                {"key": "enabled", "value": value.strip()},
            ),
        )
    ]


HEAD = "skill-code=a\nname=A\ndescription=d\n"
FILE_TOO_BIG_TEMPLATE = "%(size)s bytes; at most %(max)s bytes per file"
KEYS = "skill-code, name, description, content-file, tool-ids, sort-order, enabled"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            HEAD + "content-file=m.md\nname=B\n! c\nname=C\n",
            [
                (5, ("key_twice", "key 'name' is set twice (first on line 2)", {"key": "name", "first": 2})),
                (7, ("key_twice", "key 'name' is set twice (first on line 2)", {"key": "name", "first": 2})),
            ],
        ),
        (
            HEAD + "content-file=m.md\nTools=x\n",
            [
                (
                    5,
                    (
                        "unknown_tool_key",
                        "unknown key 'Tools'; the gated tools are read from 'tool-ids' only (the skill "
                        "would gate no tool)",
                        {"key": "Tools", "tool_key": "tool-ids"},
                    ),
                )
            ],
        ),
        (
            HEAD + "content-file=m.md\ntool-ids=,\n",
            [(5, ("tool_ids_empty", "tool-ids is empty; leave the key out for a manual that gates no tool", {}))],
        ),
        (
            HEAD + "content-file=\\\n  m.md\nx=\\u00\n",
            [(6, ("bad_u_escape", "invalid \\u escape '\\u00'", {"escape": "\\u00"}))],
        ),
        (
            HEAD + "content-file=   \n",
            [(4, ("content_file_empty", "content-file is empty; name the markdown manual next to this file", {}))],
        ),
        (
            HEAD + "content-file=C:m.md\n",
            [
                (
                    4,
                    (
                        "content_file_absolute",
                        "content-file 'C:m.md' must be a relative path with '/' separators",
                        {"value": "C:m.md"},
                    ),
                )
            ],
        ),
        (
            HEAD + "content-file=C:\n",
            [
                (
                    4,
                    (
                        "content_file_absolute",
                        "content-file 'C:' must be a relative path with '/' separators",
                        {"value": "C:"},
                    ),
                )
            ],
        ),
        (
            HEAD + "content-file=a/../m.md\n",
            [
                (
                    4,
                    (
                        "content_file_parent",
                        "content-file 'a/../m.md' may not contain '..'; the manual must be inside the dataset folder",
                        {"value": "a/../m.md"},
                    ),
                )
            ],
        ),
        (
            HEAD + "content-file=.\n",
            [(4, ("content_file_unusable", "content-file '.' is not a usable path", {"value": "."}))],
        ),
        (
            HEAD + "content-file=m\\u0000.md\n",
            [(4, ("content_file_unusable", "content-file 'm\x00.md' is not a usable path", {"value": "m\x00.md"}))],
        ),
        (
            HEAD + "content-file=:\n",
            [
                (
                    4,
                    (
                        "content_file_missing",
                        "content-file ':' is not in the dataset (looked for ':')",
                        {"value": ":", "path": ":"},
                    ),
                )
            ],
        ),
        (
            HEAD + "content-file= ./x//big.md \n",
            [
                (
                    4,
                    (
                        "content_file_refused",
                        "content-file './x//big.md': 2 bytes; at most 1 bytes per file",
                        {
                            "value": "./x//big.md",
                            "reason": Problem("import_file_too_big", FILE_TOO_BIG_TEMPLATE, {"size": 2, "max": 1}),
                        },
                    ),
                )
            ],
        ),
    ],
)
def test_each_declaration_refusal_has_its_code_sentence_and_line(text, expected):
    """Each refusal of a declaration: its code, its sentence, its parameters and its line."""
    dataset = Dataset(
        "t",
        {"m.md": b""},
        refused={"x/big.md": Problem("import_file_too_big", FILE_TOO_BIG_TEMPLATE, {"size": 2, "max": 1})},
    )
    parsed = parse_properties("P", text.encode(), dataset)
    assert (parsed.source, parsed.declaration) == ("P", None)
    assert [(e.source, e.line, pin(e.cause)) for e in parsed.errors] == [
        ("P", line, (code, sentence, {k: pin(v) if isinstance(v, Problem) else v for k, v in params.items()}))
        for line, (code, sentence, params) in expected
    ]


def test_the_errors_of_a_declaration_come_by_line_then_the_missing_keys_and_its_warnings_stay():
    """Errors are listed by line, the missing keys (no line) last in key order; unknown keys stay as
    warnings beside the errors."""
    parsed = parse_properties(
        "P", b"enabled=x\nauthor=me\nsort-order=y\nskill-code=a\nskill-code=b\n", Dataset("t", {})
    )
    assert [str(e) for e in parsed.errors] == [
        "P:1: enabled must be true or false, not 'x'",
        "P:3: sort-order must be a whole number, not 'y'",
        "P:5: key 'skill-code' is set twice (first on line 4)",
        "P: missing key 'name'",
        "P: missing key 'description'",
        "P: missing key 'content-file'",
    ]
    assert [pin(e.cause) for e in parsed.errors][3] == ("missing_key", "missing key 'name'", {"key": "name"})
    assert [(w.line, pin(w.cause)) for w in parsed.warnings] == [
        (
            2,
            (
                "unknown_key",
                f"unknown key 'author' is not imported (keys read: {KEYS})",
                {"key": "author", "keys": KEYS},
            ),
        )
    ]


def test_a_manual_that_is_not_utf8_is_refused_at_its_own_file_and_line():
    """A manual with a byte that is not UTF-8: the error names the manual and its line."""
    parsed = parse_properties("d/P", (HEAD + "content-file=m.md\n").encode(), Dataset("t", {"d/m.md": b"a\n\nb\xff"}))
    assert [(e.source, e.line, pin(e.cause)) for e in parsed.errors] == [
        ("d/m.md", 3, ("import_not_utf8", "not UTF-8 text (byte 0xff)", {"byte": "ff"}))
    ]


def test_content_file_of_names_the_manual_of_a_readable_declaration_only():
    """The manual path a declaration names (relative to its folder), or ``None`` when there is none
    or the declaration cannot be read."""
    assert content_file_of("a/b/x.properties", b"k=v\ncontent-file = ./m//y.md\ncontent-file=z.md\n") == "a/b/m/y.md"
    assert content_file_of("x.properties", b"# content-file=m.md\nname=a\n") is None
    assert content_file_of("x.properties", b"content-file=\xff\n") is None
    assert content_file_of("x.properties", b"x=\\u1\ncontent-file=m.md\n") is None
    assert content_file_of("x.properties", b"content-file=../m.md\n") is None


# ---- SKILL.md ------------------------------------------------------------------------------------
def md(front: str, body: str = "\n# 手册\n") -> bytes:
    return f"---\n{front}---\n{body}".encode()


def md_errors(front: str, source: str = "s/SKILL.md"):
    parsed = parse_skill_md(source, md(front))
    assert (parsed.source, parsed.declaration) == (source, None)
    return [(e.source, e.line, pin(e.cause)) for e in parsed.errors]


def test_split_front_matter_gives_the_yaml_the_manual_and_the_manuals_first_line():
    """The block between a first line ``---`` and the next (spaces after ``---`` allowed); one blank
    line after it is not the manual's; the manual's first line counts from 1."""
    assert split_front_matter("---  \na: 1\nb: 2\n--- \nbody\n") == ("a: 1\nb: 2\n", "body\n", 5)
    assert split_front_matter("---\na: 1\n---\n\nbody") == ("a: 1\n", "body", 5)
    assert split_front_matter("---\na: 1\n---\n\n\nbody") == ("a: 1\n", "\nbody", 5)
    assert split_front_matter("---\n---") == ("\n", "", 3)


def test_every_field_of_a_skill_md_is_read_exactly_and_names_its_line():
    """The code and the name from ``metadata`` (the code stripped), each field's line of the file."""
    parsed = parse_skill_md(
        "order-change/SKILL.md",
        md(
            "name: order-change\ndescription: 取消\nallowed-tools: [' a ', b]\nmetadata:\n"
            "  enabled: 'true'\n  sort-order: -4\n  display-name: 订单\n  skill-code: ' order_change '\n"
        ),
    )
    assert parsed == ParsedFile(
        "order-change/SKILL.md",
        declaration=SkillDeclaration(
            source="order-change/SKILL.md",
            format="skill-md",
            skill_code="order_change",
            name="订单",
            description="取消",
            content="# 手册\n",
            tool_ids=("a", "b"),
            sort_order=-4,
            enabled=True,
            lines={
                "content": ("order-change/SKILL.md", 12),
                "name": ("order-change/SKILL.md", 8),
                "skill_code": ("order-change/SKILL.md", 9),
                "description": ("order-change/SKILL.md", 3),
                "tool_ids": ("order-change/SKILL.md", 4),
                "sort_order": ("order-change/SKILL.md", 7),
                "enabled": ("order-change/SKILL.md", 6),
            },
        ),
    )


def test_a_skill_md_without_metadata_takes_code_and_name_from_name_at_its_line():
    """Without ``metadata``: code and name are ``name``, both at its line; no tools, order or state;
    a SKILL.md outside any folder gets no folder warning."""
    parsed = parse_skill_md("SKILL.md", md("description: d\nname: ab\n", "x"))
    assert parsed == ParsedFile(
        "SKILL.md",
        declaration=SkillDeclaration(
            source="SKILL.md",
            format="skill-md",
            skill_code="ab",
            name="ab",
            description="d",
            content="x",
            tool_ids=(),
            sort_order=None,
            enabled=None,
            lines={
                "content": ("SKILL.md", 5),
                "name": ("SKILL.md", 3),
                "skill_code": ("SKILL.md", 3),
                "description": ("SKILL.md", 2),
            },
        ),
    )


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("~", ("kind_nothing", "nothing", {})),
        ("no", ("kind_boolean", "a boolean (false)", {"value": "false"})),
        ("1.5", ("kind_number", "a number (1.5)", {"value": 1.5})),
        ("{a: 1}", ("kind_mapping", "a mapping", {})),
        ("[a]", ("kind_list", "a list", {})),
        ("2024-01-02", ("kind_other", "a date (2024-01-02)", {"type": "date", "value": datetime.date(2024, 1, 2)})),
    ],
)
def test_a_value_that_is_no_text_is_refused_naming_its_kind(value, kind):
    """``description`` that is no text: refused at its line, naming what it is (each kind has its code)."""
    assert md_errors(f"name: a\ndescription: {value}\n") == [
        (
            "s/SKILL.md",
            3,
            (
                "value_not_text",
                f"description must be text, not {kind[1]}; put it in quotes",
                {"key": "description", "kind": kind},
            ),
        )
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", ("allowed_tools_empty", "allowed-tools is empty; leave the key out for a manual that gates no tool", {})),
        (
            "' , '",
            ("allowed_tools_empty", "allowed-tools is empty; leave the key out for a manual that gates no tool", {}),
        ),
        (
            "[]",
            ("allowed_tools_empty", "allowed-tools is empty; leave the key out for a manual that gates no tool", {}),
        ),
        (
            "[a, '']",
            (
                "allowed_tools_item",
                "allowed-tools item 2 must be a tool name, not an empty string",
                {"index": 2, "kind": ("kind_empty_string", "an empty string", {})},
            ),
        ),
        (
            "[a, b, 7]",
            (
                "allowed_tools_item",
                "allowed-tools item 3 must be a tool name, not a number (7)",
                {"index": 3, "kind": ("kind_number", "a number (7)", {"value": 7})},
            ),
        ),
        (
            "['  ']",
            (
                "allowed_tools_item",
                "allowed-tools item 1 must be a tool name, not a str (  )",
                {"index": 1, "kind": ("kind_other", "a str (  )", {"type": "str", "value": "  "})},
            ),
        ),
        (
            "{a: 1}",
            (
                "allowed_tools_type",
                "allowed-tools must be tool names separated by spaces (or a list), not a mapping",
                {"kind": ("kind_mapping", "a mapping", {})},
            ),
        ),
    ],
)
def test_each_bad_allowed_tools_is_refused_with_its_code_at_its_line(value, expected):
    """``allowed-tools`` empty, with an item that is no name, or of another type: refused, never
    read as a manual that gates no tool."""
    assert md_errors(f"name: a\ndescription: d\nallowed-tools: {value}\n") == [("s/SKILL.md", 4, expected)]


def test_allowed_tools_as_text_splits_on_spaces_and_commas():
    """A string of names: split on commas and any whitespace, blanks dropped."""
    parsed = parse_skill_md("SKILL.md", md("name: a\ndescription: d\nallowed-tools: ' a,b  c ,, d'\n"))
    assert parsed.declaration.tool_ids == ("a", "b", "c", "d")


def test_the_errors_of_a_skill_md_come_by_line_then_the_missing_keys_and_its_warnings_stay():
    """Errors by line, a missing key (no line) last; warnings are kept beside the errors."""
    parsed = parse_skill_md("s/SKILL.md", md("license: MIT\nmetadata:\n  enabled: x\nallowed-tools: []\n"))
    assert [str(e) for e in parsed.errors] == [
        "s/SKILL.md:4: metadata.enabled must be true or false, not 'x'",
        "s/SKILL.md:5: allowed-tools is empty; leave the key out for a manual that gates no tool",
        "s/SKILL.md: missing key 'name'",
        "s/SKILL.md: missing key 'description'",
    ]
    assert pin(parsed.errors[2].cause) == ("missing_key", "missing key 'name'", {"key": "name"})
    assert [(w.line, pin(w.cause)) for w in parsed.warnings] == [
        (
            2,
            (
                "key_not_kept",
                "'license' is an Agent Skills key that Skill Console does not keep; not imported",
                {"key": "license"},
            ),
        )
    ]


def test_keys_of_a_skill_md_are_checked_with_their_codes_and_lines():
    """A key that is no name, a compatibility key, a misspelt tool key (top level or in metadata),
    an unknown key (top level, then in metadata): each with its code, parameters and line."""
    parsed = parse_skill_md(
        "s/SKILL.md",
        md(
            "name: s\ndescription: d\n2: x\ncompatibility: y\nmetadata:\n  Gated_Tools: a\n  7: b\n  author: c\n"
            "Allowed Tool: z\nmodel: m\n"
        ),
    )
    meta_keys = "metadata.skill-code, metadata.display-name, metadata.sort-order, metadata.enabled"
    assert {e.source for e in parsed.errors} | {w.source for w in parsed.warnings} == {"s/SKILL.md"}
    assert [(e.line, pin(e.cause)) for e in parsed.errors] == [
        (4, ("key_not_name", "key 2 is not a name", {"key": 2})),
        (
            7,
            (
                "unknown_tool_key",
                "unknown key 'metadata.Gated_Tools'; the gated tools are read from 'allowed-tools' "
                "only (the skill would gate no tool)",
                {"key": "metadata.Gated_Tools", "tool_key": "allowed-tools"},
            ),
        ),
        (
            10,
            (
                "unknown_tool_key",
                "unknown key 'Allowed Tool'; the gated tools are read from 'allowed-tools' only (the "
                "skill would gate no tool)",
                {"key": "Allowed Tool", "tool_key": "allowed-tools"},
            ),
        ),
    ]
    assert [(w.line, pin(w.cause)) for w in parsed.warnings] == [
        (
            5,
            (
                "key_not_kept",
                "'compatibility' is an Agent Skills key that Skill Console does not keep; not imported",
                {"key": "compatibility"},
            ),
        ),
        (
            11,
            (
                "unknown_key",
                "unknown key 'model' is not imported (keys read: name, description, allowed-tools, metadata)",
                {"key": "model", "keys": "name, description, allowed-tools, metadata"},
            ),
        ),
        (
            8,
            (
                "unknown_key",
                f"unknown key 'metadata.7' is not imported (keys read: {meta_keys})",
                {"key": "metadata.7", "keys": meta_keys},
            ),
        ),
        (
            9,
            (
                "unknown_key",
                f"unknown key 'metadata.author' is not imported (keys read: {meta_keys})",
                {"key": "metadata.author", "keys": meta_keys},
            ),
        ),
    ]


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("name: a\ndescription: d\n[a, b]: x\n", (4, "key_not_plain", "a key must be a plain name", {})),
        (
            "name: a\ndescription: d\nmetadata:\n  x: 1\n  y: 2\n  x: 3\n",
            (7, "key_twice", "key 'x' is set twice (first on line 5)", {"key": "x", "first": 5}),
        ),
        (
            "name: a\ndescription: d\nmetadata:\n",
            (
                4,
                "metadata_not_mapping",
                "metadata must be a mapping of keys, not nothing",
                {"kind": ("kind_nothing", "nothing", {})},
            ),
        ),
        (
            "name: a\ndescription: d\nmetadata:\n  display-name: 5\n",
            (
                5,
                "value_not_text",
                "metadata.display-name must be text, not a number (5); put it in quotes",
                {"key": "metadata.display-name", "kind": ("kind_number", "a number (5)", {"value": 5})},
            ),
        ),
        (
            "name: a\ndescription: d\nmetadata:\n  skill-code: [x]\n",
            (
                5,
                "value_not_text",
                "metadata.skill-code must be text, not a list; put it in quotes",
                {"key": "metadata.skill-code", "kind": ("kind_list", "a list", {})},
            ),
        ),
        (
            "name: a\ndescription: d\nmetadata:\n  sort-order: true\n",
            (
                5,
                "import_not_int",
                "metadata.sort-order must be a whole number, not True",
                {"key": "metadata.sort-order", "value": True},
            ),
        ),
        (
            "name: a\ndescription: d\nmetadata:\n  sort-order: '--3'\n",
            (
                5,
                "import_not_int",
                "metadata.sort-order must be a whole number, not '--3'",
                {"key": "metadata.sort-order", "value": "--3"},
            ),
        ),
        (
            "name: a\ndescription: d\nmetadata:\n  enabled: 1\n",
            (
                5,
                "import_not_bool",
                "metadata.enabled must be true or false, not 1",
                {"key": "metadata.enabled", "value": 1},
            ),
        ),
        (
            "a: 1\n",
            (
                2,
                "front_matter_not_mapping",
                "the front matter must be a mapping of keys (name, description, …), not a list",
                {"kind": ("kind_list", "a list", {})},
            ),
        ),
    ],
)
def test_each_skill_md_refusal_has_its_code_sentence_and_line(front, expected):
    """Each refusal of a SKILL.md: its code, sentence, parameters and line of the file."""
    if front == "a: 1\n":
        front = "- a\n"
    line, code, sentence, params = expected
    assert md_errors(front) == [("s/SKILL.md", line, (code, sentence, params))]


@pytest.mark.parametrize(
    ("front", "line", "cause"),
    [
        ("name: a\ndescription: 2024-13-45\n", 3, "cannot read this date (month must be in 1..12)"),
        (
            "name: a\ndescription: d\nmetadata:\n  sort-order: " + "9" * 5000 + "\n",
            5,
            "cannot read this number (Exceeds the limit (4300 digits) for integer string conversion: value has 5000 "
            "digits; use sys.set_int_max_str_digits() to increase the limit)",
        ),
        ("name: a\ndescription: " + "[" * 5000 + "]" * 5000 + "\n", 2, "nested too deeply"),
        ('name: a\n\ndescription: "a\x07"\n', 4, "unacceptable character #x0007: special characters are not allowed"),
        (
            "name: a\ndescription: x\nname: [\n",
            5,
            "expected the node content, but found '<stream end>' (while parsing a flow node)",
        ),
        (
            "name: [a,\n\n  b\ndescription: x\n",
            5,
            "expected ',' or ']', but got ':' (while parsing a flow sequence that starts on line 2)",
        ),
    ],
)
def test_front_matter_yaml_that_cannot_be_read_is_refused_at_its_line_never_a_crash(front, line, cause):
    """YAML that PyYAML refuses, or whose values Python cannot make (a date that does not exist, an
    integer of more digits than Python reads, nesting deeper than the stack): a refusal at the
    line, never an exception out of the parser."""
    assert md_errors(front) == [
        ("s/SKILL.md", line, ("front_matter_yaml", f"invalid YAML front matter: {cause}", {"cause": cause}))
    ]


def test_front_matter_missing_or_unclosed_is_refused_at_line_one_with_its_code():
    """No first line ``---``, or no closing one: refused at line 1 with its code."""
    for data, code, sentence in [
        (b"name: a\n", "front_matter_missing", "SKILL.md must start with YAML front matter: a first line '---'"),
        (
            b"---\nname: a\n-- \n",
            "front_matter_unclosed",
            "the front matter opened on line 1 is never closed by a line '---'",
        ),
    ]:
        parsed = parse_skill_md("SKILL.md", data)
        assert (parsed.source, parsed.declaration, parsed.warnings) == ("SKILL.md", None, ())
        assert [(e.source, e.line, pin(e.cause)) for e in parsed.errors] == [("SKILL.md", 1, (code, sentence, {}))]


def test_a_folder_that_differs_from_the_name_says_where_the_code_is_taken_from():
    """The folder differs from ``name``: a warning at ``name``'s line saying the code comes from
    ``metadata.skill-code`` when it is set, else from ``name``; none when they agree."""
    parsed = parse_skill_md("x/orders/SKILL.md", md("description: d\nname: order-change\nmetadata:\n  skill-code: o\n"))
    assert parsed.declaration.skill_code == "o"
    assert [(w.source, w.line, pin(w.cause)) for w in parsed.warnings] == [
        (
            "x/orders/SKILL.md",
            3,
            (
                "folder_not_name",
                "the folder is 'orders' but name is 'order-change' (Agent Skills expects them equal); "
                "the skill code is taken from metadata.skill-code",
                {"folder": "orders", "name": "order-change", "taken": "metadata.skill-code"},
            ),
        )
    ]
    parsed = parse_skill_md("orders/SKILL.md", md("name: order-change\ndescription: d\nmetadata:\n  enabled: true\n"))
    assert [pin(w.cause)[2]["taken"] for w in parsed.warnings] == ["name"]
    assert parse_skill_md("a/SKILL.md", md("name: a\ndescription: d\n")).warnings == ()


def test_a_yaml_error_without_a_mark_or_a_problem_still_reads_as_a_refusal():
    """``_yaml_problem`` of an error with only a context mark takes its line; of one with no mark
    gives no line; of one with no problem text reads its message."""
    from yaml.error import Mark, MarkedYAMLError, YAMLError

    from skill_rule.skill_files import _yaml_problem

    at_3 = Mark("f", 0, 3, 0, None, None)
    p = _yaml_problem(MarkedYAMLError("while reading", at_3, "it broke", None), "")
    assert (p.line, str(p.cause)) == (5, "invalid YAML front matter: it broke (while reading)")
    p = _yaml_problem(YAMLError("boom"), "")
    assert (p.line, pin(p.cause)) == (None, ("front_matter_yaml", "invalid YAML front matter: boom", {"cause": "boom"}))


# ---- a dataset -----------------------------------------------------------------------------------
def test_is_skill_file_knows_declarations_in_any_case_and_skill_md_exactly():
    """``*.properties`` in any case and a file named exactly ``SKILL.md`` are skill files."""
    assert [
        is_skill_file(p)
        for p in (
            "a.properties",
            "b/A.PROPERTIES",
            "b/SKILL.md",
            "SKILL.md",
            "skill.md",
            "b/SKILL.md.bak",
            "properties",
            "m.md",
        )
    ] == [True, True, True, True, False, False, False, False]


def test_a_dataset_lists_refused_and_ignored_files_in_path_order_and_hides_the_manuals_it_reads():
    """A refused skill file is an error with its cause (no line); a refused manual a declaration
    names is not listed (the declaration says why); any other file is ignored with its cause."""
    big = Problem("import_file_too_big", FILE_TOO_BIG_TEMPLATE, {"size": 9, "max": 1})
    dataset = Dataset(
        "t",
        {
            "A.PROPERTIES": (HEAD + "content-file=m/big.md\n").encode(),
            "c.properties": (HEAD.replace("=a", "=c") + "content-file=m/c.md\n").encode(),
            "m/c.md": b"# c\n",
            "x.sh": b"echo",
        },
        refused={"b/SKILL.md": big, "m/big.md": big, "z.bin": big, "d.properties": big},
    )
    parsed = parse_dataset(dataset)
    assert [p.source for p in parsed] == ["A.PROPERTIES", "b/SKILL.md", "c.properties", "d.properties", "x.sh", "z.bin"]
    by = {p.source: p for p in parsed}
    assert [str(e) for e in by["A.PROPERTIES"].errors] == [
        "A.PROPERTIES:4: content-file 'm/big.md': 9 bytes; at most 1 bytes per file"
    ]
    assert by["b/SKILL.md"] == ParsedFile("b/SKILL.md", errors=(FileIssue("b/SKILL.md", None, big),))
    assert by["d.properties"] == ParsedFile("d.properties", errors=(FileIssue("d.properties", None, big),))
    assert by["c.properties"].declaration.content == "# c\n"
    assert by["z.bin"] == ParsedFile("z.bin", ignored=big)
    assert by["x.sh"].declaration is None and by["x.sh"].errors == ()
    assert pin(by["x.sh"].ignored) == (
        "not_a_skill_file",
        "not a skill file (*.properties or SKILL.md) nor a manual that a declaration names; not imported",
        {},
    )


def test_a_code_declared_by_three_files_refuses_each_naming_the_others_and_keeps_their_warnings():
    """Every file declaring a code another declares is refused at its code's line, naming the
    others in path order; its warnings stay; the other files are untouched."""
    dataset = Dataset(
        "t",
        {
            "a.properties": (HEAD + "content-file=m.md\nauthor=x\n").encode(),
            "m.md": b"",
            "b/SKILL.md": md("description: d\nname: b\nmetadata:\n  skill-code: a\n"),
            "c/SKILL.md": md("name: a\ndescription: d\n"),
            "d/SKILL.md": md("name: d\ndescription: d\n"),
        },
    )
    parsed = {p.source: p for p in parse_dataset(dataset)}
    assert [(e.source, e.line, pin(e.cause)) for e in parsed["b/SKILL.md"].errors] == [
        (
            "b/SKILL.md",
            5,
            (
                "code_declared_twice",
                "skill code 'a' is also declared by a.properties, c/SKILL.md; nothing of either is imported",
                {"code": "a", "others": "a.properties, c/SKILL.md"},
            ),
        )
    ]
    assert [str(e) for e in parsed["a.properties"].errors] == [
        "a.properties:1: skill code 'a' is also declared by b/SKILL.md, c/SKILL.md; nothing of either is imported"
    ]
    assert [str(e) for e in parsed["c/SKILL.md"].errors] == [
        "c/SKILL.md:2: skill code 'a' is also declared by a.properties, b/SKILL.md; nothing of either is imported"
    ]
    assert [w.line for w in parsed["a.properties"].warnings] == [5]
    assert parsed["a.properties"].declaration is None and parsed["b/SKILL.md"].declaration is None
    assert parsed["d/SKILL.md"].declaration.skill_code == "d"
    assert list(parsed) == ["a.properties", "b/SKILL.md", "c/SKILL.md", "d/SKILL.md"]


# ---- writing -------------------------------------------------------------------------------------
def test_a_declaration_file_is_written_exactly():
    """The exported ``.properties``: a comment line, then every key in order, ``tool-ids`` only when
    the skill gates tools; its manual beside it under ``manuals/``."""
    files = export_files(
        [
            Skill("a_b", "名 A", "d: x", "# m\n", ("t1", "t2"), sort_order=-2, enabled=False),
            Skill("c", "C", "d", "x", (), sort_order=0),
        ],
        format="properties",
    )
    assert files == {
        "a_b.properties": "# Skill Console declaration (docs/import-export.md)\nskill-code=a_b\nname=名 A\n"
        "description=d\\: x\ncontent-file=manuals/a_b.md\ntool-ids=t1,t2\nsort-order=-2\n"
        "enabled=false\n".encode(),
        "manuals/a_b.md": b"# m\n",
        "c.properties": b"# Skill Console declaration (docs/import-export.md)\nskill-code=c\nname=C\ndescription=d\n"
        b"content-file=manuals/c.md\nsort-order=0\nenabled=true\n",
        "manuals/c.md": b"x",
    }


def test_a_skill_md_is_written_exactly():
    """The exported SKILL.md: front matter with ``name``, ``description``, ``allowed-tools`` only when
    the skill gates tools, and ``metadata`` with the exact code, name, order and state as text."""
    files = export_files(
        [
            Skill("a_b", "名 A", "d: x", "# m\n", ("t1", "t2"), sort_order=-2, enabled=False),
            Skill("c", "C", "d", "x", (), sort_order=0),
        ],
        format="skill-md",
    )
    assert files == {
        "a-b/SKILL.md": "---\nname: a-b\ndescription: 'd: x'\nallowed-tools: t1 t2\nmetadata:\n  skill-code: a_b\n"
        "  display-name: 名 A\n  sort-order: '-2'\n  enabled: 'false'\n---\n\n# m\n".encode(),
        "c/SKILL.md": b"---\nname: c\ndescription: d\nmetadata:\n  skill-code: c\n  display-name: C\n"
        b"  sort-order: '0'\n  enabled: 'true'\n---\n\nx",
    }
    assert agent_skill_name("a_b_c") == "a-b-c"
    long = "word " * 40 + "end"
    text = export_files([Skill("c", "C", long, "x", ())], format="skill-md")["c/SKILL.md"].decode()
    assert f"\ndescription: {long}\n" in text  # one line, however long


def test_an_unknown_export_format_is_refused_naming_the_formats():
    """Only ``properties`` and ``skill-md`` are written."""
    with pytest.raises(ValueError) as info:
        export_files([], format="json")
    assert str(info.value) == "unknown format 'json'; formats: properties, skill-md"


def test_a_zip_of_files_is_deflated_dated_and_readable_under_an_optional_folder():
    """``zip_files``: every entry under ``folder/`` when given, deflated, dated 2026-01-01 00:00:00,
    mode 0644."""
    for folder, prefix in (("", ""), ("skills", "skills/")):
        data = zip_files({"b.md": b"b" * 100, "a/SKILL.md": b"a"}, **({"folder": folder} if folder else {}))
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            assert [(i.filename, i.date_time, i.external_attr, i.compress_type) for i in infos] == [
                (f"{prefix}{name}", (2026, 1, 1, 0, 0, 0), 0o644 << 16, zipfile.ZIP_DEFLATED)
                for name in ("a/SKILL.md", "b.md")
            ]
            assert z.read(f"{prefix}b.md") == b"b" * 100
