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


def whole_numbers_as_integers(value):
    """`value` with every whole float (`2.0`) written as the integer it is (`2`)."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: whole_numbers_as_integers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers_as_integers(v) for v in value]
    return value


@schemathesis.hook
def before_call(context, case, kwargs):
    """Writes whole numbers in JSON bodies as integers.

    The document is OpenAPI 3.1, whose schemas are JSON Schema 2020-12: there `2.0` is an
    integer, and schemathesis sends integers of JSON bodies as `2.0` now and then. chessd reads
    its integer fields with serde, which takes `2` and refuses `2.0` (`invalid_request`); clients
    write integers as integers. The value is the same, so the case stays what it was generated
    as (valid or not).
    """
    if isinstance(case.body, (dict, list)):
        case.body = whole_numbers_as_integers(case.body)


@schemathesis.auth(refresh_interval=None)
class LinkedSecret:
    """The `Authorization` header a link filled in from a creation answer, if any."""

    def get(self, case, context):
        value = (case.headers or {}).get("Authorization")
        return value if isinstance(value, str) and SECRET.fullmatch(value) else None

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = data
