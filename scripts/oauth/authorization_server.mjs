// A real OAuth 2 authorization server for scripts/check_oauth.sh: npm `oauth2-mock-server`
// (pinned 8.2.3; installed by the check script) on 127.0.0.1:PORT, issuer
// `http://127.0.0.1:PORT` (the mock would name itself `localhost`, which does not match the
// issuer a protected resource names). The mock does the OAuth: discovery
// (/.well-known/openid-configuration only), JWKS (/jwks), /authorize (redirects at once with
// a code, no page), /token (authorization_code with PKCE, refresh_token, client_credentials),
// JWT access tokens signed with a fresh RS256 key. This file only configures it through its
// documented events (beforeAuthorizeRedirect, beforeTokenSigning, beforeResponse) to behave
// like a strict server:
//  - /authorize: a `code_challenge` with method S256 and a `client_id` are required (else the
//    redirect carries error=invalid_request); the code remembers the client, redirect_uri,
//    scope and RFC 8707 `resource`;
//  - authorization_code: the code is known and used once, by the same client, with a
//    `code_verifier` (the mock checks it against the challenge), the same redirect_uri if
//    sent, the same resource if sent; else invalid_grant / invalid_target;
//  - refresh_token: the refresh token is known and used once (rotated: each answer carries a
//    new one, the old one is then invalid_grant), by the same client;
//  - client_credentials: only client `ci-robot` with the secret in $OAUTH_CI_SECRET, sent
//    as client_secret_post or client_secret_basic; anything else 401 invalid_client;
//  - access tokens carry client_id, scope (the grant's), sub (`johndoe` for a person,
//    the client id for client_credentials), jti, and `aud` = the `resource` requested (none
//    when none was); they live TOKEN_SECONDS (default 3600), and `expires_in` says so
//    (unless OMIT_EXPIRES_IN=1, so that only the resource server's refusal tells);
//  - no id_token unless the scope holds `openid`; the `password` grant is refused.
// Usage: node authorization_server.mjs PORT, from a directory whose node_modules holds the mock.
// Env: OAUTH_CI_SECRET, TOKEN_SECONDS, OMIT_EXPIRES_IN, OAUTH_TOKEN_LEDGER (a file, mode 600,
// where every issued token value is appended, one JSON line per answer, for a test to look
// for leaks; nothing else ever writes a token or a secret). Prints `authorization server
// ready` on stdout once listening; one line per /authorize and /token request on stderr.
import { randomUUID, timingSafeEqual } from "node:crypto";
import { appendFileSync, chmodSync, closeSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

// The package is installed in the working directory (the check script's), not beside this file.
const { OAuth2Server } = await import(pathToFileURL(createRequire(`${process.cwd()}/`).resolve("oauth2-mock-server")).href);

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error("usage: node authorization_server.mjs PORT");
  process.exit(2);
}
const tokenSeconds = Number(process.env.TOKEN_SECONDS || 3600);
const omitExpiresIn = process.env.OMIT_EXPIRES_IN === "1";
const ciClient = "ci-robot";
const ciSecret = process.env.OAUTH_CI_SECRET || "";
const ledger = process.env.OAUTH_TOKEN_LEDGER;
if (ledger) closeSync(openSync(ledger, "a", 0o600)), chmodSync(ledger, 0o600);

const log = (line) => process.stderr.write(`as: ${line}\n`);
const codes = new Map(); // code -> {clientId, redirectUri, scope, resource}
const refreshTokens = new Map(); // refresh token -> {clientId, scope, resource}
const signed = new WeakMap(); // request -> tokens signed for it so far (the first is the access token)

// The client of a token request: HTTP Basic (client_secret_basic; RFC 6749 2.3.1 form-encodes
// both parts) or the body (client_secret_post, or a public client's client_id).
function client(req) {
  const header = req.headers.authorization || "";
  if (/^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), "base64").toString();
    const colon = decoded.indexOf(":");
    const part = (s) => decodeURIComponent(s.replace(/\+/g, " "));
    try {
      return { id: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)), method: "client_secret_basic" };
    } catch {
      return { id: undefined, secret: undefined, method: "client_secret_basic" };
    }
  }
  const body = req.body || {};
  if (body.client_secret !== undefined) return { id: body.client_id, secret: body.client_secret, method: "client_secret_post" };
  return { id: body.client_id, secret: undefined, method: "none" };
}

const sameSecret = (a, b) => {
  const x = Buffer.from(String(a)), y = Buffer.from(String(b));
  return x.length === y.length && timingSafeEqual(x, y);
};

// What a token request is granted (client, scope, resource, subject), or its refusal:
// computed once per request, used when the token is signed and when the answer is sent.
const grants = new WeakMap();
function grant(req) {
  if (grants.has(req)) return grants.get(req);
  const body = req.body || {};
  const who = client(req);
  const resource = body.resource;
  let result;
  const refuse = (status, error, description) => ({ refused: { status, error, description }, who });
  if (Array.isArray(resource)) {
    result = refuse(400, "invalid_target", "one resource per request");
  } else if (body.grant_type === "client_credentials") {
    if (!ciSecret || who.id !== ciClient || who.secret === undefined || !sameSecret(who.secret, ciSecret)) {
      result = refuse(401, "invalid_client", "unknown client or wrong secret");
    } else {
      result = { who, clientId: who.id, subject: who.id, scope: body.scope, resource };
    }
  } else if (body.grant_type === "authorization_code") {
    const issued = codes.get(body.code);
    if (!issued) result = refuse(400, "invalid_grant", "unknown or used code");
    else if (who.id !== issued.clientId) result = refuse(400, "invalid_grant", "the code was issued to another client");
    else if (body.code_verifier === undefined) result = refuse(400, "invalid_grant", "code_verifier required (PKCE)");
    else if (body.redirect_uri !== undefined && body.redirect_uri !== issued.redirectUri) result = refuse(400, "invalid_grant", "redirect_uri differs from the authorization request's");
    else if (resource !== undefined && issued.resource !== undefined && resource !== issued.resource) result = refuse(400, "invalid_target", "resource differs from the authorization request's");
    else result = { who, clientId: issued.clientId, subject: "johndoe", scope: issued.scope, resource: resource ?? issued.resource, used: () => codes.delete(body.code) };
  } else if (body.grant_type === "refresh_token") {
    const issued = refreshTokens.get(body.refresh_token);
    if (!issued) result = refuse(400, "invalid_grant", "unknown or used refresh token");
    else if (who.id !== issued.clientId) result = refuse(400, "invalid_grant", "the refresh token was issued to another client");
    else if (resource !== undefined && issued.resource !== undefined && resource !== issued.resource) result = refuse(400, "invalid_target", "resource differs from the grant's");
    else {
      // A narrower scope may be asked for; never a wider one.
      const asked = body.scope === undefined ? issued.scope : body.scope;
      const granted = new Set((issued.scope || "").split(" "));
      if (asked && !asked.split(" ").every((s) => granted.has(s))) result = refuse(400, "invalid_scope", "scope exceeds the grant");
      else result = { who, clientId: issued.clientId, subject: "johndoe", scope: asked, resource: resource ?? issued.resource, grantScope: issued.scope, used: () => refreshTokens.delete(body.refresh_token) };
    }
  } else {
    result = refuse(400, "unsupported_grant_type", `grant_type ${body.grant_type} is not offered`);
  }
  grants.set(req, result);
  return result;
}

const server = new OAuth2Server();
await server.issuer.keys.generate("RS256");
server.issuer.url = `http://127.0.0.1:${port}`;
const service = server.service;

service.on("beforeAuthorizeRedirect", (redirect, req) => {
  const q = req.query;
  const url = redirect.url;
  const code = url.searchParams.get("code");
  const fields = `client_id=${q.client_id} scope=${JSON.stringify(q.scope ?? "")} resource=${q.resource ?? "-"} code_challenge_method=${q.code_challenge_method ?? "-"} redirect_uri=${q.redirect_uri}`;
  if (!code) {
    log(`authorize ${fields} -> ${url.searchParams.get("error")}`);
    return;
  }
  let problem;
  if (typeof q.client_id !== "string" || !q.client_id) problem = "client_id required";
  else if (typeof q.code_challenge !== "string" || q.code_challenge_method !== "S256") problem = "PKCE with code_challenge_method=S256 required";
  else if (q.resource !== undefined && typeof q.resource !== "string") problem = "one resource per request";
  if (problem) {
    url.searchParams.delete("code");
    url.searchParams.set("error", "invalid_request");
    url.searchParams.set("error_description", problem);
    log(`authorize ${fields} -> invalid_request (${problem})`);
    return;
  }
  codes.set(code, { clientId: q.client_id, redirectUri: q.redirect_uri, scope: q.scope, resource: q.resource });
  log(`authorize ${fields} -> code issued`);
});

service.on("beforeTokenSigning", (token, req) => {
  const count = (signed.get(req) || 0) + 1;
  signed.set(req, count);
  if (count > 1) return; // the id_token, dropped below unless `openid` was asked for
  const g = grant(req);
  if (g.refused) return; // signed, never sent
  const p = token.payload;
  p.exp = p.iat + tokenSeconds;
  p.client_id = g.clientId;
  p.sub = g.subject;
  p.jti = randomUUID();
  if (g.scope) p.scope = g.scope;
  else delete p.scope;
  if (g.resource) p.aud = g.resource;
  else delete p.aud;
});

service.on("beforeResponse", (response, req) => {
  const body = req.body || {};
  const g = grant(req);
  const fields = `grant_type=${body.grant_type} client_id=${g.who.id ?? "-"} auth=${g.who.method} resource=${body.resource ?? "-"} scope=${JSON.stringify(body.scope ?? "")}`;
  if (g.refused) {
    response.statusCode = g.refused.status;
    response.body = { error: g.refused.error, error_description: g.refused.description };
    log(`token ${fields} -> ${g.refused.status} ${g.refused.error} (${g.refused.description})`);
    return;
  }
  if (g.used) g.used();
  const answer = response.body;
  if (g.scope) answer.scope = g.scope;
  else delete answer.scope;
  if (omitExpiresIn) delete answer.expires_in;
  else answer.expires_in = tokenSeconds;
  if (!(g.scope || "").split(" ").includes("openid")) delete answer.id_token;
  if (answer.refresh_token) {
    refreshTokens.set(answer.refresh_token, { clientId: g.clientId, scope: g.grantScope ?? g.scope, resource: g.resource });
  }
  if (ledger) {
    const values = ["access_token", "refresh_token", "id_token"].filter((k) => answer[k]).map((k) => [k, answer[k]]);
    appendFileSync(ledger, JSON.stringify({ grant_type: body.grant_type, ...Object.fromEntries(values) }) + "\n", { mode: 0o600 });
  }
  log(`token ${fields} -> 200 (aud=${g.resource ?? "-"}, scope=${JSON.stringify(g.scope ?? "")}, expires_in=${omitExpiresIn ? "omitted" : tokenSeconds}, refresh_token=${answer.refresh_token ? "new" : "none"})`);
});

await server.start(port, "127.0.0.1");
process.stdout.write("authorization server ready\n");
const stop = async () => {
  await server.stop().catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
