"""Long lists of tool names at 2,000 tools: the editor's "Still masked" folds past ``CHIPS_SHOWN``
chips (``masked_chips``), and a sentence's run of names is escaped in one pass (``presenters.say``)."""

from __future__ import annotations

from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from skills_app.templatetags import console
from skills_app.web.presenters import say
from tests.views.html import parse


def masked(n: int) -> dict[str, str]:
    return {f"t{i:02d}": f"s{i % 3}" for i in range(n)}


def test_masked_chips_show_the_first_ones_and_fold_the_rest_under_and_n_more():
    with translation.override("en"):
        doc = parse(console.masked_chips(masked(45), shown=40))
    shown, rest = doc.by_tag("ul")[0], doc.one("data-chips-more")
    assert [li.text() for li in shown.by_tag("li")][:2] == ["t00 → s0", "t01 → s1"]
    assert len(shown.by_tag("li")) == 40
    assert rest["data-chips-more"] == "5" and rest.tag == "details" and rest.get("open") is None
    assert rest.by_tag("summary")[0].text() == "and 5 more"
    assert [li.text() for li in rest.by_tag("li")] == ["t40 → s1", "t41 → s2", "t42 → s0", "t43 → s1", "t44 → s2"]
    with translation.override("zh-hans"):
        assert (
            parse(console.masked_chips(masked(2041), shown=40)).one("data-chips-more").by_tag("summary")[0].text()
            == "还有 2001 个"
        )


def test_masked_chips_up_to_the_limit_fold_nothing_and_escape_every_name():
    html = console.masked_chips({"<b>x</b>": "a&b", "y": "c"}, shown=2)
    assert isinstance(html, SafeString)
    assert html == (
        '<ul class="chips"><li class="chip chip-masked">&lt;b&gt;x&lt;/b&gt; <span class="to">→ a&amp;b'
        '</span></li><li class="chip chip-masked">y <span class="to">→ c</span></li></ul>'
    )
    with translation.override("zh-hans"):
        assert console.masked_chips({}) == '<ul class="chips"><li class="none">无</li></ul>'


def test_the_editor_folds_still_masked_past_the_limit(staff_client, bitmall, monkeypatch):
    doc = parse(staff_client.get("/skills/order_change/edit").content)
    still = doc.one("data-still-masked")
    assert still["data-still-masked"] == "4" and not still.select("data-chips-more")
    assert [li.text() for li in still.by_tag("li")] == [
        "apply_after_sale → after_sale_apply",
        "update_cart_item → order_checkout",
        "create_order → order_checkout",
        "pay_order → order_checkout",
    ]
    monkeypatch.setattr(console, "CHIPS_SHOWN", 1)
    still = parse(staff_client.get("/skills/order_change/edit").content).one("data-still-masked")
    assert len(still.by_tag("ul")[0].by_tag("li")) == 1
    assert still.one("data-chips-more")["data-chips-more"] == "3"
    assert still.one("data-chips-more").by_tag("summary")[0].text() == "还有 3 个"


def test_a_run_of_names_in_a_sentence_is_escaped_and_set_in_code():
    assert say("x %(tools)s.", tools=["a<b", "c&d", "e"]) == (
        "x <code>a&lt;b</code>, <code>c&amp;d</code>, <code>e</code>."
    )
    assert say("%(tools)s", tools=("a\0b", "c")) == "<code>a\0b</code>, <code>c</code>"  # a NUL: one by one
    assert say("%(tools)s", tools=[mark_safe("<i>k</i>"), "<"]) == "<code><i>k</i></code>, <code>&lt;</code>"
    assert say("%(tools)s", tools=["only"]) == "<code>only</code>"
    with translation.override("zh-hans"):
        assert say("%(tools)s", tools=[]) == '<span class="none">无</span>'
