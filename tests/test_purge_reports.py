"""``manage.py purge_reports`` (docs/deploy.md, "Runtime reports"): raw report rows older than the
retention period are deleted, newer ones stay, and the per-day rollups and the instances are kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils.timezone import localtime

from skill_rule.reports import parse_reports
from skills_app.models import ReportConversation, ReportRollup, RuntimeInstance, RuntimeReport
from skills_app.reports.selectors import rollup_table
from skills_app.reports.services import reports_ingest

NOW = datetime.now(UTC).replace(microsecond=0)


def ingest(at: datetime, *ids: str) -> None:
    """Store one heartbeat and one round per id at ``at``, as a runtime sent them then."""
    records = []
    for rid in ids:
        records.append(
            {
                "id": f"h-{rid}",
                "kind": "heartbeat",
                "at": at.isoformat(),
                "instance": "host-1",
                "client_version": "v1",
                "stale": False,
            }
        )
        records.append({"id": f"r-{rid}", "kind": "round", "at": at.isoformat(), "instance": "host-1",
                        "release": None, "sha256": "0" * 64, "conversation": f"conv-{rid}", "round": 1,
                        "loaded": [], "masked": []})  # fmt: skip
    reports = parse_reports({"records": records}, now=at, retention_days=30)
    reports_ingest(key_prefix="abcd1234", reports=reports, received_at=at)


def purge(*args: str) -> str:
    out = StringIO()
    call_command("purge_reports", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def old_and_new(db):
    """Rows of 45 and 31 days ago (past the default 30) and of 29 days ago and today."""
    for days, rid in ((45, "a"), (31, "b"), (29, "c"), (0, "d")):
        ingest(NOW - timedelta(days=days, minutes=5), rid)
    assert RuntimeReport.objects.count() == 8


def test_purge_deletes_the_old_raw_rows_and_keeps_the_new_rows_the_rollups_and_the_instances(old_and_new):
    rollups = rollup_table(since=(NOW - timedelta(days=60)).date(), until=(NOW + timedelta(days=1)).date())
    instances = list(RuntimeInstance.objects.values_list("instance", "last_seen"))
    assert len(rollups) == 12  # per day: rounds, conversations, heartbeats

    out = purge()

    assert set(RuntimeReport.objects.values_list("record_id", flat=True)) == {"h-c", "r-c", "h-d", "r-d"}
    assert rollup_table(since=(NOW - timedelta(days=60)).date(), until=(NOW + timedelta(days=1)).date()) == rollups
    assert (
        ReportRollup.objects.get(day=localtime(NOW - timedelta(days=45, minutes=5)).date(), dimension="rounds").count
        == 1
    )
    assert list(RuntimeInstance.objects.values_list("instance", "last_seen")) == instances
    # the conversations silent since before the cutoff's day go with the raw rows
    assert sorted(ReportConversation.objects.values_list("conversation", flat=True)) == ["conv-c", "conv-d"]
    cutoff = (datetime.now(UTC) - timedelta(days=30)).isoformat(timespec="seconds")
    assert out.startswith("deleted 4 raw report row(s) from before ")
    assert out.strip().endswith("(kept: 30 days); rollups and instances kept")
    assert out.split("from before ")[1][:16] == cutoff[:16]  # the cutoff to the minute

    assert purge().startswith("deleted 0 raw report row(s)")  # a second run finds nothing


def test_the_retention_setting_and_days_choose_what_is_kept(old_and_new, settings):
    settings.SKILL_CONSOLE_REPORTS_RETENTION_DAYS = 40
    assert purge().startswith("deleted 2 raw report row(s)")
    assert set(RuntimeReport.objects.values_list("record_id", flat=True)) == {"h-b", "r-b", "h-c", "r-c", "h-d", "r-d"}
    assert purge("--days", "1").startswith("deleted 4 raw report row(s)")
    assert set(RuntimeReport.objects.values_list("record_id", flat=True)) == {"h-d", "r-d"}


def test_a_dry_run_counts_and_deletes_nothing(old_and_new):
    assert purge("--dry-run").startswith("would delete 4 raw report row(s) from before ")
    assert RuntimeReport.objects.count() == 8


def test_days_below_one_is_refused(old_and_new):
    with pytest.raises(CommandError, match="--days must be 1 or more, got 0"):
        purge("--days", "0")
    assert RuntimeReport.objects.count() == 8


def test_a_purged_record_sent_again_is_refused_as_too_old_not_stored_again(old_and_new):
    """A record past the retention period cannot come back through the API after a purge: ingest
    refuses it by its time (tests/domain/test_reports.py), so the rollups never count it twice."""
    from skill_rule.reports import ReportError

    purge()
    old = NOW - timedelta(days=45, minutes=5)
    record = {"id": "h-a", "kind": "heartbeat", "at": old.isoformat(), "instance": "host-1", "client_version": "v1",
              "stale": False}  # fmt: skip
    with pytest.raises(ReportError, match=r"records\[0\]\.at: .* older than the retention period \(30 days"):
        parse_reports({"records": [record]}, now=datetime.now(UTC), retention_days=30)


def test_samples_are_purged_with_the_same_retention(db):
    from skills_app.models import ReportSample

    for days, rid in ((45, "a"), (29, "b")):
        at = NOW - timedelta(days=days, minutes=5)
        sample = {"id": f"s-{rid}", "kind": "sample", "at": at.isoformat(), "instance": "host-1", "release": None,
                  "sha256": "0" * 64, "conversation": f"conv-{rid}", "round": 1, "redaction": "redacted",
                  "messages": [{"role": "user", "content": "", "redacted": {"chars": 5}}]}  # fmt: skip
        reports_ingest(
            key_prefix="abcd1234",
            reports=parse_reports({"records": [sample]}, now=at, retention_days=30),
            received_at=at,
        )
    assert ReportSample.objects.count() == 2 and ReportRollup.objects.count() == 0  # never counted
    assert "would delete 1" in purge("--dry-run")
    purge()
    assert list(ReportSample.objects.values_list("record_id", flat=True)) == ["s-b"]
