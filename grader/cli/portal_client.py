"""The portal's HTTP API (``portal.md``) from the student's side, on the standard library alone.

In: the portal's address (``--server``) and a student's API token. Out: the answers of the calls
``submit`` makes, checked against the contract: the portal's tasks (and the tasks whose files each
imports, where the portal says), a file handed in with any of those files (``HandedIn``), a
submission's state (``SubmissionState``). Every failure is a ``PortalError`` whose sentence a student
can act on: a refused token, a rate limit and when to try again, a server that cannot be reached
(named), an answer that is not the API's (never a traceback).

The token goes into the ``Authorization`` header and nowhere else: no message quotes it, and
redirects are not followed, so it is never sent to an address the student did not name.
"""

from __future__ import annotations

import email.utils
import http.client
import ipaddress
import json
import math
import re
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from grader.cli.multipart_form import multipart
from grader.errors import GraderError, UsageError
from grader.model import Verdict
from grader.safe_text import for_terminal
from grader.submission.files import MAX_SOURCE_BYTES

# An answer of the API is a few kB (a submission with every case's message); more is not the portal.
MAX_ANSWER_BYTES = 4 * 1024 * 1024
# One call's limit: connecting, and then reading the whole answer.
REQUEST_TIMEOUT_S = 30.0
STATUSES = ("queued", "running", "done", "error")
_VERDICTS = frozenset(v.value for v in Verdict)
# Where a student gets a token: the portal's account page, signed in (``grader.web.site.account``).
_TOKEN_HELP = "make one on the portal's account page (sign in, then Account: /account/)"


class PortalError(GraderError):
    """A call to the portal failed; ``str(error)`` is the sentence for the student."""


@dataclass(frozen=True)
class Portal:
    """A portal's address: ``base`` to build the API's URLs on, ``shown`` to name it in sentences."""

    base: str
    shown: str
    host: str
    in_clear: bool  # plain http to another machine: the token would travel unencrypted


@dataclass(frozen=True)
class HandedIn:
    """The portal's answer to a file handed in: the submission's id, status and API URL, whether
    it came after the task's deadline, and the names of the files it took (None: it did not say)."""

    id: str
    status: str
    api_url: str
    late: bool = False
    files: Optional[Tuple[str, ...]] = None


@dataclass(frozen=True)
class CaseState:
    name: str
    verdict: str
    message: str
    waiting: bool = False  # a hidden case of a hand-in graded on its public cases only, not run yet


@dataclass(frozen=True)
class SubmissionState:
    """``GET /api/submissions/ID``; ``verdict``, ``score``, ``max_score`` and ``cases`` are set when done."""

    id: str
    task: str
    status: str
    verdict: str = ""
    score: float = 0.0
    max_score: float = 0.0
    cases: Tuple[CaseState, ...] = ()
    report_url: str = ""
    notes: Tuple[str, ...] = ()  # sentences on the file as a whole
    late: bool = False  # handed in after the task's deadline (graded all the same)
    said: Optional[Mapping[str, Any]] = None  # its "cause" and "known_mistake" as given, read by ``submit``


def portal_address(text: str) -> Portal:
    """The portal named by ``--server``; a ``UsageError`` unless it is an http(s) address of a host."""
    hidden = re.sub(r"//[^/]*@", "//", text)  # a name or password written in the address is not repeated
    usage = f"--server {hidden}: give the portal's address, like https://nim.example.edu"
    if any(char.isspace() or not char.isprintable() for char in text.strip()):
        raise UsageError(f"{usage}, with no spaces or control characters in it.")
    try:
        parts = urllib.parse.urlsplit(text.strip())
        port = parts.port
    except ValueError:
        raise UsageError(f"{usage}.") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{usage} (http:// or https://).")
    if parts.username is not None or parts.password is not None:
        raise UsageError(f"{usage}, with no name or password in it: the token goes in --token or NIM_GRADER_TOKEN.")
    if parts.query or parts.fragment:
        raise UsageError(f"{usage}, without ? or #.")
    scheme, host = parts.scheme.lower(), parts.hostname
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{port}" if port is not None else ""
    base = urllib.parse.urlunsplit((scheme, netloc, parts.path.rstrip("/"), "", ""))
    return Portal(base=base, shown=base, host=host, in_clear=scheme == "http" and not _is_local(host))


def _is_local(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def checked_token(token: Optional[str]) -> str:
    """The token, stripped of the white space copying adds; a ``UsageError`` (never quoting it) when
    there is none or it holds characters no token has (they would also break the request's header)."""
    token = (token or "").strip()
    if not token:
        raise UsageError(f"no token: pass --token TOKEN or set NIM_GRADER_TOKEN ({_TOKEN_HELP}).")
    if len(token) > 1000 or not all("!" <= char <= "~" for char in token):
        raise UsageError(
            "the token holds characters no token has (spaces, line breaks, letters outside ASCII): "
            "copy it again exactly as your instructor gave it."
        )
    return token


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are answers, not followed: following one would send the token to another address."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class PortalClient:
    """The calls ``submit`` makes, as one student (their token) on one portal."""

    def __init__(self, portal: Portal, token: str, timeout_s: float = REQUEST_TIMEOUT_S) -> None:
        self.portal = portal
        self._token = token
        self._timeout_s = timeout_s
        self._opener = urllib.request.build_opener(_NoRedirects())

    def __repr__(self) -> str:  # never the token, even in a debugging session
        return f"PortalClient({self.portal.shown})"

    def submission_url(self, submission_id: str) -> str:
        return f"{self.portal.base}/api/submissions/{urllib.parse.quote(submission_id, safe='')}"

    def submission_page(self, submission_id: str) -> str:
        """The submission's page on the portal (``/submissions/ID/``), the one a student opens."""
        return f"{self.portal.base}/submissions/{urllib.parse.quote(submission_id, safe='')}/"

    def page_url(self, url: str) -> str:
        """A URL of the portal's answer made absolute on the portal's address."""
        return urllib.parse.urljoin(self.portal.base + "/", url)

    def tasks(self) -> Dict[str, Tuple[str, ...]]:
        """``GET /api/tasks``: the ids of the tasks the portal takes, each with the ids of the tasks
        whose files it imports (``uses_files``; none where the portal does not say)."""
        answer = self._json("GET", "/api/tasks", {})
        if not isinstance(answer, list) or not all(isinstance(t, dict) and _is_id(t.get("id")) for t in answer):
            raise self._junk("a task list without task ids")
        uses = [t.get("uses_files") if isinstance(t.get("uses_files"), list) else [] for t in answer]
        return {str(t["id"]): tuple(u for u in used if _is_id(u)) for t, used in zip(answer, uses)}

    def hand_in(self, task: str, filename: str, data: bytes, also: Sequence[Tuple[str, bytes]] = ()) -> HandedIn:
        """``POST /api/submissions``: ``data`` handed in as ``task``, with the files ``also`` (file
        name, bytes) it imports, graded together."""
        files = [("file", filename, data), *(("also", name, text) for name, text in also)]
        content_type, body = multipart({"task": task}, files)
        answers = {
            400: f"the portal has no task {task}: name the file after its task or pass --task.",
            413: (
                f"the portal refused the file as too large (the grader takes at most {size_limit()} a file): "
                "hand in the exercise file itself."
            ),
        }
        answer = self._json("POST", "/api/submissions", answers, body, content_type)
        if not isinstance(answer, dict) or not _is_id(answer.get("id")) or answer.get("status") not in STATUSES:
            raise self._junk("a submission without an id or a status")
        submission_id = str(answer["id"])
        said = answer.get("files")
        taken = tuple(said) if isinstance(said, list) and all(isinstance(n, str) for n in said) else None
        url, late = self.submission_url(submission_id), answer.get("late") is True
        return HandedIn(submission_id, answer["status"], url, late, taken)

    def submission(self, submission_id: str) -> SubmissionState:
        """``GET /api/submissions/ID``: where the submission is, and its results once done."""
        path = f"/api/submissions/{urllib.parse.quote(submission_id, safe='')}"
        answers = {404: f"the portal has no submission {submission_id} of yours: hand the file in again."}
        return self._state(self._json("GET", path, answers))

    def _state(self, answer: Any) -> SubmissionState:
        if not isinstance(answer, dict) or answer.get("status") not in STATUSES or not _is_id(answer.get("id")):
            raise self._junk("a submission without an id or a status")
        task = answer.get("task")
        if not isinstance(task, str):
            raise self._junk("a submission without its task")
        report = answer.get("report_url")
        report_url = self.page_url(report) if isinstance(report, str) and report else ""
        late = answer.get("late") is True
        state = SubmissionState(str(answer["id"]), task, answer["status"], report_url=report_url, late=late)
        if state.status != "done":
            return state
        cases = answer.get("cases")
        numbers = [answer.get("score"), answer.get("max_score")]
        if answer.get("verdict") not in _VERDICTS or not all(_is_number(n) for n in numbers):
            raise self._junk("a finished submission without a verdict or a score")
        if not isinstance(cases, list) or not all(_is_case(c) for c in cases):
            raise self._junk("a finished submission whose cases are not name, verdict and message")
        public_only = answer.get("public_only") is True  # its hidden cases wait, not run: nothing to fix
        waits = [public_only and c.get("hidden") is True and c["verdict"] == "not_run" for c in cases]
        shown = tuple(CaseState(c["name"], c["verdict"], c.get("message") or "", w) for c, w in zip(cases, waits))
        notes = tuple(n for n in answer.get("notes") or () if isinstance(n, str))
        score, top = float(answer["score"]), float(answer["max_score"])
        verdict, said = answer["verdict"], {key: answer.get(key) for key in ("cause", "known_mistake")}
        return SubmissionState(state.id, task, "done", verdict, score, top, shown, report_url, notes, late, said)

    def _json(self, method: str, path: str, answers: Dict[int, str], body=None, content_type: str = "") -> Any:
        """The JSON of a 2xx answer to one call; any other answer a ``PortalError`` (``answers``
        words the statuses that mean something of their own to this call)."""
        status, headers, data = self._call(method, path, body, content_type)
        if 200 <= status < 300:
            try:
                return json.loads(data.decode("utf-8"))
            except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested beyond what Python parses
                raise self._junk("not JSON") from None
        if status == 400 and 400 in answers:
            said = _error_sentence(data)  # the portal's own words: why it refused the file (not text, another task's)
            raise PortalError(f"the portal refused it: {said}" if said else answers[status])
        if status in answers:
            raise PortalError(answers[status])
        raise PortalError(self._status_sentence(status, headers))

    def _status_sentence(self, status: int, headers) -> str:
        shown = self.portal.shown
        if status == 401:
            return f"the token was refused: make a new one on the portal's account page, {shown}/account/ (signed in)."
        if status == 403:
            return f"the portal at {shown} does not let this account do that: ask your instructor."
        if status == 413:
            return f"the portal refused the request as too large (the grader takes at most {size_limit()} a file)."
        if status == 429:
            when = retry_after(headers.get("Retry-After"))
            return f"the portal takes hand-ins more slowly than this: try again {when}."
        if 300 <= status < 400:
            where = (headers.get("Location") or "another address")[:200]
            return f"the portal at {shown} sends its visitors to {where}: pass that address as --server."
        if status == 404:
            return f"there is no portal API at {shown} (404): check the address given to --server."
        if status >= 500:
            return (
                f"the portal at {shown} failed (HTTP {status}): try again in a few minutes, and tell your "
                "instructor if it keeps failing."
            )
        return f"the portal at {shown} answered HTTP {status}, which its API never does: check --server."

    def _junk(self, what: str) -> PortalError:
        return PortalError(
            f"the portal at {self.portal.shown} answered something its API never does ({what}): check the address "
            "given to --server, and tell your instructor if it is right."
        )

    def _call(self, method: str, path: str, body: Optional[bytes], content_type: str):
        """(status, headers, at most MAX_ANSWER_BYTES of the body) of one call, or a ``PortalError``."""
        headers = {"Authorization": f"Token {self._token}", "Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.portal.base + path, data=body, headers=headers, method=method)
        deadline = time.monotonic() + self._timeout_s
        try:
            try:
                with self._opener.open(request, timeout=self._timeout_s) as response:
                    return response.status, response.headers, self._read(response, deadline)
            except urllib.error.HTTPError as error:  # an answer all the same: 4xx, 5xx, a redirect
                with error:
                    return error.code, error.headers, self._read(error, deadline) if error.fp else b""
        except urllib.error.URLError as error:
            raise PortalError(self._network_sentence(error.reason)) from None
        except http.client.RemoteDisconnected as error:  # an HTTPException too, but a network fault
            raise PortalError(self._network_sentence(error)) from None
        except http.client.HTTPException:  # a status line or headers that are not HTTP
            raise self._junk("not HTTP") from None
        except OSError as error:  # a time-out, or the connection broken while reading
            raise PortalError(self._network_sentence(error)) from None

    def _read(self, response, deadline: float) -> bytes:
        length = response.headers.get("Content-Length", "")
        if length.strip().isdigit() and len(length) < 20 and int(length) > MAX_ANSWER_BYTES:
            raise self._junk(f"an answer larger than {MAX_ANSWER_BYTES // 1024 // 1024} MiB")
        chunks: List[bytes] = []
        size = 0
        while True:
            if time.monotonic() > deadline:  # an answer trickling in a byte at a time
                raise socket.timeout()
            chunk = response.read(min(65536, MAX_ANSWER_BYTES + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise self._junk(f"an answer larger than {MAX_ANSWER_BYTES // 1024 // 1024} MiB")

    def _network_sentence(self, reason: Any) -> str:
        shown, host = self.portal.shown, self.portal.host
        if isinstance(reason, socket.gaierror):
            return f"the server name {host} could not be found: check the address given to --server and your network."
        if isinstance(reason, ConnectionRefusedError):
            return f"the portal at {shown} refused the connection: check --server, or whether the portal is running."
        if isinstance(reason, ssl.SSLCertVerificationError):
            return (
                f"the portal at {shown} could not prove it is {host} (its TLS certificate: "
                f"{reason.verify_message or 'not trusted'}): check --server, and hand nothing in there until "
                "your instructor says the address is right."
            )
        if isinstance(reason, ssl.SSLError):
            return (
                f"no secure (TLS) connection could be made to {shown} ({reason.reason or 'TLS failed'}): "
                "check that --server is the portal's https:// address."
            )
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return f"the portal at {shown} did not answer within {self._timeout_s:g} s: try again later."
        if isinstance(reason, ConnectionResetError):
            return f"the portal at {shown} closed the connection without answering: try again in a while."
        words = getattr(reason, "strerror", None) or type(reason).__name__
        return f"the portal at {shown} could not be reached ({words}): check --server and your network."


def size_limit() -> str:
    """The grader's limit on a file handed in, for a sentence: ``1 MiB``."""
    if MAX_SOURCE_BYTES % (1024 * 1024) == 0:
        return f"{MAX_SOURCE_BYTES // 1024 // 1024} MiB"
    return f"{MAX_SOURCE_BYTES // 1024} KiB"


def retry_after(value: Optional[str]) -> str:
    """When to try again, from a ``Retry-After`` header (seconds, or an HTTP date): ``in 2 minutes``."""
    value = (value or "").strip()
    seconds = None
    if value.isdigit() and len(value) < 10:
        seconds = int(value)
    elif value:
        try:
            seconds = math.ceil(email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError, OverflowError):
            seconds = None
    if seconds is None:
        return "in a little while"
    if seconds <= 1:
        return "in a second"
    if seconds < 120:
        return f"in {seconds} seconds"
    return f"in {math.ceil(seconds / 60)} minutes"


def _is_id(value: Any) -> bool:
    if isinstance(value, (bool, int)):
        return not isinstance(value, bool)
    return isinstance(value, str) and 0 < len(value) <= 200 and value.isprintable()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_case(case: Any) -> bool:
    return (
        isinstance(case, dict)
        and isinstance(case.get("name"), str)
        and case.get("verdict") in _VERDICTS
        and isinstance(case.get("message"), (str, type(None)))
    )


def _error_sentence(data: bytes) -> str:
    """The ``error`` sentence of a JSON refusal, made safe for a terminal and kept short ("" for none)."""
    try:
        answer = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return ""
    said = answer.get("error") if isinstance(answer, dict) else None
    return for_terminal(said[:500]) if isinstance(said, str) and said.strip() else ""
