"""Authenticates to the sandbox's auth playground the way a Python learner
would, with third-party code only: requests' HTTPBasicAuth and HTTPDigestAuth
(their own header building, challenge parsing and nonce counting) and PyJWT
(its own RS256 verification, from the published PEM and from the JWKS).

    python auth_styles.py BASE_URL APP_ID APP_SECRET API_KEY

Prints one JSON object with what each style got, for the test to check.
"""
import json
import sys

import jwt
import requests
from requests.auth import HTTPBasicAuth, HTTPDigestAuth


def digest(base, app_id, api_key, algorithm=None):
    session = requests.Session()
    session.auth = HTTPDigestAuth(app_id, api_key)
    params = {"algorithm": algorithm} if algorithm else None
    first = session.get(f"{base}/playground/auth/digest", params=params, timeout=30)
    # A second request on the same session reuses the nonce with the next nonce count.
    second = session.get(f"{base}/playground/auth/digest", params=params, timeout=30)
    return {"status": [first.status_code, second.status_code], "style": first.json().get("style"), "sent": first.request.headers.get("Authorization", "")}


def main(base, app_id, app_secret, api_key):
    basic = requests.get(f"{base}/playground/auth/basic", auth=HTTPBasicAuth(app_id, app_secret), timeout=30)
    wrong_basic = requests.get(f"{base}/playground/auth/basic", auth=HTTPBasicAuth(app_id, "as_wrong"), timeout=30)

    issued = requests.post(f"{base}/playground/auth/jwt/issue", auth=HTTPBasicAuth(app_id, app_secret), timeout=30).json()
    pem = requests.get(f"{base}/playground/auth/jwt/public-key", timeout=30).json()["pem"]
    from_pem = jwt.decode(issued["rs256"], pem, algorithms=["RS256"], audience=issued["audience"], issuer=issued["issuer"])
    signing_key = jwt.PyJWKClient(issued["jwks_uri"]).get_signing_key_from_jwt(issued["rs256"])
    from_jwks = jwt.decode(issued["rs256"], signing_key.key, algorithms=["RS256"], audience=issued["audience"])
    # The HS256 token is keyed with the API key, which the learner holds.
    from_api_key = jwt.decode(issued["hs256"], api_key, algorithms=["HS256"], audience=issued["audience"])

    print(
        json.dumps(
            {
                "basic": {"status": basic.status_code, "style": basic.json().get("style"), "wrong_status": wrong_basic.status_code, "wrong_challenge": wrong_basic.headers.get("WWW-Authenticate")},
                "digest_default": digest(base, app_id, api_key),
                "digest_sha256": digest(base, app_id, api_key, "SHA-256"),
                "digest_md5": digest(base, app_id, api_key, "MD5"),
                "jwt": {"sub_from_pem": from_pem["sub"], "sub_from_jwks": from_jwks["sub"], "kid": signing_key.key_id, "sub_from_api_key": from_api_key["sub"]},
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
