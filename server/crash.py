"""Test-only fault injection, read once per process: ``STABLEMASTER_TEST_CRASH=<point>`` makes
the process exit at once (``os._exit``, as a SIGKILL would leave it) when it reaches that
point. The fault suite (tests/test_faults.py) uses it; never set it in production.

- ``create_claimed``: a ``create_encounter`` claimed its id, nothing is appended yet;
- ``create_appended``: it appended, and the claim does not record the outcome yet;
- ``campaign_begun``: a ``begin_encounter`` recorded the encounter in the campaign's log, the
  encounter itself is not created yet;
- ``encounter_ended``: an encounter of a campaign ended, its results are not written back yet.
"""

from __future__ import annotations

import logging
import os

TEST_CRASH_ENV = "STABLEMASTER_TEST_CRASH"

log = logging.getLogger("stablemaster.crash")
_AT = os.environ.get(TEST_CRASH_ENV, "")


def crash_point(point: str) -> None:
    if point == _AT:
        log.critical("test-only crash at %s (%s)", point, TEST_CRASH_ENV)
        logging.shutdown()
        os._exit(70)
