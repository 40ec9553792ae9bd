"""A submission's page while it waits to be graded: it asks the portal whether the submission still
waits, every 2 s, and reloads once, when it is graded.

Why not a page that reloads itself (``<meta http-equiv="refresh">``, as before): each reload loses a
screen reader's place and a keyboard's focus, every 2 s (axe-core's ``meta-refresh``, critical). The
portal's pages allow no script (``login.PAGE_POLICY``); this page, while it waits, allows this one
script by its hash (``WAIT_POLICY``) and nothing else. Without scripts the page says so and has a
Refresh link.

In: a row (``waits``). Out: whether it waits, the script and the page's policy; the page's question
is answered by ``views_student.submission_status`` (``{"waiting": true|false}``).
"""

from __future__ import annotations

import base64
import hashlib

from grader.web.models import DONE, ERROR, Submission
from grader.web.site.login import PAGE_POLICY

# Asks /submissions/N/status (this page's address + "status"); reloads once it no longer waits.
WAIT_SCRIPT = (
    "(function(){var u=location.pathname.replace(/\\/?$/,'/')+'status';"
    "function look(){fetch(u,{credentials:'same-origin',headers:{'Accept':'application/json'}})"
    ".then(function(r){return r.ok?r.json():{waiting:true};})"
    ".then(function(s){if(s.waiting){setTimeout(look,2000);}else{location.reload();}})"
    ".catch(function(){setTimeout(look,5000);});}"
    "setTimeout(look,2000);})();"
)
_HASH = base64.b64encode(hashlib.sha256(WAIT_SCRIPT.encode("utf-8")).digest()).decode("ascii")
WAIT_POLICY = PAGE_POLICY.replace("script-src 'none'", f"script-src 'sha256-{_HASH}'")


def waits(row: Submission) -> bool:
    """Whether ``row`` is still owed a grading (queued, running, or a regrade owed)."""
    return bool(row.pending or row.status not in (DONE, ERROR))
