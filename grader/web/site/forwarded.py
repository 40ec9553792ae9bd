"""Who a request really comes from, behind a reverse proxy, for the WSGI application (``wsgi``);
``serve`` has waitress do the same (``serve --proxy``).

In: a WSGI application and the proxy's address. Out: the application, seeing the client's address
and scheme on requests from the proxy, and no forwarded header from anyone else (a student cannot
claim another address to dodge the sign-in limits).
"""

from __future__ import annotations


class ForwardedBy:
    """WSGI middleware: a request from ``proxy`` gets the client's address (the last
    ``X-Forwarded-For`` entry, the one the proxy added) and scheme; from anyone else, neither header
    is believed, and both are removed."""

    def __init__(self, app, proxy: str) -> None:
        self.app, self.proxy = app, proxy

    def __call__(self, environ, start_response):
        forwarded = environ.pop("HTTP_X_FORWARDED_FOR", "")
        scheme = environ.pop("HTTP_X_FORWARDED_PROTO", "")
        if self.proxy and environ.get("REMOTE_ADDR") == self.proxy:
            client = forwarded.split(",")[-1].strip()
            if client:
                environ["REMOTE_ADDR"] = client
            if scheme in ("http", "https"):
                environ["wsgi.url_scheme"] = scheme
        return self.app(environ, start_response)
