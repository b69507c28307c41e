#!/usr/bin/env python3
"""An OAuth-protected MCP server for scripts/check_oauth.sh (PyPI `mcp` 2.3.0, `pyjwt[crypto]`).

  protected_server.py NAME PORT ISSUER [--scope SCOPE] [--require-audience]

Streamable HTTP at http://127.0.0.1:PORT/mcp, an OAuth 2.1 resource server built on the
SDK's own auth (MCPServer with `auth=AuthSettings(...)` and a `token_verifier`): a request
without a valid bearer token is answered 401 with `WWW-Authenticate: Bearer ...,
resource_metadata="http://127.0.0.1:PORT/.well-known/oauth-protected-resource/mcp"`, where
the RFC 9728 metadata names ISSUER as the authorization server and SCOPE (required on every
request, 403 insufficient_scope without it) as the supported scope. Tokens are JWTs checked
with PyJWT against ISSUER's JWKS (found through its /.well-known/openid-configuration):
signature (RS256), `iss` = ISSUER, `exp` (no leeway), and `aud` = this server's URL when the
token carries one (always, with --require-audience).

Tools: `whoami` (no arguments) says whose token called it (client_id, sub, scopes, aud);
`add` ({a: integer, b: integer}) returns a + b. Every request is logged on stderr with its
verdict — `NAME: 401 POST /mcp: expired token (refused: missing 1, invalid 0, expired 1,
audience 0, scope 0)` or `NAME: 200 POST /mcp client_id=...` — and every call as
`NAME: call add(2, 3)`; no token value is ever printed. Prints `protected server NAME ready`
on stdout once listening.
"""
import argparse
import contextvars
import json
import sys
import time
import urllib.request

import jwt
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

REFUSED = {"missing": 0, "invalid": 0, "expired": 0, "audience": 0, "scope": 0}
# What the verifier found out about the current request's token, for the request's log line.
verdict = contextvars.ContextVar("verdict", default=None)


def log(line):
    print(line, file=sys.stderr, flush=True)


class JwtVerifier:
    """The SDK's TokenVerifier: a JWT signed by the issuer's key, for this resource."""

    def __init__(self, issuer, resource, require_audience):
        self.issuer = issuer
        self.resource = resource
        self.require_audience = require_audience
        with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=10) as answer:
            self.jwks = jwt.PyJWKClient(json.load(answer)["jwks_uri"], cache_keys=True)

    async def verify_token(self, token):
        found = verdict.get()
        if found is None:  # not under RequestLog
            found = {}
        try:
            key = self.jwks.get_signing_key_from_jwt(token)
            unverified = jwt.decode(token, options={"verify_signature": False})
            check_audience = self.require_audience or "aud" in unverified
            claims = jwt.decode(
                token,
                key.key,
                algorithms=["RS256"],
                issuer=self.issuer,
                audience=self.resource if check_audience else None,
                options={"require": ["exp", "iss"], "verify_aud": check_audience, "strict_aud": True},
            )
        except jwt.ExpiredSignatureError:
            found.update(reason="expired token")
            return None
        except (jwt.InvalidAudienceError, jwt.MissingRequiredClaimError) as e:
            found.update(reason=f"wrong audience ({e})")
            return None
        except (jwt.PyJWTError, jwt.PyJWKClientError) as e:
            found.update(reason=f"invalid token ({type(e).__name__})")
            return None
        scopes = (claims.get("scope") or "").split()
        found.update(client_id=claims.get("client_id"), scopes=scopes, expires_in=claims["exp"] - int(time.time()))
        return AccessToken(
            token=token,
            client_id=claims.get("client_id") or claims.get("azp") or claims.get("sub") or "unknown",
            scopes=scopes,
            expires_at=claims["exp"],
            resource=claims.get("aud") if isinstance(claims.get("aud"), str) else None,
            subject=claims.get("sub"),
            claims={"iss": claims["iss"], "aud": claims.get("aud")},
        )


class RequestLog:
    """ASGI middleware around the whole app: one stderr line per request, with the verdict."""

    def __init__(self, app, name):
        self.app = app
        self.name = name

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        found = {}
        verdict.set(found)
        has_token = any(k == b"authorization" and v[:7].lower() == b"bearer " for k, v in scope["headers"])
        status = {}

        async def sending(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        await self.app(scope, receive, sending)
        code = status.get("code")
        where = f"{scope['method']} {scope['path']}"
        if code == 401:
            kind = "missing" if not has_token else next((k for k in ("expired", "audience") if k in found.get("reason", "")), "invalid")
            REFUSED[kind] += 1
            reason = "no bearer token" if not has_token else found.get("reason", "invalid token")
            log(f"{self.name}: 401 {where}: {reason} ({self.refused()})")
        elif code == 403:
            REFUSED["scope"] += 1
            log(f"{self.name}: 403 {where}: insufficient scope {found.get('scopes')} ({self.refused()})")
        elif "client_id" in found:
            log(f"{self.name}: {code} {where} client_id={found['client_id']} (token expires in {found['expires_in']} s)")
        else:
            log(f"{self.name}: {code} {where}")

    @staticmethod
    def refused():
        return "refused: " + ", ".join(f"{k} {v}" for k, v in REFUSED.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name")
    parser.add_argument("port", type=int)
    parser.add_argument("issuer")
    parser.add_argument("--scope", action="append", default=[])
    parser.add_argument("--require-audience", action="store_true")
    args = parser.parse_args()
    issuer = args.issuer.rstrip("/")
    resource = f"http://127.0.0.1:{args.port}/mcp"

    server = MCPServer(
        name=f"protected-{args.name}",
        token_verifier=JwtVerifier(issuer, resource, args.require_audience),
        auth=AuthSettings(
            issuer_url=issuer,
            resource_server_url=resource,
            required_scopes=args.scope or None,
            # The verifier checks `aud` itself (and lets a token without one through unless
            # --require-audience), so the SDK's own comparison stays off.
            validate_token_resource=False,
        ),
        log_level="WARNING",
    )

    @server.tool(description="Who called: the client id, subject and scopes of the bearer token.")
    def whoami() -> str:
        token = get_access_token()
        log(f"{args.name}: call whoami()")
        if token is None:
            return "anonymous"
        aud = (token.claims or {}).get("aud")
        return f"client_id={token.client_id} sub={token.subject} scopes={' '.join(token.scopes)} aud={aud}"

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        log(f"{args.name}: call add({a}, {b})")
        return a + b

    app = RequestLog(server.streamable_http_app(host="127.0.0.1"), args.name)
    config = uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)

    class Announcing(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets)
            print(f"protected server {args.name} ready", flush=True)

    Announcing(config).run()


if __name__ == "__main__":
    main()
