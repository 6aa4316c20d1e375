"""Every refusal a page can show has a Chinese sentence, with the same placeholders."""

import re

import pytest
from django.utils import translation

from skills_app.core.message_catalog import MESSAGES_BY_CODE


@pytest.mark.parametrize("code", sorted(MESSAGES_BY_CODE))
def test_every_refusal_code_has_a_chinese_sentence_with_the_same_placeholders(code):
    template = MESSAGES_BY_CODE[code]
    with translation.override("en"):
        english = str(template)
    with translation.override("zh-hans"):
        chinese = str(template)
    assert chinese != english, f"{code}: no zh-hans translation"
    assert re.search(r"[\u4e00-\u9fff]", chinese), chinese
    assert sorted(re.findall(r"%\((\w+)\)s", chinese)) == sorted(re.findall(r"%\((\w+)\)s", english))


def _catalog_tables():
    from skills_app.core import message_catalog as mc

    for table_name in ("VERDICT_MESSAGES", "EXPECTATION_LABELS", "VERDICT_LABELS", "REASON_LABELS", "STATE_LABELS"):
        for key in sorted(getattr(mc, table_name)):
            yield pytest.param(table_name, key, id=f"{table_name}:{key}")


@pytest.mark.parametrize(("table_name", "key"), list(_catalog_tables()))
def test_every_verdict_sentence_and_label_of_the_catalog_has_a_chinese_text(table_name, key):
    from skills_app.core import message_catalog

    template = getattr(message_catalog, table_name)[key]
    with translation.override("en"):
        english = str(template)
    with translation.override("zh-hans"):
        chinese = str(template)
    assert re.search(r"[\u4e00-\u9fff]", chinese), f"{table_name}[{key}]: {chinese}"
    assert sorted(re.findall(r"%\((\w+)\)s", chinese)) == sorted(re.findall(r"%\((\w+)\)s", english))


def test_the_message_catalog_imports_only_the_domain_and_django():
    """models, selectors, services, forms, views and the API import the catalog; it imports none of them."""
    import ast
    from pathlib import Path

    import skills_app.core.message_catalog as mc

    tree = ast.parse(Path(mc.__file__).read_text(encoding="utf-8"))
    imported = {(node.level, node.module) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {(0, alias.name) for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert imported == {
        (0, "__future__"),
        (0, "collections.abc"),
        (0, "typing"),
        (0, "django.core.exceptions"),
        (0, "django.utils.translation"),
        (0, "skill_rule.errors"),
    }
