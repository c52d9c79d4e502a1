"""Schemathesis hooks for chessd (loaded by tests/schemathesis/schemathesis.toml).

The document's OpenAPI links copy a creation answer's secret into the `Authorization` header of
the operations on that game or job. Schemathesis takes every header it did not set from its own
auth configuration as generated (random) credentials, so its `ignored_auth` check would read a
real secret's 2xx as "the API accepts invalid credentials". This provider tells it which
credentials are real: a bearer secret of chessd's form (32 lowercase hex digits) that is already
on the request. `ignored_auth` then does what it is for: it sends the same request without the
secret and with a wrong one, and fails unless chessd refuses both.
"""

import re

import schemathesis

SECRET = re.compile(r"Bearer [0-9a-f]{32}")


@schemathesis.auth(refresh_interval=None)
class LinkedSecret:
    """The `Authorization` header a link filled in from a creation answer, if any."""

    def get(self, case, context):
        value = (case.headers or {}).get("Authorization")
        return value if isinstance(value, str) and SECRET.fullmatch(value) else None

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = data
