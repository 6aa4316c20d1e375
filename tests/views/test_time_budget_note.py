"""A simulation stopped by its time budget (docs/simulator.md, "Limits") says so on the page, in
both languages, above the other warnings. The stop is made with a fake clock, never timed."""

from __future__ import annotations

from django.utils import translation

from skill_rule import parse_script, simulate
from skills_app.web.presenters import simulation_page, warning_note
from tests.domain.factories import shop

SCRIPT = "steps:\n  - user: hi\n" + "  - assistant: {}\n" * 4


def _stopped():
    ticks = iter(range(0, 100, 6))  # start 0, rounds checked at 6 (runs), 12 (> 10: stop)
    return simulate(shop(), parse_script(SCRIPT), budget=10, clock=lambda: next(ticks))


def test_the_stop_is_the_first_note_of_the_page_in_english_and_chinese():
    sim = _stopped()
    assert len(sim.rounds) == 1
    with translation.override("en"):
        page = simulation_page(sim, shop())
        assert page.warnings[0].known
        assert page.warnings[0].text == "Stopped after 1 of 4 rounds: the time budget of 10 s was exceeded."
    with translation.override("zh-hans"):
        assert warning_note(sim.stopped).text == "已在 4 轮中的第 1 轮后停止：超出了 10 秒的时间预算。"


def test_the_stop_counts_as_a_failure_and_reads_in_the_active_language():
    from skills_app.web.presenters import failure_sentence

    sim = _stopped()
    assert sim.failures == (sim.stopped,) and not sim.passed
    with translation.override("zh-hans"):
        assert failure_sentence(sim.failures[-1]) == "已在 4 轮中的第 1 轮后停止：超出了 10 秒的时间预算。"
