"""Every refusal a page can show has a Chinese sentence, with the same placeholders."""
import re

import pytest
from django.utils import translation

from skills_app.message_catalog import MESSAGES_BY_CODE


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
