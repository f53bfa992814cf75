"""Pages through a Training Sandbox data entity the way a Python learner would,
with requests (a third-party client: its own URL encoding, its own RFC 8288
Link parser in Response.links, keep-alive sessions). Each style uses only what
that style gives the client.

    python page_through.py FIRST_URL API_KEY STYLE AUTH [MAX_REQUESTS]

STYLE: page | offset | cursor | token | link | nextLink
AUTH:  header (x-api-key) | query (api_key=..., as Power Query users often do)
MAX_REQUESTS: stop after this many pages (for the 1,000,000-row entity)

Prints one JSON object: {"total": N, "rows": [...], "requests": N}.
"""
import json
import sys
from urllib.parse import urljoin

import requests

PAGE_SIZE = 250


def main(first_url: str, api_key: str, style: str, auth: str, max_requests: str = "10000") -> None:
    session = requests.Session()
    key_params = {}
    if auth == "header":
        session.headers["x-api-key"] = api_key
    else:
        key_params = {"api_key": api_key}

    def get(url, params=None):
        response = session.get(url, params=params, timeout=30)
        response.raise_for_status()
        return response

    first_params = {
        "page": {"page": 1, "page_size": PAGE_SIZE},
        "offset": {"offset": 0, "limit": PAGE_SIZE},
        "cursor": {"paginate": "cursor", "page_size": PAGE_SIZE},
        "token": {"paginate": "token", "page_size": PAGE_SIZE},
        "link": {"paginate": "link", "page_size": PAGE_SIZE},
        "nextLink": {"paginate": "cursor", "page_size": PAGE_SIZE},
    }[style]
    response = get(first_url, {**key_params, **first_params})
    body = response.json()
    total = body["pagination"]["total"]
    rows = list(body["data"])
    requests_made = 1

    while requests_made < int(max_requests):
        pagination = body["pagination"]
        if style == "page":
            number = requests_made + 1
            if pagination["returned"] == 0 or number > pagination["total_pages"]:
                break
            response = get(first_url, {**key_params, "page": number, "page_size": PAGE_SIZE})
        elif style == "offset":
            offset = requests_made * PAGE_SIZE
            if offset >= total:
                break
            response = get(first_url, {**key_params, "offset": offset, "limit": PAGE_SIZE})
        elif style == "cursor":
            if pagination["next"] is None:
                break
            # The relative link, resolved against the page's own URL (the absolute next_url would do too).
            response = get(urljoin(response.url, pagination["next"]))
        elif style == "token":
            token = body.get("nextPageToken")
            if not token:
                break
            response = get(first_url, {**key_params, "paginate": "token", "page_size": PAGE_SIZE, "pageToken": token})
        elif style == "link":
            following = response.links.get("next")
            if not following:
                break
            response = get(following["url"])
        elif style == "nextLink":
            if "nextLink" not in body:
                break
            response = get(body["nextLink"])
        body = response.json()
        rows.extend(body["data"])
        requests_made += 1

    print(json.dumps({"total": total, "rows": rows, "requests": requests_made}))


if __name__ == "__main__":
    main(*sys.argv[1:6])
