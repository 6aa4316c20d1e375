"""``domain/yaml_reading.py``: what scripts and SKILL.md front matter share about reading YAML —
exact lines and sentences (library tests: call, assert)."""

from __future__ import annotations

import pytest
import yaml

from skill_rule.yaml_reading import check_scalars, line_at, refused_character


@pytest.mark.parametrize(
    ("text", "offset", "line"),
    [
        ("", 0, 1),
        ("a\nb", 1, 1),
        ("a\nb", 2, 2),
        ("\n\nc", 2, 3),
        ("\n\nc", 1, 2),
    ],
)
def test_line_at_is_the_1_based_line_holding_the_offset(text, offset, line):
    """The newline itself belongs to the line it ends."""
    assert line_at(text, offset) == line


def test_a_refused_character_names_its_line_and_code_point():
    """What PyYAML's reader raises for a pasted bell on line 3, said as scripts and SKILL.md do."""
    import yaml

    text = "steps:\n  - user: 你好\n  - user: ring \x07 bell\n"
    with pytest.raises(yaml.reader.ReaderError) as caught:
        yaml.safe_load(text)
    assert refused_character(text, caught.value) == (
        3,
        "unacceptable character #x0007: special characters are not allowed",
    )


def _checked() -> type[yaml.SafeLoader]:
    """A loader given the checked constructors in the test (not at import: mutation testing forks
    each mutant from a process that imported this module, docs/testing.md)."""

    class Checked(yaml.SafeLoader):
        pass

    loader = check_scalars(Checked)
    assert loader is Checked
    return loader


@pytest.mark.parametrize(
    ("text", "problem", "line"),
    [
        ("a: 1\nwhen: 2024-13-45\n", "cannot read this date (month must be in 1..12)", 2),
        (
            "a: 1\nb: 2\nn: " + "9" * 4301 + "\n",
            "cannot read this number (Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; "
            "use sys.set_int_max_str_digits() to increase the limit)",
            3,
        ),
    ],
)
def test_a_value_python_cannot_make_is_a_yaml_error_at_its_line(text, problem, line):
    with pytest.raises(yaml.constructor.ConstructorError) as caught:
        yaml.load(text, Loader=_checked())  # noqa: S506 — a SafeLoader subclass
    assert (caught.value.problem, caught.value.problem_mark.line + 1) == (problem, line)


def test_checked_scalars_still_read_what_python_can_make():
    import datetime

    assert yaml.load("n: 0x1F\nd: 2024-02-29\nm: -3\n", Loader=_checked()) == {  # noqa: S506
        "n": 31,
        "d": datetime.date(2024, 2, 29),
        "m": -3,
    }
