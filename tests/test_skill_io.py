"""Import and export of skills through the real services and commands (docs/import-export.md):
round trips on the bitmall demo, all or nothing, --partial, --dry-run, refusals naming file and line."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from skill_rule.skill_files import read_path, read_zip
from skills_app.io.services import skills_export, skills_import
from skills_app.models import Skill

RECORD = ("skill_code", "name", "description", "content", "tool_ids", "sort_order", "enabled")


def records() -> dict[str, tuple]:
    return {s.skill_code: tuple(getattr(s, f) for f in RECORD) for s in Skill.objects.live()}


def versions() -> dict[str, int]:
    return dict(Skill.objects.live().values_list("skill_code", "version"))


def run(*args: str) -> tuple[str, str, BaseException | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), exc
    return out.getvalue(), err.getvalue(), None


@pytest.fixture
def odd_bitmall(bitmall):
    """The demo plus a disabled skill with a tricky name and description, and a sort order < 0."""
    skill = Skill.objects.get(skill_code="iot_bundle")
    skill.name, skill.description, skill.enabled, skill.sort_order = (
        "IoT: 套装 #1",
        "a: b # c ! d = e 'q' \"dq\"",
        False,
        -5,
    )
    skill.save()
    return bitmall


@pytest.mark.parametrize("fmt", ["properties", "skill-md"])
def test_export_then_import_gives_identical_records(odd_bitmall, tmp_path, fmt):
    before = records()
    assert len(before) == 5
    out, _, exc = run("export_skills", str(tmp_path / "out"), "--format", fmt)
    assert exc is None and out == f"exported 5 skill(s) as {fmt} to {tmp_path / 'out'}\n"
    # onto the same catalog: nothing changes, no version moves
    v = versions()
    out, err, exc = run("import_skills", str(tmp_path / "out"))
    assert exc is None and err == ""
    assert out.splitlines()[-1] == "0 created, 0 updated, 5 unchanged, 0 with errors, 0 ignored"
    assert versions() == v and records() == before
    # into an empty catalog: the same records come back
    Skill.objects.all().delete()
    out, _, exc = run("import_skills", str(tmp_path / "out"))
    assert exc is None and out.splitlines()[-1] == "5 created, 0 updated, 0 unchanged, 0 with errors, 0 ignored"
    assert records() == before


@pytest.mark.parametrize("fmt", ["properties", "skill-md"])
def test_export_to_a_zip_imports_back(odd_bitmall, tmp_path, fmt):
    before = records()
    run("export_skills", str(tmp_path / "skills.zip"), "--format", fmt)
    Skill.objects.all().delete()
    _out, _, exc = run("import_skills", str(tmp_path / "skills.zip"))
    assert exc is None and records() == before


def test_export_refuses_a_folder_that_is_not_empty(bitmall, tmp_path):
    (tmp_path / "x.txt").write_text("x")
    _, _, exc = run("export_skills", str(tmp_path), "--format", "properties")
    assert str(exc) == f"{tmp_path}: exists and is not an empty folder; nothing written"


@pytest.mark.parametrize("name", ["out", "skills.zip"])
def test_export_to_a_path_that_cannot_be_written_names_it_and_leaves_nothing(bitmall, tmp_path, name):
    """Found by a break-in: an unwritable path ended in a traceback. (Tests run as root, so the
    path is made unwritable by a file standing where its folder should be.)"""
    (tmp_path / "taken").write_text("a file, not a folder")
    target = tmp_path / "taken" / name
    _, _, exc = run("export_skills", str(target), "--format", "properties")
    assert str(exc) == f"{target}: cannot write {tmp_path / 'taken'} (File exists); nothing written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_export_writes_the_folder_whole_and_leaves_no_partial_files(bitmall, tmp_path):
    (tmp_path / "out").mkdir()
    _out, _, exc = run("export_skills", str(tmp_path / "out"), "--format", "properties")
    assert exc is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert len(list((tmp_path / "out").glob("*.properties"))) == 5


def exported_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "skills"
    for rel, data in skills_export(format="skill-md").items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return folder


def break_yaml(folder: Path) -> None:
    path = folder / "order-change" / "SKILL.md"
    text = path.read_text(encoding="utf-8").splitlines(keepends=True)
    text[2] = "description: 取消订单: 或修改地址\n"  # an unquoted colon: invalid YAML on line 3
    path.write_text("".join(text), encoding="utf-8")


def test_one_bad_skill_md_names_file_and_line_and_imports_nothing(bitmall, tmp_path):
    folder = exported_folder(tmp_path)
    break_yaml(folder)
    Skill.objects.all().delete()
    out, err, exc = run("import_skills", str(folder))
    assert str(exc) == "1 file(s) with errors; nothing was imported"
    assert "error     order-change/SKILL.md\n" in err
    assert "  error: order-change/SKILL.md:3: invalid YAML front matter: mapping values are not allowed here\n" in err
    assert out.splitlines()[-1] == (
        "nothing imported: 1 file(s) have errors (all or nothing; --partial imports the rest): "
        "4 created, 0 updated, 0 unchanged, 1 with errors, 0 ignored"
    )
    assert Skill.objects.count() == 0
    # the dry run says the same: all or nothing, so the import would write nothing
    out, err, exc = run("import_skills", str(folder), "--dry-run")
    assert out.splitlines()[-1] == (
        "dry run, nothing written; importing would write nothing: 1 file(s) have errors (all or nothing; --partial "
        "imports the rest): 4 created, 0 updated, 0 unchanged, 1 with errors, 0 ignored"
    )


def test_partial_imports_the_rest(bitmall, tmp_path):
    folder = exported_folder(tmp_path)
    break_yaml(folder)
    Skill.objects.all().delete()
    out, err, exc = run("import_skills", str(folder), "--partial")
    assert str(exc) == "1 file(s) with errors"
    assert "order-change/SKILL.md:3: invalid YAML front matter" in err
    assert out.splitlines()[-1] == "4 created, 0 updated, 0 unchanged, 1 with errors, 0 ignored"
    assert sorted(versions()) == ["after_sale_apply", "fault_diagnosis", "iot_bundle", "order_checkout"]


def test_dry_run_writes_nothing_and_reports_what_would_happen(bitmall, tmp_path):
    folder = exported_folder(tmp_path)
    Skill.objects.all().delete()
    out, err, exc = run("import_skills", str(folder), "--dry-run")
    assert exc is None and err == ""
    assert out.splitlines()[0] == "created   after-sale-apply/SKILL.md after_sale_apply"
    assert (
        out.splitlines()[-1] == "dry run, nothing written: 5 created, 0 updated, 0 unchanged, 0 with errors, 0 ignored"
    )
    assert Skill.objects.count() == 0


def skill_md(tmp_path: Path, front: str, body: str = "# 手册\n") -> Path:
    folder = tmp_path / "set" / "order-change"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\n{front}---\n\n{body}", encoding="utf-8")
    return tmp_path / "set"


def test_the_services_refuse_an_unknown_tool_naming_the_allowed_tools_line(bitmall, tmp_path):
    path = skill_md(tmp_path, "name: order-change\ndescription: x\nallowed-tools: cancel_order load_skill nope\n")
    report = skills_import(dataset=read_path(path))
    [entry] = report.entries
    assert entry.status == "error" and entry.skill_code == "order-change"
    assert tuple(map(str, entry.errors)) == (
        "order-change/SKILL.md:4: tool_ids: 'load_skill' is a builtin tool and can never be gated by a skill.",
        "order-change/SKILL.md:4: tool_ids: 'nope' is not the tool of any MCP node.",
    )
    assert not report.written and not Skill.objects.filter(skill_code="order-change").exists()


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        (
            "name: Order\ndescription: x\n",
            "order-change/SKILL.md:2: skill_code: skill code 'Order' must start with a lowercase letter and use only lowercase "
            "letters, digits and single '_' or '-' separators.",
        ),
        (
            "name: order-change\ndescription: |\n  two\n  lines\n",
            "order-change/SKILL.md:3: description: description must be a single line (the model sees it in a catalog).",
        ),
        (
            "name: order-change\ndescription: " + "长" * 513 + "\n",
            "order-change/SKILL.md:3: description: description has 513 characters; at most 512 allowed.",
        ),
        (
            "name: order-change\ndescription: x\nmetadata:\n  skill-code: load_skill\n",
            "order-change/SKILL.md:5: skill_code: skill code 'load_skill' is the name of a builtin tool; choose another code.",
        ),
        (
            "name: query-order\ndescription: x\nmetadata:\n  skill-code: query_order\n",
            "order-change/SKILL.md:5: skill_code: skill code 'query_order' is the name of the MCP tool 'query_order'; "
            "the model would see a skill and a tool of one name. Choose another code.",
        ),
    ],
)
def test_field_rules_come_from_the_services_with_file_and_line(bitmall, tmp_path, front, expected):
    [entry] = skills_import(dataset=read_path(skill_md(tmp_path, front))).entries
    assert tuple(map(str, entry.errors)) == (expected,)


def test_a_blank_manual_names_the_line_where_it_should_start(bitmall, tmp_path):
    [entry] = skills_import(
        dataset=read_path(skill_md(tmp_path, "name: order-change\ndescription: x\n", body=""))
    ).entries
    assert tuple(map(str, entry.errors)) == (
        "order-change/SKILL.md:6: content: the manual (content) must not be blank.",
    )


def test_an_update_reports_the_changed_fields_and_what_it_releases(bitmall, tmp_path):
    path = skill_md(
        tmp_path,
        "name: order-change\ndescription: 新的描述\nmetadata:\n  skill-code: order_change\n"
        "  display-name: 订单修改\n  enabled: 'true'\n  sort-order: '20'\n",
        body=Skill.objects.get(skill_code="order_change").content,
    )
    report = skills_import(dataset=read_path(path))
    [entry] = report.entries
    assert (entry.status, entry.changed) == ("updated", ("description", "tool_ids"))
    assert tuple(map(str, entry.warnings)) == (
        "order-change/SKILL.md: no longer gates cancel_order, change_address: "
        "released to every conversation unless another enabled skill gates it",
    )
    skill = Skill.objects.get(skill_code="order_change")
    assert (skill.description, skill.tool_ids, skill.version) == ("新的描述", [], 2)


def test_sort_order_and_enabled_are_kept_when_a_file_does_not_say(bitmall, tmp_path):
    skill = Skill.objects.get(skill_code="order_change")
    path = skill_md(
        tmp_path,
        "name: order-change\ndescription: x\nallowed-tools: cancel_order change_address\n"
        "metadata:\n  skill-code: order_change\n  display-name: 订单修改\n",
        body=skill.content,
    )
    skills_import(dataset=read_path(path))
    after = Skill.objects.get(skill_code="order_change")
    assert (after.sort_order, after.enabled, after.description) == (skill.sort_order, skill.enabled, "x")


def test_an_archive_with_a_traversal_entry_is_a_command_error(bitmall, tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("../x.properties", "skill-code=x\n")
    (tmp_path / "evil.zip").write_bytes(buffer.getvalue())
    _, _, exc = run("import_skills", str(tmp_path / "evil.zip"))
    assert str(exc) == (
        f"{tmp_path / 'evil.zip'}: entry '../x.properties' has an unsafe path (absolute, '..' or '\\'); "
        "the archive is refused"
    )


def test_a_single_properties_file_with_its_manual_next_to_it(bitmall, tmp_path):
    (tmp_path / "m.md").write_text("# 新手册\n", encoding="utf-8")
    (tmp_path / "new.properties").write_text(
        "skill-code=price_protect\nname=价保\ndescription=价保申请\ncontent-file=m.md\ntool-ids=query_order\n",
        encoding="utf-8",
    )
    out, err, exc = run("import_skills", str(tmp_path))
    assert exc is None, err
    assert out.splitlines() == [
        "created   new.properties price_protect",
        "1 created, 0 updated, 0 unchanged, 0 with errors, 0 ignored",
    ]
    skill = Skill.objects.get(skill_code="price_protect")
    assert (skill.name, skill.content, skill.tool_ids, skill.sort_order, skill.enabled) == (
        "价保",
        "# 新手册\n",
        ["query_order"],
        0,
        True,
    )


def test_other_files_are_listed_as_ignored(bitmall, tmp_path):
    folder = exported_folder(tmp_path)
    (folder / "order-change" / "scripts").mkdir()
    (folder / "order-change" / "scripts" / "x.py").write_text("print()")
    out, _, exc = run("import_skills", str(folder))
    assert exc is None
    assert (
        "ignored   order-change/scripts/x.py: not a skill file (*.properties or SKILL.md) nor a manual that a "
        "declaration names; not imported"
    ) in out.splitlines()


def test_read_zip_of_an_export_has_no_ignored_files(bitmall):
    from skill_rule.skill_files import zip_files

    report = skills_import(dataset=read_zip(zip_files(skills_export(format="properties"))), dry_run=True)
    assert report.counts == {"created": 0, "updated": 0, "unchanged": 5, "error": 0, "ignored": 0}
