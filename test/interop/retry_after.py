"""Retries a refused request the way a Python learner would: with urllib3's
Retry mounted on a requests Session, which reads Retry-After on a 503 and
sleeps that long before the retry (nothing of ours decides the wait).

    python retry_after.py URL API_KEY

Prints one JSON object with the statuses requests saw and how long it took.
"""
import json
import sys
import time

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry


def main(url, api_key):
    # One retry, on 503, honouring Retry-After; the last answer is returned rather than raised.
    retry = Retry(total=1, status_forcelist=[503], respect_retry_after_header=True, raise_on_status=False, allowed_methods=None)
    session = requests.Session()
    session.mount("http://", HTTPAdapter(max_retries=retry))
    started = time.monotonic()
    answer = session.get(url, headers={"X-API-Key": api_key}, timeout=30)
    print(
        json.dumps(
            {
                "status": answer.status_code,
                "retry_after": answer.headers.get("Retry-After"),
                "retries": len(answer.raw.retries.history) if answer.raw.retries else 0,
                "seconds": round(time.monotonic() - started, 3),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
