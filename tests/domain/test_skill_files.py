"""Library tests of skill-file parsing and writing (docs/import-export.md): no database. Each rule
with its exact message, naming the file and the line."""

from __future__ import annotations

import io
import os
import zipfile

import pytest

from skill_rule import Skill
from skill_rule.limits import IMPORT_MAX_FILE_BYTES, IMPORT_MAX_FILES, IMPORT_MAX_TOTAL_BYTES
from skill_rule.skill_files import (
    Dataset,
    SkillFileError,
    export_files,
    parse_dataset,
    parse_properties,
    parse_skill_md,
    read_files,
    read_folder,
    read_path,
    read_zip,
    zip_files,
)

SRC = "order-change/SKILL.md"


def md(front: str, body: str = "\n# 手册\n正文\n") -> bytes:
    return f"---\n{front}---\n{body}".encode()


def ok_md(data: bytes, source: str = SRC):
    parsed = parse_skill_md(source, data)
    assert parsed.errors == (), [str(e) for e in parsed.errors]
    return parsed.declaration, [str(w) for w in parsed.warnings]


def errors_md(data: bytes, source: str = SRC) -> list[str]:
    parsed = parse_skill_md(source, data)
    assert parsed.declaration is None
    return [str(e) for e in parsed.errors]


# ---- SKILL.md: every YAML string form parses ----------------------------------------------------
@pytest.mark.parametrize(
    ("front", "description"),
    [
        ("description: 取消订单或修改地址\n", "取消订单或修改地址"),
        ('description: "先查订单: 再取消"\n', "先查订单: 再取消"),
        ("description: '它''s a quote: yes'\n", "它's a quote: yes"),
        ("description: >\n  folded over\n  two lines\n", "folded over two lines\n"),
        ("description: >-\n  folded\n  strip\n", "folded strip"),
        ("description: |\n  literal one line\n", "literal one line\n"),
        ("description: plain text\n  continued on the next line\n", "plain text continued on the next line"),
        ('description: "double quoted\n  continuation"\n', "double quoted continuation"),
    ],
)
def test_every_yaml_string_form_parses(front, description):
    decl, _ = ok_md(md(f"name: order-change\n{front}"))
    assert decl.description == description


def test_a_skill_md_gives_code_name_tools_and_manual():
    decl, warnings = ok_md(
        md(
            "name: order-change\ndescription: 取消\nallowed-tools: cancel_order change_address\n"
            "metadata:\n  skill-code: order_change\n  display-name: 订单修改\n"
            "  sort-order: '20'\n  enabled: 'false'\n"
        )
    )
    assert (decl.skill_code, decl.name, decl.tool_ids, decl.sort_order, decl.enabled) == (
        "order_change",
        "订单修改",
        ("cancel_order", "change_address"),
        20,
        False,
    )
    assert decl.content == "# 手册\n正文\n"  # the one blank line after the front matter is not the manual's
    assert warnings == []
    assert decl.where("tool_ids") == (SRC, 4) and decl.where("skill_code") == (SRC, 6)
    assert decl.where("content") == (SRC, 12)


def test_without_metadata_the_code_and_the_name_are_the_front_matter_name():
    decl, _ = ok_md(md("name: order-change\ndescription: x\n"))
    assert (decl.skill_code, decl.name, decl.tool_ids, decl.sort_order, decl.enabled) == (
        "order-change",
        "order-change",
        (),
        None,
        None,
    )


@pytest.mark.parametrize("tools", ["a b", "a, b", "a,b", "[a, b]", "\n  - a\n  - b"])
def test_allowed_tools_as_spaces_commas_or_a_list(tools):
    decl, _ = ok_md(md(f"name: order-change\ndescription: x\nallowed-tools: {tools}\n"))
    assert decl.tool_ids == ("a", "b")


def test_a_bom_and_crlf_are_accepted():
    decl, _ = ok_md(b"\xef\xbb\xbf" + md("name: order-change\ndescription: x\n", "\n# t\n").replace(b"\n", b"\r\n"))
    assert (decl.skill_code, decl.description, decl.content) == ("order-change", "x", "# t\n")


# ---- SKILL.md: refusals with file, line and cause ------------------------------------------------
@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            md("name: order-change\ndescription: 先查订单: 再取消\n"),
            f"{SRC}:3: invalid YAML front matter: mapping values are not allowed here",
        ),
        (
            md("name: [order-change\ndescription: x\n"),
            f"{SRC}:3: invalid YAML front matter: expected ',' or ']', but got ':' "
            "(while parsing a flow sequence that starts on line 2)",
        ),
        (
            md("name: x\n\tdescription: y\n"),
            f"{SRC}:3: invalid YAML front matter: found character '\\t' that cannot start any token "
            "(while scanning for the next token)",
        ),
        (md("name: a\ndescription: x\nname: b\n"), f"{SRC}:4: key 'name' is set twice (first on line 2)"),
        (b"# no front matter\n", f"{SRC}:1: SKILL.md must start with YAML front matter: a first line '---'"),
        (
            b"---\nname: a\ndescription: b\n# body",
            f"{SRC}:1: the front matter opened on line 1 is never closed by a line '---'",
        ),
        (md("- a\n- b\n"), f"{SRC}:2: the front matter must be a mapping of keys (name, description, …), not a list"),
        (md(""), f"{SRC}:2: the front matter must be a mapping of keys (name, description, …), not nothing"),
        (md("name: a\n"), f"{SRC}: missing key 'description'"),
        (md("name: 2024\ndescription: x\n"), f"{SRC}:2: name must be text, not a number (2024); put it in quotes"),
        (
            md("name: a\ndescription: yes\n"),
            f"{SRC}:3: description must be text, not a boolean (true); put it in quotes",
        ),
        (md("name: a\ndescription: x\nmetadata: [1]\n"), f"{SRC}:4: metadata must be a mapping of keys, not a list"),
        (
            md("name: a\ndescription: x\nmetadata:\n  sort-order: ten\n"),
            f"{SRC}:5: metadata.sort-order must be a whole number, not 'ten'",
        ),
        (
            md("name: a\ndescription: x\nmetadata:\n  enabled: maybe\n"),
            f"{SRC}:5: metadata.enabled must be true or false, not 'maybe'",
        ),
        (b"---\nname: a\ndescription: \xff\n---\n", f"{SRC}:3: not UTF-8 text (byte 0xff)"),
    ],
)
def test_a_broken_skill_md_is_refused_naming_file_line_and_cause(data, expected):
    assert errors_md(data) == [expected]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("''", "allowed-tools is empty; leave the key out for a manual that gates no tool"),
        ("", "allowed-tools is empty; leave the key out for a manual that gates no tool"),
        ("[]", "allowed-tools is empty; leave the key out for a manual that gates no tool"),
        ("' , '", "allowed-tools is empty; leave the key out for a manual that gates no tool"),
        ("5", "allowed-tools must be tool names separated by spaces (or a list), not a number (5)"),
        ("true", "allowed-tools must be tool names separated by spaces (or a list), not a boolean (true)"),
        ("{a: b}", "allowed-tools must be tool names separated by spaces (or a list), not a mapping"),
        ("[a, 3]", "allowed-tools item 2 must be a tool name, not a number (3)"),
        ("[a, '']", "allowed-tools item 2 must be a tool name, not an empty string"),
        ("[a, [b]]", "allowed-tools item 2 must be a tool name, not a list"),
    ],
)
def test_a_bad_allowed_tools_never_reads_as_no_restriction(value, expected):
    assert errors_md(md(f"name: order-change\ndescription: x\nallowed-tools: {value}\n")) == [f"{SRC}:4: {expected}"]


@pytest.mark.parametrize("key", ["allowed_tools", "allowedTools", "tools", "tool-ids", "allowed-tool"])
def test_a_misspelt_tool_key_is_an_error_not_a_skill_without_tools(key):
    assert errors_md(md(f"name: order-change\ndescription: x\n{key}: cancel_order\n")) == [
        f"{SRC}:4: unknown key '{key}'; the gated tools are read from 'allowed-tools' only (the skill would gate no tool)"
    ]


def test_unknown_keys_are_reported_not_dropped():
    decl, warnings = ok_md(
        md(
            "name: order-change\ndescription: x\nlicense: MIT\nmodel: opus\n"
            "metadata:\n  author: ops\n  skill-code: order_change\n"
        )
    )
    assert decl.skill_code == "order_change"
    assert warnings == [
        f"{SRC}:4: 'license' is an Agent Skills key that Skill Console does not keep; not imported",
        f"{SRC}:5: unknown key 'model' is not imported (keys read: name, description, allowed-tools, metadata)",
        f"{SRC}:7: unknown key 'metadata.author' is not imported "
        "(keys read: metadata.skill-code, metadata.display-name, metadata.sort-order, metadata.enabled)",
    ]


def test_a_folder_that_differs_from_the_name_is_reported():
    _, warnings = ok_md(md("name: order-change\ndescription: x\n"), source="orders/SKILL.md")
    assert warnings == [
        "orders/SKILL.md:2: the folder is 'orders' but name is 'order-change' "
        "(Agent Skills expects them equal); the skill code is taken from name"
    ]


# ---- .properties ---------------------------------------------------------------------------------
GOOD_PROPERTIES = """# 订单修改
! Ragent declaration
skill-code = order_change
name: 订单修改
description=取消订单: 或修改\\
    收货地址
content-file=manuals/order_change.md
tool-ids=cancel_order, change_address
sort-order=20
enabled=false
"""


def props(text: str, files: dict[str, bytes] | None = None, source: str = "order_change.properties"):
    dataset = Dataset("t", {"manuals/order_change.md": "# 手册\n".encode(), **(files or {})})
    return parse_properties(source, text.encode("utf-8"), dataset)


def test_a_declaration_file_gives_every_field():
    parsed = props(GOOD_PROPERTIES)
    assert parsed.errors == () and parsed.warnings == ()
    d = parsed.declaration
    assert (d.skill_code, d.name, d.description, d.content, d.tool_ids, d.sort_order, d.enabled) == (
        "order_change",
        "订单修改",
        "取消订单: 或修改收货地址",
        "# 手册\n",
        ("cancel_order", "change_address"),
        20,
        False,
    )
    assert d.where("tool_ids") == ("order_change.properties", 8)
    assert d.where("content") == ("manuals/order_change.md", 1)


def test_the_manual_is_read_relative_to_the_declaration_and_a_bom_is_dropped():
    parsed = props(
        GOOD_PROPERTIES.replace("manuals/order_change.md", "m.md"),
        files={"sub/m.md": b"\xef\xbb\xbf# m\r\n"},
        source="sub/a.properties",
    )
    assert parsed.declaration.content == "# m\n"


def test_unknown_keys_in_a_declaration_are_warnings():
    parsed = props(GOOD_PROPERTIES + "author=ops\n")
    assert [str(w) for w in parsed.warnings] == [
        "order_change.properties:11: unknown key 'author' is not imported "
        "(keys read: skill-code, name, description, content-file, tool-ids, sort-order, enabled)"
    ]


BASE = "skill-code=a\nname=A\ndescription=d\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            BASE + "content-file=../secret.md\n",
            ["P:4: content-file '../secret.md' may not contain '..'; the manual must be inside the dataset folder"],
        ),
        (
            BASE + "content-file=manuals/../../x.md\n",
            [
                "P:4: content-file 'manuals/../../x.md' may not contain '..'; the manual must be inside the dataset folder"
            ],
        ),
        (
            BASE + "content-file=/etc/passwd\n",
            ["P:4: content-file '/etc/passwd' must be a relative path with '/' separators"],
        ),
        (BASE + "content-file=C:/x.md\n", ["P:4: content-file 'C:/x.md' must be a relative path with '/' separators"]),
        (
            BASE + "content-file=manuals\\\\a.md\n",
            ["P:4: content-file 'manuals\\a.md' must be a relative path with '/' separators"],
        ),
        (
            BASE + "content-file=nothere.md\n",
            ["P:4: content-file 'nothere.md' is not in the dataset (looked for 'nothere.md')"],
        ),
        (BASE + "content-file=\n", ["P:4: content-file is empty; name the markdown manual next to this file"]),
        (
            BASE + "content-file=link.md\n",
            ["P:4: content-file 'link.md': a symbolic link that points out of the dataset folder; not read"],
        ),
        (BASE + "content-file=bad.md\n", ["bad.md:2: not UTF-8 text (byte 0xfe)"]),
        ("name=A\ndescription=d\n", ["P: missing key 'skill-code'", "P: missing key 'content-file'"]),
        (BASE + "name=B\ncontent-file=m.md\n", ["P:4: key 'name' is set twice (first on line 2)"]),
        (
            BASE + "content-file=m.md\ntool-ids=\n",
            ["P:5: tool-ids is empty; leave the key out for a manual that gates no tool"],
        ),
        (
            BASE + "content-file=m.md\ntool-ids= , ,\n",
            ["P:5: tool-ids is empty; leave the key out for a manual that gates no tool"],
        ),
        (
            BASE + "content-file=m.md\ntool_ids=cancel_order\n",
            [
                "P:5: unknown key 'tool_ids'; the gated tools are read from 'tool-ids' only (the skill would gate no tool)"
            ],
        ),
        (
            BASE + "content-file=m.md\nenabled=yes\nsort-order=1.5\n",
            ["P:5: enabled must be true or false, not 'yes'", "P:6: sort-order must be a whole number, not '1.5'"],
        ),
        (BASE + "content-file=m.md\nx=\\u12\n", ["P:5: invalid \\u escape '\\u12'"]),
        ("skill-code=a\n\xff\n".encode("latin-1").decode("latin-1"), None),  # replaced below with raw bytes
    ],
)
def test_a_broken_declaration_is_refused_naming_file_line_and_cause(text, expected):
    if expected is None:
        parsed = parse_properties("P", b"skill-code=a\n\xff\n", Dataset("t", {}))
        assert [str(e) for e in parsed.errors] == ["P:2: not UTF-8 text (byte 0xff)"]
        return
    dataset = Dataset(
        "t",
        {"m.md": b"# m\n", "bad.md": b"ok\n\xfe\n"},
        refused={"link.md": "a symbolic link that points out of the dataset folder; not read"},
    )
    parsed = parse_properties("P", text.encode("utf-8"), dataset)
    assert parsed.declaration is None
    assert [str(e) for e in parsed.errors] == expected


# ---- a dataset -----------------------------------------------------------------------------------
def test_a_dataset_lists_every_file_and_refuses_a_code_declared_twice():
    dataset = Dataset(
        "t",
        {
            "a.properties": (BASE + "content-file=m/a.md\n").encode(),
            "m/a.md": b"# a\n",
            "a/SKILL.md": md("name: a\ndescription: d\n"),
            "b/SKILL.md": md("name: b\ndescription: d\n"),
            "b/scripts/run.sh": b"echo",
        },
    )
    parsed = {p.source: p for p in parse_dataset(dataset)}
    assert list(parsed) == ["a.properties", "a/SKILL.md", "b/SKILL.md", "b/scripts/run.sh"]
    assert [str(e) for e in parsed["a.properties"].errors] == [
        "a.properties:1: skill code 'a' is also declared by a/SKILL.md; nothing of either is imported"
    ]
    assert [str(e) for e in parsed["a/SKILL.md"].errors] == [
        "a/SKILL.md:2: skill code 'a' is also declared by a.properties; nothing of either is imported"
    ]
    assert parsed["b/SKILL.md"].declaration.skill_code == "b"
    assert parsed["b/scripts/run.sh"].ignored == (
        "not a skill file (*.properties or SKILL.md) nor a manual that a declaration names; not imported"
    )


# ---- reading folders and zips safely --------------------------------------------------------------
def zip_of(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        (
            "../evil.properties",
            "entry '../evil.properties' has an unsafe path (absolute, '..' or '\\'); the archive is refused",
        ),
        ("/abs/SKILL.md", "entry '/abs/SKILL.md' has an unsafe path (absolute, '..' or '\\'); the archive is refused"),
        ("a/../../x.md", "entry 'a/../../x.md' has an unsafe path (absolute, '..' or '\\'); the archive is refused"),
        ("a\\..\\x.md", "entry 'a\\..\\x.md' has an unsafe path (absolute, '..' or '\\'); the archive is refused"),
    ],
)
def test_a_zip_with_a_path_out_of_the_folder_is_refused(name, cause):
    with pytest.raises(SkillFileError) as info:
        read_zip(zip_of({"ok/SKILL.md": b"x", name: b"x"}), label="up.zip")
    assert str(info.value) == f"up.zip: {cause}"


def test_a_zip_symlink_entry_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        info = zipfile.ZipInfo("a/manual.md")
        info.external_attr = 0o120777 << 16
        z.writestr(info, "/etc/passwd")
    with pytest.raises(SkillFileError) as err:
        read_zip(buffer.getvalue(), label="up.zip")
    assert str(err.value) == "up.zip: entry 'a/manual.md' is a symbolic link; the archive is refused"


def test_zip_limits_count_and_size():
    with pytest.raises(SkillFileError) as err:
        read_zip(zip_of({f"f{i}.md": b"" for i in range(IMPORT_MAX_FILES + 1)}), label="up.zip")
    assert str(err.value) == f"up.zip: holds more than {IMPORT_MAX_FILES} files; import it in parts"
    big = zip_of({"big.md": b"a" * (IMPORT_MAX_FILE_BYTES + 1), "ok.md": b"fine"})
    dataset = read_zip(big, label="up.zip")
    assert dataset.files == {"ok.md": b"fine"}
    assert dataset.refused == {
        "big.md": f"{IMPORT_MAX_FILE_BYTES + 1} bytes; at most {IMPORT_MAX_FILE_BYTES} bytes per file"
    }
    many = zip_of(
        {f"m{i}.md": b"a" * IMPORT_MAX_FILE_BYTES for i in range(IMPORT_MAX_TOTAL_BYTES // IMPORT_MAX_FILE_BYTES + 1)}
    )
    with pytest.raises(SkillFileError) as err:
        read_zip(many, label="up.zip")
    assert str(err.value) == f"up.zip: unpacks to more than {IMPORT_MAX_TOTAL_BYTES} bytes; import it in parts"


def test_a_zip_whose_header_lies_about_the_size_is_still_capped():
    data = bytearray(zip_of({"bomb.md": b"a" * (IMPORT_MAX_FILE_BYTES + 10)}))
    # claim a tiny uncompressed size in the central directory; reading stops at the limit anyway
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.infolist()[0]
    assert info.file_size == IMPORT_MAX_FILE_BYTES + 10
    dataset = read_zip(bytes(data), label="up.zip")
    assert "bomb.md" in dataset.refused and dataset.files == {}


def test_not_a_zip():
    with pytest.raises(SkillFileError) as err:
        read_zip(b"plain text", label="up.zip")
    assert str(err.value) == "up.zip: is not a readable zip archive (File is not a zip file)"


def test_a_folder_symlink_out_of_the_dataset_is_never_read(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    root = tmp_path / "set"
    root.mkdir()
    (root / "a.properties").write_text(BASE + "content-file=link.md\n")
    os.symlink(outside, root / "link.md")
    (root / "inside.md").write_text("# ok\n")
    os.symlink(root / "inside.md", root / "alias.md")
    dataset = read_folder(root)
    assert "link.md" not in dataset.files and dataset.files["alias.md"] == b"# ok\n"
    [parsed] = [p for p in parse_dataset(dataset) if p.source == "a.properties"]
    assert [str(e) for e in parsed.errors] == [
        "a.properties:4: content-file 'link.md': a symbolic link that points out of the dataset folder; not read"
    ]


def test_single_files_keep_their_base_names_and_may_not_collide():
    dataset = read_files([("x/SKILL.md", b"a"), ("m.md", b"b")])
    assert sorted(dataset.files) == ["SKILL.md", "m.md"]
    with pytest.raises(SkillFileError) as err:
        read_files([("a/SKILL.md", b"a"), ("b/SKILL.md", b"b")], label="upload")
    assert str(err.value) == "upload: two files are named 'SKILL.md'; upload a folder as a zip instead"


def test_read_path_of_something_missing(tmp_path):
    with pytest.raises(SkillFileError) as err:
        read_path(tmp_path / "nope")
    assert str(err.value) == f"{tmp_path / 'nope'}: no such file or folder"


# ---- writing reads back as the same records ------------------------------------------------------
ODD = (
    Skill(
        "order_change",
        "订单修改 #1: a=b",
        "描述: 带冒号 'quotes' \"double\" # hash ! bang",
        "# 手册\n\n  indented\n",
        ("cancel_order", "change_address"),
        sort_order=-3,
        enabled=False,
    ),
    Skill("order-change", " leading space", "yes", "no trailing newline", (), sort_order=0),
    Skill("x9", "true", "null", "\n\nstarts with blank lines\\u0041 \\ backslash\n", ("a",), sort_order=7),
    Skill("bom", "\ufeffname", "d", "\ufeff# starts with a BOM\n", ()),
)


@pytest.mark.parametrize("fmt", ["properties", "skill-md"])
def test_export_then_parse_gives_the_same_records(fmt):
    files = export_files(ODD, format=fmt)
    parsed = parse_dataset(read_zip(zip_files(files), label="e.zip"))
    assert all(p.errors == () and p.warnings == () and p.ignored is None for p in parsed), [
        (p.source, [str(e) for e in p.errors], [str(w) for w in p.warnings], p.ignored) for p in parsed
    ]
    got = {p.declaration.skill_code: p.declaration for p in parsed}
    for s in ODD:
        d = got[s.code]
        assert (d.name, d.description, d.content, d.tool_ids, d.sort_order, d.enabled) == (
            s.name,
            s.description,
            s.content,
            s.tool_ids,
            s.sort_order,
            s.enabled,
        )


def test_skill_md_folders_use_the_agent_skills_name_unless_two_codes_meet():
    files = export_files(ODD, format="skill-md")
    assert sorted(files) == ["bom/SKILL.md", "order-change/SKILL.md", "order_change/SKILL.md", "x9/SKILL.md"]
    files = export_files(ODD[:1], format="skill-md")
    assert sorted(files) == ["order-change/SKILL.md"]
    assert files["order-change/SKILL.md"].decode().startswith("---\nname: order-change\n")


def test_zip_files_is_deterministic():
    files = export_files(ODD, format="properties")
    assert zip_files(files) == zip_files(dict(reversed(list(files.items()))))


# ---- any record survives the round trip (hypothesis) ----------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from skill_rule.limits import LINE_BREAKS, SKILL_CODE_PATTERN  # noqa: E402

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_one_line = _text.map(lambda t: "".join(ch for ch in t if ch not in LINE_BREAKS).strip()).filter(bool)
_manual = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), min_size=1, max_size=200)
_tool = st.from_regex(r"\A[a-z][a-z0-9_]{0,20}\Z")
_skill = st.builds(
    Skill,
    code=st.from_regex(SKILL_CODE_PATTERN).filter(lambda c: 2 <= len(c) <= 64),
    name=_one_line,
    description=_one_line,
    content=_manual,
    tool_ids=st.lists(_tool, max_size=4, unique=True).map(tuple),
    sort_order=st.integers(-1000, 1000),
    enabled=st.booleans(),
)


@pytest.mark.parametrize("fmt", ["properties", "skill-md"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(skills=st.lists(_skill, min_size=1, max_size=3, unique_by=lambda s: s.code))
def test_any_record_survives_export_then_parse(fmt, skills):
    files = export_files(skills, format=fmt)
    parsed = parse_dataset(Dataset("t", files))
    assert [(p.source, [str(e) for e in p.errors]) for p in parsed if p.errors] == []
    got = {p.declaration.skill_code: p.declaration for p in parsed}
    for s in skills:
        d = got[s.code]
        assert (d.name, d.description, d.content, d.tool_ids, d.sort_order, d.enabled) == (
            s.name,
            s.description,
            s.content,
            s.tool_ids,
            s.sort_order,
            s.enabled,
        )


# ---- single files of an export (issue 29 item 1) ----------------------------------------------
def test_an_exported_declaration_and_its_manual_read_back_as_two_single_files():
    """The export names ``content-file=manuals/<code>.md``; uploaded as two single files (no
    folders) the manual is found by its base name, and not listed as an ignored file."""
    skill = Skill(code="price_protect", name="价保", description="价保申请", content="# 价保\n", tool_ids=())
    files = export_files([skill], format="properties")
    assert sorted(files) == ["manuals/price_protect.md", "price_protect.properties"]
    parsed = parse_dataset(read_files(sorted(files.items())))
    assert [(p.source, p.errors, p.ignored) for p in parsed] == [("price_protect.properties", (), None)]
    d = parsed[0].declaration
    assert (d.skill_code, d.content, d.where("content")) == ("price_protect", "# 价保\n", ("price_protect.md", 1))


def test_a_folder_or_zip_still_needs_the_manual_where_the_declaration_names_it():
    """Only a flat upload resolves by base name: in a zip the path is exact, so a manual beside the
    declaration instead of in ``manuals/`` is missing, naming the path looked for."""
    files = {"set/a.properties": b"skill-code=a\nname=A\ndescription=d\ncontent-file=manuals/a.md\n", "set/a.md": b"m"}
    parsed = parse_dataset(read_zip(zip_files(files)))
    assert [str(e) for p in parsed for e in p.errors] == [
        "set/a.properties:4: content-file 'manuals/a.md' is not in the dataset (looked for 'set/manuals/a.md')"
    ]
    flat = parse_dataset(read_files([("a.properties", files["set/a.properties"])]))
    assert [str(e) for p in flat for e in p.errors] == [
        "a.properties:4: content-file 'manuals/a.md' is not in the dataset (looked for 'a.md')"
    ]
