"""Uses the sandbox's HTTP-practice endpoints the way a Python learner would,
with requests (its own redirect handling and timeouts; nothing of ours).

    python http_practice.py BASE_URL

Prints one JSON object with what requests saw, for the test to check.
"""
import json
import sys

import requests


def main(base):
    # requests follows redirects itself; 302 turns a POST into a GET, 307 keeps it.
    followed = {}
    for status in (302, 307):
        answer = requests.post(f"{base}/playground/redirect", params={"n": 3, "status": status}, json={"hello": "world"}, timeout=30)
        final = answer.json()
        followed[str(status)] = {
            "status": answer.status_code,
            "hops": len(answer.history),
            "arrived_method": final["arrived"]["method"],
            "history_statuses": [r.status_code for r in answer.history],
        }
    not_followed = requests.get(f"{base}/playground/redirect", params={"n": 2}, allow_redirects=False, timeout=30)

    # A timeout shorter than the server's delay: requests gives up, and says so.
    try:
        requests.get(f"{base}/playground/timeout", params={"delay": 5000}, timeout=0.5)
        timed_out = False
    except requests.exceptions.Timeout:
        timed_out = True
    in_time = requests.get(f"{base}/playground/timeout", params={"delay": 100}, timeout=30)

    print(
        json.dumps(
            {
                "followed": followed,
                "not_followed": {"status": not_followed.status_code, "location": not_followed.headers.get("Location")},
                "timed_out": timed_out,
                "in_time": {"status": in_time.status_code, "delay_applied": in_time.headers.get("X-Delay-Applied-Ms")},
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
