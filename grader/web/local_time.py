"""The course's time zone: set once on ``/teach/``, and every time the portal reads or shows in it.

In: an IANA zone name from the instructor's form (``Europe/Amsterdam``), a deadline as a person
writes it (a local date and minute), an aware datetime to show. Out: the zone (``course_zone``: UTC
for a course that set none), the sentence saying why a name or a deadline is refused, a deadline
as the aware instant it is stored as, a time as a page shows it ("2026-12-01 23:59 CET").

The rule of a deadline's minute, the one every page states: a deadline written 11:42 is on time up
to and including 11:42:59, late from 11:43:00. It is stored as the minute's last instant
(11:42:59.999999, microseconds being what the database keeps), so that the one lateness rule,
``submitted_at > deadline`` (``handin``, ``late_work``, ``hidden_results``), is exact at the
second. A wall time the clocks skip (spring forward) is refused with a sentence; one they show
twice (fall back) is the first of the two.

``ZoneMiddleware`` makes the course's zone Django's current one for each request, so that the
templates' ``date`` filter shows local times; code outside a request (the dispatcher) passes
``course_zone()`` itself. The logs stay in UTC (``logs``): they are the operator's, not the course's.
"""

from __future__ import annotations

import difflib
import logging
import zoneinfo
from datetime import datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Optional, Union

from django.utils import timezone as django_zone

MINUTE_END = timedelta(seconds=59, microseconds=999_999)  # from a minute's start to its last instant
MAX_NAME = 64
EXAMPLE = "Europe/Amsterdam"

log = logging.getLogger("grader.web")


@lru_cache(maxsize=1)
def _known() -> frozenset:
    """The zone names this machine's time zone database holds (the system's, or the tzdata package's)."""
    return frozenset(zoneinfo.available_timezones())


def zone_or_sentence(text: str) -> tuple:
    """(the zone's name, "") or ("", the sentence saying what is wrong and what to write)."""
    text = text.strip()
    if text.upper() == "UTC":
        return "UTC", ""
    if not text or len(text) > MAX_NAME:
        return "", f"the time zone must be an IANA name such as {EXAMPLE} or America/New_York, not {text[:MAX_NAME]!r}"
    known = _known()
    if not known:
        return "", (
            "this machine has no time zone database, so only UTC can be used: install the system's tzdata "
            "package or `pip install tzdata`, restart the portal, then set the zone"
        )
    spelled = {name.lower(): name for name in known}
    if text.lower() in spelled:
        return spelled[text.lower()], ""
    close = difflib.get_close_matches(text, sorted(known), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return "", (
        f"{text!r} is not a time zone name{hint}: write the IANA name of the course's city, "
        f"such as {EXAMPLE} or America/New_York"
    )


def zone_named(name: str) -> tzinfo:
    """The zone called ``name``; UTC for "UTC" or a name this machine can no longer read (said in
    the log: the footer of every page then says UTC, so nobody is misled)."""
    if not name or name == "UTC":
        return timezone.utc
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        log.warning("the course's time zone %r is not in this machine's time zone database: times shown in UTC", name)
        return timezone.utc


def course_zone() -> tzinfo:
    """The course's time zone (``CourseSetting.time_zone``; UTC for a course that set none)."""
    from grader.web.models import CourseSetting

    name = CourseSetting.objects.filter(pk=1).values_list("time_zone", flat=True).first()
    return zone_named(name or "UTC")


def zone_name(zone: tzinfo) -> str:
    """The zone's IANA name ("UTC" for UTC)."""
    return getattr(zone, "key", None) or "UTC"


def store_zone(name: str) -> None:
    from grader.web.models import CourseSetting

    CourseSetting.objects.update_or_create(pk=1, defaults={"time_zone": name})


def _skipped(wall: datetime, zone: tzinfo) -> Optional[str]:
    """The sentence for a wall time the clocks skip in ``zone`` (None: it exists)."""
    first = wall.replace(tzinfo=zone, fold=0)
    try:
        if first.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None, fold=0) == wall:
            return None
    except OverflowError:  # out of the calendar in UTC: the caller says so
        return None
    # the jump: from the offset before it to the one after, somewhere in the hour around ``wall``
    before, after = first.utcoffset(), wall.replace(tzinfo=zone, fold=1).utcoffset()
    assert before is not None and after is not None
    low, high = wall - after, wall - before  # in UTC: the jump lies between
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        if middle.replace(tzinfo=timezone.utc).astimezone(zone).utcoffset() == before:
            low = middle
        else:
            high = middle
    jump = high.replace(microsecond=0)
    stopped = (jump + before).strftime("%H:%M")
    went_on = (jump + after).strftime("%H:%M")
    return (
        f"there is no {wall.strftime('%H:%M')} on {wall.date().isoformat()} in {zone_name(zone)}: the clocks "
        f"go from {stopped} straight to {went_on} that night; choose a time before {stopped} or from {went_on} on"
    )


def deadline_instant(text: str, zone: tzinfo) -> Union[Optional[datetime], str]:
    """A deadline written ``YYYY-MM-DD HH:MM`` (or a browser's ``YYYY-MM-DDTHH:MM``) in ``zone``, or
    with an offset of its own (``+01:00``, ``Z``), as the aware UTC instant it is stored as: the
    minute's last microsecond (see the module's rule). None when empty; else the sentence saying why
    it is not a deadline."""
    text = text.strip()
    if not text:
        return None
    written = f"write it as 2026-12-01 23:59 ({zone_name(zone)} time)"
    try:
        if len(text) > 40:
            raise ValueError(text)
        moment = datetime.fromisoformat(text.replace("T", " ", 1))
    except ValueError:
        return f"the deadline {text[:40]!r} is not a date and time: {written}"
    if moment.second or moment.microsecond:
        return f"the deadline {text!r} names a second: a deadline is a minute, on time to its last second; {written}"
    offset = moment.utcoffset()
    if offset is not None and offset % timedelta(minutes=1):
        return f"the deadline {text!r} is not a date and time a clock shows: write its offset in hours and minutes"
    if moment.tzinfo is None:
        gap = _skipped(moment, zone)
        if gap:
            return gap
        moment = moment.replace(tzinfo=zone, fold=0)  # twice on the clock (fall back): the first
    try:
        return moment.astimezone(timezone.utc) + MINUTE_END
    except OverflowError:  # 9999-12-31 23:59-14:00 is in the year 10000 in UTC, 0001-01-01 00:00+14:00 in year 0
        return f"the deadline {text!r} falls outside the years 1 to 9999 in UTC: {written}, a day later or earlier"


def _local(instant: datetime, zone: tzinfo) -> datetime:
    """``instant`` on ``zone``'s clock; on UTC's for a minute of the year 1 or 9999 that ``zone``
    would move out of the calendar."""
    try:
        return instant.astimezone(zone)
    except OverflowError:
        return instant.astimezone(timezone.utc)


def _offset(local: datetime) -> str:
    seconds = int(local.utcoffset().total_seconds())  # type: ignore[union-attr]
    sign = "-" if seconds < 0 else "+"
    return f"{sign}{abs(seconds) // 3600:02d}:{abs(seconds) % 3600 // 60:02d}"


def _day_and_minute(local: datetime) -> str:
    # not strftime: it writes the year 1 as "1", which the form then refuses
    return f"{local.year:04d}-{local.month:02d}-{local.day:02d} {local.hour:02d}:{local.minute:02d}"


def form_value(instant: Optional[datetime], zone: tzinfo) -> str:
    """A stored deadline as the form shows it back and takes it again unchanged: its minute in
    ``zone``, with its offset when the zone's clock shows that minute twice and this is the second
    (or when the zone would move it out of the calendar); "" for none."""
    if instant is None:
        return ""
    local = _local(instant, zone)
    if local.fold or (local.tzinfo is timezone.utc and zone is not timezone.utc):
        return _day_and_minute(local) + _offset(local)
    return _day_and_minute(local)


def shown_time(instant: datetime, zone: tzinfo, seconds: bool = False) -> str:
    """``instant`` as a page says it: "2026-12-01 23:59 CET" (with the seconds when asked)."""
    local = _local(instant, zone)
    clock = _day_and_minute(local) + (f":{local.second:02d}" if seconds else "")
    return f"{clock} {local.tzname() or _offset(local)}"


def last_second(instant: datetime, zone: tzinfo) -> str:
    """The last second on time of a deadline (stored as its minute's last instant), with its zone
    as every time a page shows: "23:59:59 CET"."""
    local = _local(instant, zone)
    return f"{local.hour:02d}:{local.minute:02d}:{local.second:02d} {local.tzname() or _offset(local)}"


def deadline_words(instant: datetime, zone: tzinfo) -> str:
    """A deadline with its minute's rule: "2026-12-01 23:59 CET (a hand-in at 23:59:59 CET is on time)"."""
    return f"{shown_time(instant, zone)} (a hand-in at {last_second(instant, zone)} is on time)"


class ZoneMiddleware:
    """Each request in the course's time zone: pages show their times in it (``date`` filter).
    ``/healthz`` reads no database, as before: it says whether the process answers."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path == "/healthz":
            return self.get_response(request)
        django_zone.activate(course_zone())
        try:
            return self.get_response(request)
        finally:
            django_zone.deactivate()


def zone_context(request) -> dict:
    """For every page's footer: the course's zone's name and its abbreviation now."""
    zone = django_zone.get_current_timezone()
    return {"course_zone": zone_name(zone), "course_zone_now": datetime.now(zone).tzname() or ""}
