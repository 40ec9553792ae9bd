"""What the portal answers when a request cannot be served: JSON under the API, a plain page elsewhere.

In: a request and the answer (or exception) of the views behind. Out:
- under ``/api/`` (and ``/healthz``) every error is JSON ``{"error": sentence}``, whatever made it:
  an unknown address (404), a method the address does not take (405), a host the portal does not
  answer to (400), the grader's own failure (500, its traceback in the error log by Django's
  ``django.request`` logger); ``ApiErrors``, a middleware;
- a course that never loaded in this process: 503 with the sentence naming the file, line and
  problem (JSON under the API, a plain page elsewhere);
- a request whose address, query or form fields hold a NUL character (no database keeps it in
  text: PostgreSQL refuses it with an error): 400 with a sentence, before any view (``RefuseNul``);
- the pages' 404 and 500 (``page_not_found``, ``server_error``, Django's ``handler404`` and
  ``handler500``), and their 400 and 503: a short page styled as the others (``web/failure.html``)
  with a way back to the start page, never a traceback or Django's debug text (the 404 with the
  portal's menu of the signed-in user; the others read nothing of the database, which may be what
  failed, and fall back to a bare page should even the template fail).
"""

from __future__ import annotations

import logging
from html import escape

from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

from grader.web.worker.course_state import CourseUnavailable

_SENTENCES = {
    400: "the request could not be read, or names a host this portal does not answer to",
    403: "this is not allowed for this account",
    404: "there is no such address in the API (see the HTTP API in portal.md)",
    405: "this address does not take {method}",
    413: "the request is larger than the portal takes",
    500: "the portal failed on this request; its error log says why (DATA/logs/error.log)",
}


def _api(request) -> bool:
    return request.path.startswith("/api/") or request.path in ("/api", "/healthz")


def _plain(status: int, title: str, sentence: str, request=None) -> HttpResponse:
    """The page of a failure: ``title`` and ``sentence``, styled as the portal's pages, with a way
    back; ``request`` (None: nothing read from the database) gives it the signed-in user's menu."""
    try:
        page = render_to_string("web/failure.html", {"title": title, "sentence": sentence}, request=request)
    except Exception:  # a failure page never fails: the bare one, with nothing that could
        logging.getLogger("django.request").exception("the failure page could not be rendered")
        page = _bare(title, sentence)
    return HttpResponse(page, status=status, content_type="text/html; charset=utf-8")


def _bare(title: str, sentence: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1"></head>'
        f'<body><h1>{escape(title)}</h1><p>{escape(sentence)}</p><p><a href="/">The portal\'s start page</a></p>'
        "</body></html>"
    )


class ApiErrors:
    """A middleware: any error answered under ``/api/`` in JSON; a course that never loaded, a 503."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not _api(request) or response.status_code < 400 or response.get("Content-Type") == "application/json":
            return response
        sentence = _SENTENCES.get(response.status_code, response.reason_phrase.lower())
        method = "".join(c for c in (request.method or "")[:16] if c.isalnum()) or "that method"
        answer = JsonResponse({"error": sentence.format(method=method)}, status=response.status_code)
        for header in ("Allow", "Retry-After"):
            if response.has_header(header):
                answer[header] = response[header]
        return answer

    def process_exception(self, request, exception):
        """A view's ``CourseUnavailable`` as a 503 (others go on to Django: logged, then a 500)."""
        if not isinstance(exception, CourseUnavailable):
            return None
        if _api(request):
            return JsonResponse({"error": str(exception)}, status=503)
        return _plain(503, "The course cannot be loaded", str(exception)[0].upper() + str(exception)[1:])


class RefuseNul:
    """A middleware: a NUL character in the path, the query or an url-encoded form is a 400 with a
    sentence (JSON under the API), whatever view the request was for (uploaded files are bytes and
    may hold anything)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        fields = [request.path]
        forms = [request.GET]
        if request.method == "POST" and request.content_type == "application/x-www-form-urlencoded":
            forms.append(request.POST)
        for form in forms:
            for key, values in form.lists():
                fields += [key, *values]
        if any("\x00" in field for field in fields):
            sentence = "the request holds a NUL character (\\0), which no field of the portal takes"
            if _api(request):
                return JsonResponse({"error": sentence}, status=400)
            return _plain(400, "Not understood", sentence[0].upper() + sentence[1:] + ".")
        return self.get_response(request)


def page_not_found(request, exception=None) -> HttpResponse:
    """Django's ``handler404``: a plain page (the API's 404s become JSON in ``ApiErrors``)."""
    return _plain(404, "Not found", "There is no such page here, or it is not yours to see.", request)


def server_error(request) -> HttpResponse:
    """Django's ``handler500``: a plain page; the traceback goes to the error log, never to the page."""
    return _plain(500, "The portal failed", "The portal failed on this page; its error log says why. Try again later.")
