"""Runs the sandbox's OAuth flows the way a Python learner would, with
requests-oauthlib (a third-party client on oauthlib: its own signature base
strings, PKCE, token parsing and refresh), and PyJWT to verify an access token
against the published JWKS as a resource server would (PyJWKClient picks the
key by the token's kid). Nothing here is the sandbox's code.

    python oauth_flows.py BASE_URL APP_ID APP_SECRET API_KEY REDIRECT_URI

Prints one JSON object with what each flow got, for the test to check:
  oauth1: the three legs with HMAC-SHA1, then the protected call
  client_credentials: OAuth2Session with BackendApplicationClient, then the
                      access token verified with PyJWT against the JWKS that
                      the RFC 8414 metadata names
  authorization_code: OAuth2Session with PKCE (S256), the 302 followed by hand,
                      then a refresh with the refresh token
"""
import json
import os
import sys

import jwt
import requests
from oauthlib.oauth2 import BackendApplicationClient
from requests_oauthlib import OAuth1Session, OAuth2Session

# The sandbox runs on http://127.0.0.1 in the tests; oauthlib refuses plain
# HTTP unless told it is a local test.
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"


# OAuth1Session reads the token endpoints' answers in the RFC's form encoding
# only; the sandbox answers JSON unless asked for that (docs/oauth.md).
FORM_ENCODED = {"Accept": "application/x-www-form-urlencoded"}


def oauth1(base, app_id, api_key):
    session = OAuth1Session(app_id, client_secret=api_key, callback_uri="oob", signature_method="HMAC-SHA1")
    session.headers.update(FORM_ENCODED)
    temporary = session.fetch_request_token(f"{base}/oauth1/request_token")
    # Leg 2 is the user's approval in a browser; the sandbox approves at once and answers the verifier.
    approved = requests.get(f"{base}/oauth1/authorize", params={"oauth_token": temporary["oauth_token"]}, timeout=30)
    approved.raise_for_status()
    verifier = approved.json()["oauth_verifier"]
    session = OAuth1Session(
        app_id,
        client_secret=api_key,
        resource_owner_key=temporary["oauth_token"],
        resource_owner_secret=temporary["oauth_token_secret"],
        verifier=verifier,
        signature_method="HMAC-SHA1",
    )
    session.headers.update(FORM_ENCODED)
    access = session.fetch_access_token(f"{base}/oauth1/access_token")
    session = OAuth1Session(
        app_id,
        client_secret=api_key,
        resource_owner_key=access["oauth_token"],
        resource_owner_secret=access["oauth_token_secret"],
        signature_method="HMAC-SHA1",
    )
    protected = session.get(f"{base}/playground/auth/oauth1", params={"note": "signed query"}, timeout=30)
    replayed = requests.get(protected.request.url, headers={"Authorization": protected.request.headers["Authorization"]}, timeout=30)
    return {
        "callback_confirmed": temporary.get("oauth_callback_confirmed"),
        "protected_status": protected.status_code,
        "protected_body": protected.json(),
        "replayed_status": replayed.status_code,
        "replayed_body": replayed.json(),
    }


def client_credentials(base, app_id, app_secret):
    session = OAuth2Session(client=BackendApplicationClient(client_id=app_id))
    token = session.fetch_token(f"{base}/oauth/token", client_id=app_id, client_secret=app_secret, scope=["hr:read"])
    data = session.get(f"{base}/playground/data/hr/employees", params={"page_size": 2}, timeout=30)
    metadata = requests.get(f"{base}/.well-known/oauth-authorization-server", timeout=30).json()
    access = token["access_token"]
    key = jwt.PyJWKClient(metadata["jwks_uri"]).get_signing_key_from_jwt(access)
    # The algorithms a resource server accepts; the header's alg must be one of them and the key's.
    claims = jwt.decode(access, key.key, algorithms=["ES256", "EdDSA", "RS256"], audience=f"{metadata['issuer']}/playground", issuer=metadata["issuer"])
    return {
        "token_fields": sorted(token.keys()),
        "scope": token.get("scope"),
        "data_status": data.status_code,
        "rows": len(data.json().get("data", [])),
        "verified": {"alg": jwt.get_unverified_header(access)["alg"], "kid": key.key_id, "sub": claims["sub"], "client_id": claims["client_id"]},
    }


def authorization_code(base, app_id, app_secret, redirect_uri):
    session = OAuth2Session(app_id, redirect_uri=redirect_uri, scope=["hr:read", "stocks:read"], pkce="S256")
    url, state = session.authorization_url(f"{base}/oauth/authorize")
    # A browser would follow the 302 to the app's redirect URI; here the Location is read by hand.
    answer = requests.get(url, allow_redirects=False, timeout=30)
    location = answer.headers["Location"]
    token = session.fetch_token(f"{base}/oauth/token", authorization_response=location, client_secret=app_secret)
    first_access = token["access_token"]
    refreshed = session.refresh_token(f"{base}/oauth/token", client_id=app_id, client_secret=app_secret)
    # Again, with the refresh token the first refresh rotated in (the session keeps it): a rotation followed through.
    refreshed_again = session.refresh_token(f"{base}/oauth/token", client_id=app_id, client_secret=app_secret)
    data = session.get(f"{base}/playground/data/stocks/tickers", params={"page_size": 1}, timeout=30)
    return {
        "redirect_status": answer.status_code,
        "state_round_trip": f"state={state}" in location,
        "token_fields": sorted(token.keys()),
        "refreshed_fields": sorted(refreshed.keys()),
        "access_token_changed": refreshed["access_token"] != first_access,
        "rotated_twice": refreshed_again["refresh_token"] not in (token["refresh_token"], refreshed["refresh_token"]),
        "data_status": data.status_code,
    }


def main(base, app_id, app_secret, api_key, redirect_uri):
    print(
        json.dumps(
            {
                "oauth1": oauth1(base, app_id, api_key),
                "client_credentials": client_credentials(base, app_id, app_secret),
                "authorization_code": authorization_code(base, app_id, app_secret, redirect_uri),
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
