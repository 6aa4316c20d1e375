"""Django's request limits answered in words (issue 29, found by a break-in): past
``DATA_UPLOAD_MAX_NUMBER_FIELDS`` form fields or ``DATA_UPLOAD_MAX_NUMBER_FILES`` files the page said
only "the request could not be read", and a body past ``DATA_UPLOAD_MAX_MEMORY_SIZE`` was a 413
under a "400 Bad request" heading. Each now names the limit, on the page and in JSON."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.views.html import parse


def test_more_form_fields_than_the_limit_name_the_limit(staff_client, bitmall):
    fields = {f"field{n}": "x" for n in range(1001)}
    page = staff_client.post("/preview/", fields)
    assert page.status_code == 400
    doc = parse(page.content)
    assert doc.one("data-error-page")["data-error-page"] == "400"
    assert doc.by_tag("h1")[0].text() == "表单字段过多"
    assert doc.one("data-reason").text() == "表单提交的字段超过 1000 个，这是控制台一次能读取的上限；没有做任何更改。"
    staff_client.cookies["django_language"] = "en"
    english = parse(staff_client.post("/preview/", fields).content)
    assert english.one("data-reason").text() == (
        "The form sends more than 1000 fields, the most the console reads at once; nothing was changed."
    )
    download = staff_client.post("/preview/result.json", fields)
    assert (download.status_code, download["Content-Type"]) == (400, "application/json")
    assert download.json() == {
        "error": {
            "code": "too_many_fields",
            "message": "the request has more than 1000 form fields",
            "details": {"limit": 1000},
        }
    }


def test_more_files_than_the_limit_name_the_limit_and_the_zip(staff_client, bitmall):
    files = [SimpleUploadedFile(f"s{n}.md", b"x") for n in range(502)]
    page = staff_client.post("/skills/import", {"files": files, "action": "check"})
    assert page.status_code == 400
    doc = parse(page.content)
    assert doc.by_tag("h1")[0].text() == "文件过多"
    assert doc.one("data-reason").text() == (
        "表单上传的文件超过 501 个，这是控制台一次能读取的上限；没有做任何更改。请把这些文件打成一个 zip 再上传。"
    )


def test_a_body_over_the_size_limit_is_headed_413_request_too_large(staff_client, bitmall):
    script = "steps:\n  - user: " + "长" * 1_000_000 + "\n"
    page = staff_client.post("/preview/", {"script": script})
    assert page.status_code == 413
    doc = parse(page.content)
    assert doc.one("data-error-page")["data-error-page"] == "413"
    assert doc.by_tag("h1")[0].text() == "请求过大"
    assert "请求无效" not in page.content.decode()


def test_a_form_field_that_is_not_utf8_is_refused_naming_it_and_nothing_is_saved(staff_client, bitmall):
    """Found by a break-in: Django decodes such bytes to U+FFFD, so the name was saved changed."""
    from skills_app.models import Skill

    count = Skill.objects.count()
    body = b"skill_code=refund_fast&name=%E6%9E%81%FF%E9%80%9F&description=x&content=y"
    page = staff_client.post("/skills/new", data=body, content_type="application/x-www-form-urlencoded")
    assert page.status_code == 400
    doc = parse(page.content)
    assert doc.by_tag("h1")[0].text() == "不是 UTF-8 的文本"
    assert doc.one("data-reason").text() == (
        "表单字段“name”不是有效的 UTF-8 文本（第 4 个字节）；没有保存任何内容。请从 UTF-8 的来源重新粘贴这段文本。"
    )
    assert Skill.objects.count() == count
    assert not Skill.objects.filter(name__contains="\ufffd").exists()
    download = staff_client.post(
        "/preview/result.json", data=b"script=%FF", content_type="application/x-www-form-urlencoded"
    )
    assert download.status_code == 400
    assert download.json()["error"] == {
        "code": "invalid_utf8",
        "message": "form field 'script' is not valid UTF-8 text (byte 1); nothing was saved",
        "details": {"field": "script", "byte": 1},
    }


def test_valid_utf8_forms_still_save(staff_client, bitmall):
    from skills_app.models import Skill

    body = (
        "skill_code=refund_fast&name=极速退款&description=用户要求极速退款时加载。&content=手册&sort_order=1&enabled=on"
    )
    from urllib.parse import quote

    encoded = "&".join(f"{k}={quote(v)}" for k, v in (pair.split("=", 1) for pair in body.split("&"))).encode()
    page = staff_client.post("/skills/new", data=encoded, content_type="application/x-www-form-urlencoded")
    assert page.status_code == 302
    assert Skill.objects.get(skill_code="refund_fast").name == "极速退款"
