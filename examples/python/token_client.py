#!/usr/bin/env python3
"""A partner's Python client against the fake: authlib's OAuth2Session, the client-credentials grant.

    python3 examples/python/token_client.py http://localhost:8080 sandbox-client sandbox-secret client_secret_post

The last argument is the client's token_endpoint_auth_method, as GET /__control/clients shows it. authlib
defaults to client_secret_basic: a client registered for client_secret_post (the fake's default, as production's)
must say so, or the token endpoint answers 401 invalid_client naming both methods.

Prints one JSON line: the token's scope and the status of GET /v1/share-classes, or the OAuth error.
Needs requests and authlib (Debian: apt-get install python3-requests python3-authlib).
"""
import json
import sys
from urllib.parse import urlsplit

import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session


def main(base_url: str, client_id: str, client_secret: str, auth_method: str) -> dict:
    discovery = requests.get(f"{base_url}/.well-known/openid-configuration", timeout=10).json()
    if auth_method not in discovery["token_endpoint_auth_methods_supported"]:
        return {"error": "unsupported_by_discovery", "methods": discovery["token_endpoint_auth_methods_supported"]}
    session = OAuth2Session(client_id, client_secret, token_endpoint_auth_method=auth_method, scope="openid offline")
    try:
        # the audience is the host part of the URL the client calls
        token = session.fetch_token(discovery["token_endpoint"], grant_type="client_credentials", audience=urlsplit(base_url).netloc)
    except OAuthError as error:
        return {"error": error.error, "error_description": error.description}
    listed = session.get(f"{base_url}/v1/share-classes", params={"limit": 1}, timeout=10)
    return {"scope": token["scope"], "token_type": token["token_type"], "share_classes_status": listed.status_code}


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    print(json.dumps(main(*sys.argv[1:])))
