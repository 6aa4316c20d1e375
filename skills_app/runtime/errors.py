"""Refusals the runtime API raises itself (docs/runtime-api.md), on top of ``skill_rule`` errors.

They subclass ``DomainError`` so the one exception handler
(``skills_app.runtime.exception_handlers.api_exception_handler``) renders every refusal the same way:
``{"error": {"code", "message", "details"}}`` with ``status_code`` as the HTTP status (domain
errors without one answer 400).
"""

from __future__ import annotations

from skill_rule import DomainError
from skill_rule.limits import REPORT_MAX_BATCH_BYTES
from skill_rule.validation import validate_skill_code


class ApiError(DomainError):
    """A refusal with its own HTTP status (``status_code``)."""

    status_code = 400


class ReleaseNotFoundError(ApiError):
    """``?release=N`` / body ``release`` names a release that was never published (404).

    ``known`` lists the published release numbers.
    """

    code = "release_not_found"
    status_code = 404

    def __init__(self, number: int, *, known: list[int]) -> None:
        on_offer = ", ".join(str(n) for n in known) if known else "none has been published yet"
        super().__init__(
            f"release {number} does not exist; releases on offer: {on_offer}",
            details={"release": number, "known": known},
        )


class NoReleaseError(ApiError):
    """Nothing was published yet: the runtime never falls back to the draft (404 ``no_release``)."""

    code = "no_release"
    status_code = 404

    def __init__(self) -> None:
        super().__init__(
            "no release has been published yet; publish one in the console (/publish/) or with "
            "'python manage.py publish --note TEXT'",
            details={"hint": "python manage.py publish --note TEXT"},
        )


class LabelNotFoundError(ApiError):
    """``?label=NAME`` names no label (404 ``label_not_found``); ``known`` lists the labels."""

    code = "label_not_found"
    status_code = 404

    def __init__(self, label: str, *, known: list[str]) -> None:
        super().__init__(
            f"label '{label}' does not exist; labels: {', '.join(known) or 'none'}",
            details={"label": label, "known": known},
        )


class DraftsNotAllowedError(ApiError):
    """``?draft=1`` without a key allowed to read drafts (403 ``drafts_not_allowed``)."""

    code = "drafts_not_allowed"
    status_code = 403

    def __init__(self) -> None:
        super().__init__(
            "the draft is only served to a key created with --drafts or a publisher's console session",
            details={},
        )


class ConflictingSelectorsError(ApiError):
    """More than one of ``release``, ``label``, ``draft`` given (400 ``conflicting_selectors``)."""

    code = "conflicting_selectors"
    status_code = 400

    def __init__(self, names: list[str]) -> None:
        super().__init__(f"give one of release, label or draft, not {' and '.join(names)}", details={"given": names})


class InvalidSkillCodeError(ApiError):
    """A skill code that breaks the pattern of docs/design.md (400); refused before anything is read."""

    code = "invalid_skill_code"
    status_code = 400

    def __init__(self, skill_code: str) -> None:
        problems = [str(p) for p in validate_skill_code(skill_code)] or [f"skill code {skill_code!r} is malformed."]
        super().__init__(problems[0], details={"skill_code": skill_code})


class SkillNotFoundError(ApiError):
    """A well-formed code that names no enabled skill (unknown, disabled or deleted): 404.

    ``message`` defaults to a sentence naming the skills on offer; ``details.known`` lists them.
    """

    code = "skill_not_found"
    status_code = 404

    def __init__(self, skill_code: str, *, known: list[str], message: str | None = None) -> None:
        on_offer = ", ".join(known) if known else "none"
        super().__init__(
            message or f"skill '{skill_code}' is unknown or disabled; skills on offer: {on_offer}",
            details={"skill_code": skill_code, "known": known},
        )


class ReportTooLargeError(ApiError):
    """A ``POST runtime/reports`` body over ``REPORT_MAX_BATCH_BYTES`` (413 ``report_too_large``):
    nothing of it is read or stored. ``length`` is the body's ``Content-Length`` when sent."""

    code = "report_too_large"
    status_code = 413

    def __init__(self, length: int | None = None) -> None:
        size = f"{length} bytes" if length is not None else "the batch"
        super().__init__(
            f"{size} is more than REPORT_MAX_BATCH_BYTES ({REPORT_MAX_BATCH_BYTES} bytes) in one batch; "
            "send fewer records per batch",
            details={"limit": "REPORT_MAX_BATCH_BYTES", "max": REPORT_MAX_BATCH_BYTES, "bytes": length},
        )
