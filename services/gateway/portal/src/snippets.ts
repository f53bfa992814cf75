import { PACK_SCOPES } from '../../../../packages/contracts/src/account-rules';

/*
 * Ready-to-run snippets for every authentication style and every pagination
 * style, in curl (bash), Python requests, JavaScript fetch and Power Query M.
 *
 * Pure functions of (style, language, the app, the base URL): no DOM, no
 * fetch, so the unit tests and the end-to-end test (which runs the curl,
 * Python and JavaScript ones against a real sandbox) use exactly what the page
 * shows. A secret is filled in only when the page has it on screen (right
 * after creation or rotation); otherwise a placeholder such as <YOUR_API_KEY>.
 */

export type Language = 'curl' | 'python' | 'javascript' | 'powerquery';
export type AuthStyle =
  'api_key_header' | 'api_key_query' | 'bearer' | 'basic' | 'oauth2_client_credentials' | 'oauth2_authorization_code' | 'oauth1' | 'jwt' | 'hmac' | 'digest';
export type PaginationStyle = 'page' | 'offset' | 'cursor' | 'token' | 'link';

/** Credential values the page has on screen right now; absent ones become placeholders. */
export interface ShownSecrets {
  appSecret?: string;
  apiKey?: string;
  bearerToken?: string;
}

export interface SnippetApp {
  appId: string;
  scopes: readonly string[];
  redirectUris: readonly string[];
}

export interface SnippetInput {
  /** The sandbox's base URL without a trailing slash, e.g. https://host/sandbox (see baseUrlFromPage). */
  baseUrl: string;
  app: SnippetApp;
  secrets?: ShownSecrets;
}

export const LANGUAGES: ReadonlyArray<{ id: Language; title: string }> = [
  { id: 'curl', title: 'curl (bash)' },
  { id: 'python', title: 'Python (requests)' },
  { id: 'javascript', title: 'JavaScript (fetch)' },
  { id: 'powerquery', title: 'Power Query M' },
];

export const PLACEHOLDERS = {
  appSecret: '<YOUR_APP_SECRET>',
  apiKey: '<YOUR_API_KEY>',
  bearerToken: '<YOUR_BEARER_TOKEN>',
} as const;

export interface StyleInfo<S> {
  id: S;
  title: string;
  /** One sentence: what is sent, and where. */
  how: string;
  /** Which secrets the snippets need (the App ID is never secret). */
  needs: ReadonlyArray<keyof ShownSecrets>;
}

export const AUTH_STYLES: ReadonlyArray<StyleInfo<AuthStyle>> = [
  { id: 'api_key_header', title: 'API key in a header', how: 'The API key in the x-api-key header of each data request.', needs: ['apiKey'] },
  {
    id: 'api_key_query',
    title: 'API key in the query',
    how: 'The API key as the api_key query parameter: the weaker form, as URLs end up in logs and browser history.',
    needs: ['apiKey'],
  },
  { id: 'bearer', title: 'Bearer token', how: 'The app bearer token (bt_…) in Authorization: Bearer.', needs: ['bearerToken'] },
  { id: 'basic', title: 'Basic', how: 'App ID and App Secret in Authorization: Basic (RFC 7617).', needs: ['appSecret'] },
  {
    id: 'oauth2_client_credentials',
    title: 'OAuth 2.0 client credentials',
    how: 'Trade App ID and App Secret for an access token at /oauth/token, then send it as a bearer token.',
    needs: ['appSecret'],
  },
  {
    id: 'oauth2_authorization_code',
    title: 'OAuth 2.0 authorization code (PKCE)',
    how: 'Get a code from /oauth/authorize (approved at once, sent to a registered redirect URI), redeem it with the PKCE verifier, then use the access token.',
    needs: ['appSecret'],
  },
  {
    id: 'oauth1',
    title: 'OAuth 1.0a',
    how: 'Three legs (request token, authorize, access token), then a signed request; consumer key = App ID, consumer secret = API key.',
    needs: ['apiKey'],
  },
  { id: 'jwt', title: 'JWT', how: 'Get an HS256 JWT from /playground/auth/jwt/issue (Basic), then send it as a bearer token.', needs: ['appSecret'] },
  {
    id: 'hmac',
    title: 'HMAC signature',
    how: 'x-app-id, x-timestamp and x-signature = hex HMAC-SHA256 of "timestamp.METHOD.path", keyed with the API key.',
    needs: ['apiKey'],
  },
  { id: 'digest', title: 'Digest', how: 'HTTP Digest (RFC 7616): answer the 401 challenge with username = App ID and password = API key.', needs: ['apiKey'] },
];

export const PAGINATION_STYLES: ReadonlyArray<StyleInfo<PaginationStyle>> = [
  { id: 'page', title: 'Page number', how: 'Send page and page_size; add 1 to page until page = pagination.total_pages.', needs: ['apiKey'] },
  { id: 'offset', title: 'Offset and limit', how: 'Send offset and limit; add limit to offset until it reaches pagination.total.', needs: ['apiKey'] },
  { id: 'cursor', title: 'Cursor', how: 'Send paginate=cursor; follow pagination.next_url unchanged until it is null.', needs: ['apiKey'] },
  { id: 'token', title: 'Page token', how: 'Send paginate=token; send nextPageToken back as pageToken until there is none.', needs: ['apiKey'] },
  { id: 'link', title: 'Link header', how: 'Send paginate=link; follow the Link header\'s rel="next" URL until there is none.', needs: ['apiKey'] },
];

// ---- what the snippets read --------------------------------------------------

/** Per pack: a small entity to show a request, and a larger one to page through. */
const PACK_ENTITIES: Readonly<Record<string, { small: string; large: string }>> = {
  fpa: { small: 'departments', large: 'cost_centers' },
  stocks: { small: 'tickers', large: 'tickers' },
  marketing: { small: 'channels', large: 'campaigns' },
  hr: { small: 'departments', large: 'employees' },
  cricket: { small: 'teams', large: 'players' },
};

/** Rows per page in the pagination snippets: few round trips, small enough to print. */
export const SNIPPET_PAGE_SIZE = 500;

export interface DataTarget {
  pack: string;
  scope: string;
  /** Path below the base URL, with a leading slash. */
  smallPath: string;
  largePath: string;
  /** False when the app holds no pack scope: every data request will be 403. */
  held: boolean;
}

/** The dataset the snippets read: hr when the app holds it, else the first pack it holds. */
export function dataTarget(scopes: readonly string[]): DataTarget {
  const held = PACK_SCOPES.filter((scope) => scopes.includes(scope));
  const scope = held.includes('hr:read') ? 'hr:read' : (held[0] ?? 'hr:read');
  const pack = scope.split(':')[0];
  const entities = PACK_ENTITIES[pack] ?? PACK_ENTITIES.hr;
  return {
    pack,
    scope,
    smallPath: `/playground/data/${pack}/${entities.small}`,
    largePath: `/playground/data/${pack}/${entities.large}`,
    held: held.length > 0,
  };
}

/** The registered redirect URI the authorization-code snippets use, or a loopback one to register. */
export function snippetRedirectUri(app: SnippetApp): { uri: string; registered: boolean } {
  const first = app.redirectUris[0];
  return first ? { uri: first, registered: true } : { uri: 'http://127.0.0.1:9/callback', registered: false };
}

/**
 * The sandbox's base URL from the portal page's own address: everything
 * before the last "/portal/" (or a trailing "/portal"), so it is right behind
 * any proxy prefix, e.g. https://host/sandbox/portal/#/apps -> https://host/sandbox.
 */
export function baseUrlFromPage(href: string): string {
  const url = new URL(href);
  const path = url.pathname;
  const at = path.lastIndexOf('/portal/');
  const prefix = at >= 0 ? path.slice(0, at) : path.endsWith('/portal') ? path.slice(0, -'/portal'.length) : path.replace(/\/[^/]*$/, '');
  return `${url.origin}${prefix.replace(/\/+$/, '')}`;
}

// ---- quoting -------------------------------------------------------------------

const sh = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
/** JSON string literals are valid Python and JavaScript string literals. */
const str = (value: string) => JSON.stringify(value);
const m = (value: string) => `"${value.replace(/"/g, '""')}"`;

interface Values {
  base: string;
  /** The base URL's path (/sandbox behind a prefix, else ""): part of the path a client sends, so of what HMAC signs. */
  basePath: string;
  appId: string;
  appSecret: string;
  apiKey: string;
  bearer: string;
  target: DataTarget;
  redirect: { uri: string; registered: boolean };
}

function values(input: SnippetInput): Values {
  const secrets = input.secrets ?? {};
  return {
    base: input.baseUrl.replace(/\/+$/, ''),
    basePath: basePathOf(input.baseUrl),
    appId: input.app.appId,
    appSecret: secrets.appSecret ?? PLACEHOLDERS.appSecret,
    apiKey: secrets.apiKey ?? PLACEHOLDERS.apiKey,
    bearer: secrets.bearerToken ?? PLACEHOLDERS.bearerToken,
    target: dataTarget(input.app.scopes),
    redirect: snippetRedirectUri(input.app),
  };
}

/** The path of a base URL without its trailing slash; "" if it is not a URL. */
function basePathOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** What every HMAC snippet says it signs: the server checks the path the client sent, a proxy's prefix included. */
const HMAC_SIGNED =
  'Sign "timestamp.METHOD.path": the path as your client sends it on the request line (the base URL\'s path included), without the query string.';

/** Lines joined with newlines, a trailing newline, and nothing for false/undefined entries. */
const lines = (...parts: Array<string | false | undefined>) => `${parts.filter((p): p is string => typeof p === 'string').join('\n')}\n`;

const scopeNote = (v: Values, comment: string) =>
  v.target.held ? undefined : `${comment} This app holds no pack scope, so the data request answers 403: add ${v.target.scope} under Scopes.`;
const redirectNote = (v: Values, comment: string) =>
  v.redirect.registered ? undefined : `${comment} Register ${v.redirect.uri} as a redirect URI of this app first (Redirect URIs).`;

// ---- authentication snippets ---------------------------------------------------

export function authSnippet(style: AuthStyle, language: Language, input: SnippetInput): string {
  const write: Record<Language, (style: AuthStyle, v: Values) => string> = {
    curl: curlAuth,
    python: pythonAuth,
    javascript: javascriptAuth,
    powerquery: powerQueryAuth,
  };
  return write[language](style, values(input));
}

/** Bash: the first string field of that name in a JSON answer (grep and cut, so no jq needed). */
const SH_FIELD = `field() { grep -o "\\"$1\\":\\"[^\\"]*\\"" | head -n 1 | cut -d '"' -f 4; }`;

function curlAuth(style: AuthStyle, v: Values): string {
  const base = `BASE=${sh(v.base)}`;
  const id = `APP_ID=${sh(v.appId)}`;
  const secret = `APP_SECRET=${sh(v.appSecret)}`;
  const key = `API_KEY=${sh(v.apiKey)}`;
  const small = `"$BASE${v.target.smallPath}?page_size=5"`;
  switch (style) {
    case 'api_key_header':
      return lines(scopeNote(v, '#'), base, key, `curl -sS -H "x-api-key: $API_KEY" ${small}`);
    case 'api_key_query':
      return lines(
        scopeNote(v, '#'),
        '# The weaker form: a URL with a key in it ends up in logs and browser history.',
        base,
        key,
        `curl -sS "$BASE${v.target.smallPath}?page_size=5&api_key=$API_KEY"`,
      );
    case 'bearer':
      return lines(scopeNote(v, '#'), base, `BEARER=${sh(v.bearer)}`, `curl -sS -H "Authorization: Bearer $BEARER" ${small}`);
    case 'basic':
      return lines(base, id, secret, `curl -sS -u "$APP_ID:$APP_SECRET" "$BASE/playground/auth/basic"`);
    case 'oauth2_client_credentials':
      return lines(
        scopeNote(v, '#'),
        base,
        id,
        secret,
        SH_FIELD,
        '# 1. An access token for the app itself.',
        `TOKEN=$(curl -sS -u "$APP_ID:$APP_SECRET" -d grant_type=client_credentials -d scope=${v.target.scope} "$BASE/oauth/token" | field access_token)`,
        '# 2. Use it like a bearer token.',
        `curl -sS -H "Authorization: Bearer $TOKEN" ${small}`,
      );
    case 'oauth2_authorization_code':
      return lines(
        redirectNote(v, '#'),
        scopeNote(v, '#'),
        base,
        id,
        secret,
        `REDIRECT_URI=${sh(v.redirect.uri)}`,
        SH_FIELD,
        '# PKCE: the verifier stays here; its S256 hash goes to /oauth/authorize.',
        `VERIFIER=$(openssl rand -base64 48 | tr -d '=+/\\n' | cut -c1-64)`,
        `CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 | tr '+/' '-_' | tr -d '=\\n')`,
        '# 1. The sandbox approves at once and redirects to REDIRECT_URI with ?code=…: read it without following.',
        `LOCATION=$(curl -sS -o /dev/null -w '%{redirect_url}' -G "$BASE/oauth/authorize" \\`,
        `  --data-urlencode response_type=code --data-urlencode "client_id=$APP_ID" --data-urlencode "redirect_uri=$REDIRECT_URI" \\`,
        `  --data-urlencode scope=${v.target.scope} --data-urlencode state=practice \\`,
        `  --data-urlencode "code_challenge=$CHALLENGE" --data-urlencode code_challenge_method=S256)`,
        `CODE=$(printf %s "$LOCATION" | sed -nE 's/.*[?&]code=([^&]*).*/\\1/p')`,
        '# 2. Redeem the code (within 60 s) with the verifier.',
        `TOKEN=$(curl -sS -u "$APP_ID:$APP_SECRET" -d grant_type=authorization_code --data-urlencode "code=$CODE" \\`,
        `  --data-urlencode "redirect_uri=$REDIRECT_URI" --data-urlencode "code_verifier=$VERIFIER" "$BASE/oauth/token" | field access_token)`,
        '# 3. Use the access token.',
        `curl -sS -H "Authorization: Bearer $TOKEN" ${small}`,
      );
    case 'oauth1':
      return lines(
        '# PLAINTEXT signatures: the signature is "API key&token secret", percent-encoded (& is %26).',
        base,
        id,
        key,
        SH_FIELD,
        '# Leg 1: temporary credentials.',
        `ANSWER=$(curl -sS -X POST "$BASE/oauth1/request_token" -H "Authorization: OAuth oauth_consumer_key=\\"$APP_ID\\", oauth_signature_method=\\"PLAINTEXT\\", oauth_signature=\\"$API_KEY%26\\", oauth_callback=\\"oob\\"")`,
        `TOKEN=$(printf %s "$ANSWER" | field oauth_token); TOKEN_SECRET=$(printf %s "$ANSWER" | field oauth_token_secret)`,
        '# Leg 2: the verifier (approved at once).',
        `VERIFIER=$(curl -sS "$BASE/oauth1/authorize?oauth_token=$TOKEN" | field oauth_verifier)`,
        '# Leg 3: the access token.',
        `ANSWER=$(curl -sS -X POST "$BASE/oauth1/access_token" -H "Authorization: OAuth oauth_consumer_key=\\"$APP_ID\\", oauth_token=\\"$TOKEN\\", oauth_verifier=\\"$VERIFIER\\", oauth_signature_method=\\"PLAINTEXT\\", oauth_signature=\\"$API_KEY%26$TOKEN_SECRET\\"")`,
        `ACCESS=$(printf %s "$ANSWER" | field oauth_token); ACCESS_SECRET=$(printf %s "$ANSWER" | field oauth_token_secret)`,
        '# A protected request.',
        `curl -sS "$BASE/playground/auth/oauth1" -H "Authorization: OAuth oauth_consumer_key=\\"$APP_ID\\", oauth_token=\\"$ACCESS\\", oauth_signature_method=\\"PLAINTEXT\\", oauth_signature=\\"$API_KEY%26$ACCESS_SECRET\\""`,
      );
    case 'jwt':
      return lines(
        base,
        id,
        secret,
        SH_FIELD,
        '# 1. Two tokens (HS256 keyed with your API key, RS256 signed by the sandbox), valid for an hour.',
        `JWT=$(curl -sS -u "$APP_ID:$APP_SECRET" -X POST "$BASE/playground/auth/jwt/issue" | field hs256)`,
        '# 2. Send one as a bearer token.',
        `curl -sS -H "Authorization: Bearer $JWT" "$BASE/playground/auth/jwt"`,
      );
    case 'hmac':
      return lines(
        base,
        id,
        key,
        `# ${HMAC_SIGNED}`,
        '# Each signature is accepted once, and two in the same second are the same: sign every request anew.',
        `ROUTE=/playground/auth/hmac`,
        `SIGNED_PATH=${v.basePath ? sh(v.basePath) : ''}$ROUTE`,
        `TS=$(date +%s)`,
        `SIG=$(printf '%s' "$TS.GET.$SIGNED_PATH" | openssl dgst -sha256 -hmac "$API_KEY" -hex | sed 's/^.*= //')`,
        `curl -sS -H "x-app-id: $APP_ID" -H "x-timestamp: $TS" -H "x-signature: $SIG" "$BASE$ROUTE"`,
      );
    case 'digest':
      return lines('# curl answers the first challenge (SHA-256).', base, id, key, `curl -sS --digest -u "$APP_ID:$API_KEY" "$BASE/playground/auth/digest"`);
  }
}

function pythonAuth(style: AuthStyle, v: Values): string {
  const base = `BASE = ${str(v.base)}`;
  const id = `APP_ID = ${str(v.appId)}`;
  const secret = `APP_SECRET = ${str(v.appSecret)}`;
  const key = `API_KEY = ${str(v.apiKey)}`;
  const show = ['print(response.status_code)', 'print(json.dumps(response.json(), indent=2))'];
  const dataGet = (extra: string) => `response = requests.get(f"{BASE}${v.target.smallPath}", params={"page_size": 5${extra}}, `;
  switch (style) {
    case 'api_key_header':
      return lines(
        scopeNote(v, '#'),
        'import json',
        'import requests',
        '',
        base,
        key,
        '',
        `${dataGet('')}headers={"x-api-key": API_KEY}, timeout=30)`,
        ...show,
      );
    case 'api_key_query':
      return lines(
        scopeNote(v, '#'),
        '# The weaker form: a URL with a key in it ends up in logs and browser history.',
        'import json',
        'import requests',
        '',
        base,
        key,
        '',
        `${dataGet(', "api_key": API_KEY')}timeout=30)`,
        ...show,
      );
    case 'bearer':
      return lines(
        scopeNote(v, '#'),
        'import json',
        'import requests',
        '',
        base,
        `BEARER = ${str(v.bearer)}`,
        '',
        `${dataGet('')}headers={"Authorization": f"Bearer {BEARER}"}, timeout=30)`,
        ...show,
      );
    case 'basic':
      return lines(
        'import json',
        'import requests',
        '',
        base,
        id,
        secret,
        '',
        'response = requests.get(f"{BASE}/playground/auth/basic", auth=(APP_ID, APP_SECRET), timeout=30)',
        ...show,
      );
    case 'oauth2_client_credentials':
      return lines(
        scopeNote(v, '#'),
        'import json',
        'import requests',
        '',
        base,
        id,
        secret,
        '',
        '# 1. An access token for the app itself.',
        `token = requests.post(f"{BASE}/oauth/token", auth=(APP_ID, APP_SECRET), data={"grant_type": "client_credentials", "scope": ${str(v.target.scope)}}, timeout=30)`,
        'token.raise_for_status()',
        'access_token = token.json()["access_token"]',
        '',
        '# 2. Use it like a bearer token.',
        `${dataGet('')}headers={"Authorization": f"Bearer {access_token}"}, timeout=30)`,
        ...show,
      );
    case 'oauth2_authorization_code':
      return lines(
        redirectNote(v, '#'),
        scopeNote(v, '#'),
        'import base64',
        'import hashlib',
        'import json',
        'import secrets',
        'from urllib.parse import parse_qs, urlsplit',
        '',
        'import requests',
        '',
        base,
        id,
        secret,
        `REDIRECT_URI = ${str(v.redirect.uri)}`,
        '',
        '# PKCE: the verifier stays here; its S256 hash goes to /oauth/authorize.',
        'verifier = secrets.token_urlsafe(48)',
        'challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()',
        '',
        '# 1. The sandbox approves at once and redirects to REDIRECT_URI with ?code=…: read it without following.',
        'answer = requests.get(',
        '    f"{BASE}/oauth/authorize",',
        `    params={"response_type": "code", "client_id": APP_ID, "redirect_uri": REDIRECT_URI, "scope": ${str(v.target.scope)},`,
        '            "state": "practice", "code_challenge": challenge, "code_challenge_method": "S256"},',
        '    allow_redirects=False,',
        '    timeout=30,',
        ')',
        'if "Location" not in answer.headers:',
        '    raise SystemExit(answer.text)',
        'code = parse_qs(urlsplit(answer.headers["Location"]).query)["code"][0]',
        '',
        '# 2. Redeem the code (within 60 s) with the verifier.',
        'tokens = requests.post(',
        '    f"{BASE}/oauth/token",',
        '    auth=(APP_ID, APP_SECRET),',
        '    data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI, "code_verifier": verifier},',
        '    timeout=30,',
        ')',
        'tokens.raise_for_status()',
        '',
        '# 3. Use the access token (tokens.json() also has a refresh_token).',
        `${dataGet('')}headers={"Authorization": f"Bearer {tokens.json()['access_token']}"}, timeout=30)`,
        ...show,
      );
    case 'oauth1':
      return lines(
        '# pip install requests requests-oauthlib  (HMAC-SHA1 signatures)',
        'import json',
        '',
        'from requests_oauthlib import OAuth1Session',
        '',
        base,
        id,
        key,
        '',
        'session = OAuth1Session(APP_ID, client_secret=API_KEY, callback_uri="oob")',
        "# OAuth1Session reads the token answers only in the RFC's form encoding; the sandbox answers JSON unless asked.",
        'session.headers["Accept"] = "application/x-www-form-urlencoded"',
        'session.fetch_request_token(f"{BASE}/oauth1/request_token")',
        'verifier = session.get(f"{BASE}/oauth1/authorize", params={"oauth_token": session.token["oauth_token"]}).json()["oauth_verifier"]',
        'session.fetch_access_token(f"{BASE}/oauth1/access_token", verifier=verifier)',
        '',
        'session.headers["Accept"] = "application/json"',
        'response = session.get(f"{BASE}/playground/auth/oauth1", timeout=30)',
        ...show,
      );
    case 'jwt':
      return lines(
        'import json',
        'import requests',
        '',
        base,
        id,
        secret,
        '',
        '# 1. Two tokens (HS256 keyed with your API key, RS256 signed by the sandbox), valid for an hour.',
        'issued = requests.post(f"{BASE}/playground/auth/jwt/issue", auth=(APP_ID, APP_SECRET), timeout=30)',
        'issued.raise_for_status()',
        '',
        '# 2. Send one as a bearer token.',
        'response = requests.get(f"{BASE}/playground/auth/jwt", headers={"Authorization": f"Bearer {issued.json()[\'hs256\']}"}, timeout=30)',
        ...show,
      );
    case 'hmac':
      return lines(
        'import hashlib',
        'import hmac',
        'import json',
        'import time',
        'from urllib.parse import urlsplit',
        '',
        'import requests',
        '',
        base,
        id,
        key,
        '',
        `# ${HMAC_SIGNED}`,
        '# Each signature is accepted once, and two in the same second are the same: sign every request anew.',
        'route = "/playground/auth/hmac"',
        'path = urlsplit(BASE).path.rstrip("/") + route',
        'timestamp = str(int(time.time()))',
        'signature = hmac.new(API_KEY.encode(), f"{timestamp}.GET.{path}".encode(), hashlib.sha256).hexdigest()',
        'response = requests.get(BASE + route, headers={"x-app-id": APP_ID, "x-timestamp": timestamp, "x-signature": signature}, timeout=30)',
        ...show,
      );
    case 'digest':
      return lines(
        'import json',
        '',
        'import requests',
        'from requests.auth import HTTPDigestAuth',
        '',
        base,
        id,
        key,
        '',
        'response = requests.get(f"{BASE}/playground/auth/digest", auth=HTTPDigestAuth(APP_ID, API_KEY), timeout=30)',
        ...show,
      );
  }
}

const JS_HEADER = '// Node 18+ as an ES module (save as snippet.mjs, run `node snippet.mjs`), or a browser console.';
const JS_SHOW = ['console.log(response.status);', 'console.log(JSON.stringify(await response.json(), null, 2));'];
const JS_BASIC = 'const basic = "Basic " + btoa(`${APP_ID}:${APP_SECRET}`);';

function javascriptAuth(style: AuthStyle, v: Values): string {
  const base = `const BASE = ${str(v.base)};`;
  const id = `const APP_ID = ${str(v.appId)};`;
  const secret = `const APP_SECRET = ${str(v.appSecret)};`;
  const key = `const API_KEY = ${str(v.apiKey)};`;
  const small = `\`\${BASE}${v.target.smallPath}?page_size=5\``;
  switch (style) {
    case 'api_key_header':
      return lines(JS_HEADER, scopeNote(v, '//'), base, key, '', `const response = await fetch(${small}, { headers: { "x-api-key": API_KEY } });`, ...JS_SHOW);
    case 'api_key_query':
      return lines(
        JS_HEADER,
        scopeNote(v, '//'),
        '// The weaker form: a URL with a key in it ends up in logs and browser history.',
        base,
        key,
        '',
        `const url = new URL(\`\${BASE}${v.target.smallPath}\`);`,
        'url.searchParams.set("page_size", "5");',
        'url.searchParams.set("api_key", API_KEY);',
        'const response = await fetch(url);',
        ...JS_SHOW,
      );
    case 'bearer':
      return lines(
        JS_HEADER,
        scopeNote(v, '//'),
        base,
        `const BEARER = ${str(v.bearer)};`,
        '',
        `const response = await fetch(${small}, { headers: { Authorization: \`Bearer \${BEARER}\` } });`,
        ...JS_SHOW,
      );
    case 'basic':
      return lines(
        JS_HEADER,
        base,
        id,
        secret,
        '',
        JS_BASIC,
        'const response = await fetch(`${BASE}/playground/auth/basic`, { headers: { Authorization: basic } });',
        ...JS_SHOW,
      );
    case 'oauth2_client_credentials':
      return lines(
        JS_HEADER,
        scopeNote(v, '//'),
        base,
        id,
        secret,
        '',
        '// 1. An access token for the app itself.',
        JS_BASIC,
        'const token = await fetch(`${BASE}/oauth/token`, {',
        '  method: "POST",',
        '  headers: { Authorization: basic },',
        `  body: new URLSearchParams({ grant_type: "client_credentials", scope: ${str(v.target.scope)} }),`,
        '});',
        'if (!token.ok) throw new Error(await token.text());',
        'const { access_token } = await token.json();',
        '',
        '// 2. Use it like a bearer token.',
        `const response = await fetch(${small}, { headers: { Authorization: \`Bearer \${access_token}\` } });`,
        ...JS_SHOW,
      );
    case 'oauth2_authorization_code':
      return lines(
        '// Node 18+ as an ES module (save as snippet.mjs, run `node snippet.mjs`): a browser cannot read the redirect (it is opaque there).',
        redirectNote(v, '//'),
        scopeNote(v, '//'),
        base,
        id,
        secret,
        `const REDIRECT_URI = ${str(v.redirect.uri)};`,
        '',
        'const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");',
        '// PKCE: the verifier stays here; its S256 hash goes to /oauth/authorize.',
        'const verifier = base64url(crypto.getRandomValues(new Uint8Array(48)));',
        'const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));',
        '',
        '// 1. The sandbox approves at once and redirects to REDIRECT_URI with ?code=…: read it without following.',
        'const authorize = new URL(`${BASE}/oauth/authorize`);',
        'authorize.search = new URLSearchParams({',
        `  response_type: "code", client_id: APP_ID, redirect_uri: REDIRECT_URI, scope: ${str(v.target.scope)},`,
        '  state: "practice", code_challenge: challenge, code_challenge_method: "S256",',
        '}).toString();',
        'const answer = await fetch(authorize, { redirect: "manual" });',
        'const location = answer.headers.get("location");',
        'if (!location) throw new Error(await answer.text());',
        'const code = new URL(location).searchParams.get("code");',
        '',
        '// 2. Redeem the code (within 60 s) with the verifier.',
        JS_BASIC,
        'const tokens = await fetch(`${BASE}/oauth/token`, {',
        '  method: "POST",',
        '  headers: { Authorization: basic },',
        '  body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: verifier }),',
        '});',
        'if (!tokens.ok) throw new Error(await tokens.text());',
        'const { access_token } = await tokens.json(); // there is a refresh_token too',
        '',
        '// 3. Use the access token.',
        `const response = await fetch(${small}, { headers: { Authorization: \`Bearer \${access_token}\` } });`,
        ...JS_SHOW,
      );
    case 'oauth1':
      return lines(
        JS_HEADER,
        '// PLAINTEXT signatures: the signature is "API key&token secret", each part percent-encoded (RFC 5849 3.4.4).',
        base,
        id,
        key,
        '',
        'const enc = (s) => encodeURIComponent(s).replace(/[!\'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());',
        'const oauth = (params, tokenSecret = "") =>',
        '  "OAuth " + Object.entries({ ...params, oauth_consumer_key: APP_ID, oauth_signature_method: "PLAINTEXT", oauth_signature: `${enc(API_KEY)}&${enc(tokenSecret)}` })',
        '    .map(([name, value]) => `${name}="${enc(value)}"`).join(", ");',
        'const call = async (method, path, authorization) => {',
        '  const answer = await fetch(`${BASE}${path}`, { method, headers: { Authorization: authorization } });',
        '  if (!answer.ok) throw new Error(await answer.text());',
        '  return answer.json();',
        '};',
        '',
        '// Leg 1: temporary credentials; leg 2: the verifier (approved at once); leg 3: the access token.',
        'const temporary = await call("POST", "/oauth1/request_token", oauth({ oauth_callback: "oob" }));',
        'const { oauth_verifier } = await (await fetch(`${BASE}/oauth1/authorize?oauth_token=${enc(temporary.oauth_token)}`)).json();',
        'const access = await call("POST", "/oauth1/access_token", oauth({ oauth_token: temporary.oauth_token, oauth_verifier }, temporary.oauth_token_secret));',
        '',
        '// A protected request.',
        'const response = await fetch(`${BASE}/playground/auth/oauth1`, {',
        '  headers: { Authorization: oauth({ oauth_token: access.oauth_token }, access.oauth_token_secret) },',
        '});',
        ...JS_SHOW,
      );
    case 'jwt':
      return lines(
        JS_HEADER,
        base,
        id,
        secret,
        '',
        '// 1. Two tokens (HS256 keyed with your API key, RS256 signed by the sandbox), valid for an hour.',
        JS_BASIC,
        'const issued = await fetch(`${BASE}/playground/auth/jwt/issue`, { method: "POST", headers: { Authorization: basic } });',
        'if (!issued.ok) throw new Error(await issued.text());',
        'const { hs256 } = await issued.json();',
        '',
        '// 2. Send one as a bearer token.',
        'const response = await fetch(`${BASE}/playground/auth/jwt`, { headers: { Authorization: `Bearer ${hs256}` } });',
        ...JS_SHOW,
      );
    case 'hmac':
      return lines(
        JS_HEADER,
        base,
        id,
        key,
        '',
        `// ${HMAC_SIGNED}`,
        '// Each signature is accepted once, and two in the same second are the same: sign every request anew.',
        'const route = "/playground/auth/hmac";',
        'const path = new URL(BASE).pathname.replace(/\\/+$/, "") + route;',
        'const timestamp = String(Math.floor(Date.now() / 1000));',
        'const hmacKey = await crypto.subtle.importKey("raw", new TextEncoder().encode(API_KEY), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);',
        'const mac = await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(`${timestamp}.GET.${path}`));',
        'const signature = [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");',
        'const response = await fetch(BASE + route, { headers: { "x-app-id": APP_ID, "x-timestamp": timestamp, "x-signature": signature } });',
        ...JS_SHOW,
      );
    case 'digest':
      return lines(
        '// Node 18+ as an ES module (save as snippet.mjs, run `node snippet.mjs`): a browser answers Digest challenges itself.',
        base,
        id,
        key,
        '',
        'const url = new URL(`${BASE}/playground/auth/digest`);',
        'const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");',
        'const sha256 = async (text) => hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));',
        '',
        '// 1. No credentials: a 401 with the challenges (SHA-256 first, then MD5; both share nonce, realm and opaque).',
        'const challenge = (await fetch(url)).headers.get("www-authenticate");',
        'const param = (name) => new RegExp(`${name}="([^"]*)"`).exec(challenge)?.[1];',
        'const realm = param("realm"), nonce = param("nonce"), opaque = param("opaque");',
        '',
        '// 2. The answer: response = H(H(A1):nonce:nc:cnonce:qop:H(A2)), A1 = App ID:realm:API key, A2 = method:uri.',
        'const uri = url.pathname + url.search;',
        'const nc = "00000001";',
        'const cnonce = hex(crypto.getRandomValues(new Uint8Array(8)));',
        'const digest = await sha256(`${await sha256(`${APP_ID}:${realm}:${API_KEY}`)}:${nonce}:${nc}:${cnonce}:auth:${await sha256(`GET:${uri}`)}`);',
        'const authorization = `Digest username="${APP_ID}", realm="${realm}", nonce="${nonce}", uri="${uri}", algorithm=SHA-256, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${digest}", opaque="${opaque}"`;',
        'const response = await fetch(url, { headers: { Authorization: authorization } });',
        ...JS_SHOW,
      );
  }
}

const M_REFRESH_NOTE = '// Web.Contents with a fixed base URL and RelativePath/Query, so Power BI Service can refresh it (data source credentials: Anonymous).';
const mBasic = '"Basic " & Binary.ToText(Text.ToBinary(AppId & ":" & AppSecret), BinaryEncoding.Base64)';

function powerQueryAuth(style: AuthStyle, v: Values): string {
  const base = m(v.base);
  const id = `    AppId = ${m(v.appId)},`;
  const secret = `    AppSecret = ${m(v.appSecret)},`;
  const key = `    ApiKey = ${m(v.apiKey)},`;
  const relative = m(v.target.smallPath.slice(1));
  const dataCall = (query: string, headers: string) => [
    `    Page = Json.Document(Web.Contents(${base}, [`,
    `        RelativePath = ${relative},`,
    `        Query = [${query}],`,
    `        Headers = [${headers}]`,
    '    ])),',
    '    Rows = Table.FromRecords(Page[data])',
    'in',
    '    Rows',
  ];
  const data = (...body: string[]) => lines(M_REFRESH_NOTE, scopeNote(v, '//'), 'let', ...body);
  switch (style) {
    case 'api_key_header':
      return data(key, ...dataCall('page_size = "5"', '#"x-api-key" = ApiKey'));
    case 'api_key_query':
      return lines(
        M_REFRESH_NOTE,
        scopeNote(v, '//'),
        '// The weaker form: a URL with a key in it ends up in logs and browser history.',
        'let',
        key,
        `    Page = Json.Document(Web.Contents(${base}, [`,
        `        RelativePath = ${relative},`,
        '        Query = [page_size = "5", api_key = ApiKey]',
        '    ])),',
        '    Rows = Table.FromRecords(Page[data])',
        'in',
        '    Rows',
      );
    case 'bearer':
      return data(`    BearerToken = ${m(v.bearer)},`, ...dataCall('page_size = "5"', 'Authorization = "Bearer " & BearerToken'));
    case 'basic':
      return lines(
        M_REFRESH_NOTE,
        'let',
        id,
        secret,
        `    Answer = Json.Document(Web.Contents(${base}, [`,
        '        RelativePath = "playground/auth/basic",',
        `        Headers = [Authorization = ${mBasic}]`,
        '    ]))',
        'in',
        '    Answer',
      );
    case 'oauth2_client_credentials':
      return data(
        id,
        secret,
        '    // 1. An access token for the app itself (Content makes Web.Contents send a POST).',
        `    Token = Json.Document(Web.Contents(${base}, [`,
        '        RelativePath = "oauth/token",',
        `        Headers = [Authorization = ${mBasic}, #"Content-Type" = "application/x-www-form-urlencoded"],`,
        `        Content = Text.ToBinary(Uri.BuildQueryString([grant_type = "client_credentials", scope = ${m(v.target.scope)}]))`,
        '    ])),',
        '    // 2. Use it like a bearer token.',
        ...dataCall('page_size = "5"', 'Authorization = "Bearer " & Token[access_token]'),
      );
    case 'oauth2_authorization_code':
      return lines(
        '// Power Query cannot take part in a browser redirect, and a code works once, so this suits a one-off load, not a scheduled',
        '// refresh (use client credentials for that). Open this address in a browser, then copy code=… from the address bar it',
        '// lands on (the page itself may fail to load) into Code below within 60 s:',
        `// ${v.base}/oauth/authorize?response_type=code&client_id=${encodeURIComponent(v.appId)}&redirect_uri=${encodeURIComponent(v.redirect.uri)}&scope=${encodeURIComponent(v.target.scope)}&state=practice`,
        redirectNote(v, '//'),
        scopeNote(v, '//'),
        'let',
        id,
        secret,
        `    RedirectUri = ${m(v.redirect.uri)},`,
        '    Code = "<PASTE_THE_CODE_HERE>",',
        `    Tokens = Json.Document(Web.Contents(${base}, [`,
        '        RelativePath = "oauth/token",',
        `        Headers = [Authorization = ${mBasic}, #"Content-Type" = "application/x-www-form-urlencoded"],`,
        '        Content = Text.ToBinary(Uri.BuildQueryString([grant_type = "authorization_code", code = Code, redirect_uri = RedirectUri]))',
        '    ])),',
        ...dataCall('page_size = "5"', 'Authorization = "Bearer " & Tokens[access_token]'),
      );
    case 'oauth1':
      return lines(
        '// PLAINTEXT signatures: the signature is "API key&token secret", percent-encoded (& is %26).',
        'let',
        id,
        key,
        '    Enc = (text as text) as text => Uri.EscapeDataString(text),',
        '    OAuth = (fields as record, tokenSecret as text) as text =>',
        '        let',
        '            All = fields & [oauth_consumer_key = AppId, oauth_signature_method = "PLAINTEXT", oauth_signature = Enc(ApiKey) & "&" & Enc(tokenSecret)]',
        '        in',
        '            "OAuth " & Text.Combine(List.Transform(Record.FieldNames(All), (name) => name & "=""" & Enc(Record.Field(All, name)) & """"), ", "),',
        '    // Leg 1: temporary credentials (Content makes Web.Contents send a POST).',
        `    Temporary = Json.Document(Web.Contents(${base}, [RelativePath = "oauth1/request_token", Headers = [Authorization = OAuth([oauth_callback = "oob"], "")], Content = Text.ToBinary("")])),`,
        '    // Leg 2: the verifier (approved at once).',
        `    Verifier = Json.Document(Web.Contents(${base}, [RelativePath = "oauth1/authorize", Query = [oauth_token = Temporary[oauth_token]]]))[oauth_verifier],`,
        '    // Leg 3: the access token.',
        `    Access = Json.Document(Web.Contents(${base}, [RelativePath = "oauth1/access_token", Headers = [Authorization = OAuth([oauth_token = Temporary[oauth_token], oauth_verifier = Verifier], Temporary[oauth_token_secret])], Content = Text.ToBinary("")])),`,
        '    // A protected request.',
        `    Answer = Json.Document(Web.Contents(${base}, [RelativePath = "playground/auth/oauth1", Headers = [Authorization = OAuth([oauth_token = Access[oauth_token]], Access[oauth_token_secret])]]))`,
        'in',
        '    Answer',
      );
    case 'jwt':
      return lines(
        'let',
        id,
        secret,
        '    // 1. Two tokens (HS256 keyed with your API key, RS256 signed by the sandbox), valid for an hour.',
        `    Issued = Json.Document(Web.Contents(${base}, [RelativePath = "playground/auth/jwt/issue", Headers = [Authorization = ${mBasic}], Content = Text.ToBinary("")])),`,
        '    // 2. Send one as a bearer token.',
        `    Answer = Json.Document(Web.Contents(${base}, [RelativePath = "playground/auth/jwt", Headers = [Authorization = "Bearer " & Issued[hs256]]]))`,
        'in',
        '    Answer',
      );
    case 'hmac':
      return lines(
        '// Power Query has SHA-256 (Crypto.CreateHash) but no HMAC function: HMAC (RFC 2104) is built from it here.',
        'let',
        id,
        key,
        '    Sha256 = (data as binary) as binary => Crypto.CreateHash(CryptoAlgorithm.SHA256, data),',
        '    Hmac = (secret as binary, message as binary) as binary =>',
        '        let',
        '            Key0 = if Binary.Length(secret) > 64 then Sha256(secret) else secret,',
        '            KeyBytes = Binary.ToList(Key0) & List.Repeat({0}, 64 - Binary.Length(Key0)),',
        '            Inner = Binary.FromList(List.Transform(KeyBytes, each Number.BitwiseXor(_, 54))),',
        '            Outer = Binary.FromList(List.Transform(KeyBytes, each Number.BitwiseXor(_, 92)))',
        '        in',
        '            Sha256(Binary.Combine({Outer, Sha256(Binary.Combine({Inner, message}))})),',
        `    // ${HMAC_SIGNED}`,
        '    Route = "playground/auth/hmac",',
        `    SignedPath = ${m(`${v.basePath}/`)} & Route,`,
        '    Timestamp = Text.From(Number.RoundDown(Duration.TotalSeconds(DateTimeZone.UtcNow() - #datetimezone(1970, 1, 1, 0, 0, 0, 0, 0)))),',
        '    Signature = Text.Lower(Binary.ToText(Hmac(Text.ToBinary(ApiKey), Text.ToBinary(Timestamp & ".GET." & SignedPath)), BinaryEncoding.Hex)),',
        `    Answer = Json.Document(Web.Contents(${base}, [`,
        '        RelativePath = Route,',
        '        Headers = [#"x-app-id" = AppId, #"x-timestamp" = Timestamp, #"x-signature" = Signature],',
        '        IsRetry = true // never a cached answer: each signature is accepted once',
        '    ]))',
        'in',
        '    Answer',
      );
    case 'digest':
      return lines(
        '// Power Query has no Digest credential type: the challenge is answered by hand (SHA-256, RFC 7616).',
        'let',
        id,
        key,
        '    Hex = (data as binary) as text => Text.Lower(Binary.ToText(data, BinaryEncoding.Hex)),',
        '    Sha256 = (text as text) as text => Hex(Crypto.CreateHash(CryptoAlgorithm.SHA256, Text.ToBinary(text))),',
        '    Path = "/playground/auth/digest",',
        '    // 1. No credentials: a 401 whose WWW-Authenticate carries nonce, realm and opaque.',
        `    First = Web.Contents(${base}, [RelativePath = Text.AfterDelimiter(Path, "/"), ManualStatusHandling = {401}, IsRetry = true]),`,
        '    Challenge = Text.From(Value.Metadata(First)[Headers][#"WWW-Authenticate"]),',
        '    Param = (name as text) as text => Text.BetweenDelimiters(Challenge, name & "=""", """"),',
        '    Realm = Param("realm"), Nonce = Param("nonce"), Opaque = Param("opaque"),',
        '    // 2. The answer: response = H(H(A1):nonce:nc:cnonce:qop:H(A2)), A1 = App ID:realm:API key, A2 = method:uri.',
        `    Uri = Uri.Parts(${base} & Path)[Path],`,
        '    Cnonce = Text.Remove(Text.NewGuid(), "-"),',
        '    Response = Sha256(Sha256(AppId & ":" & Realm & ":" & ApiKey) & ":" & Nonce & ":00000001:" & Cnonce & ":auth:" & Sha256("GET:" & Uri)),',
        '    Authorization = "Digest username=""" & AppId & """, realm=""" & Realm & """, nonce=""" & Nonce & """, uri=""" & Uri',
        '        & """, algorithm=SHA-256, qop=auth, nc=00000001, cnonce=""" & Cnonce & """, response=""" & Response & """, opaque=""" & Opaque & """",',
        `    Answer = Json.Document(Web.Contents(${base}, [RelativePath = Text.AfterDelimiter(Path, "/"), Headers = [Authorization = Authorization], IsRetry = true]))`,
        'in',
        '    Answer',
      );
  }
}

// ---- pagination snippets -------------------------------------------------------

export function paginationSnippet(style: PaginationStyle, language: Language, input: SnippetInput): string {
  const write: Record<Language, (style: PaginationStyle, v: Values) => string> = {
    curl: curlPages,
    python: pythonPages,
    javascript: javascriptPages,
    powerquery: powerQueryPages,
  };
  return write[language](style, values(input));
}

const SIZE = SNIPPET_PAGE_SIZE;

function curlPages(style: PaginationStyle, v: Values): string {
  const head = [
    scopeNote(v, '#'),
    '# Prints "returned" (rows on the page) for each page; stops with the error if a page is refused.',
    `BASE=${sh(v.base)}`,
    `API_KEY=${sh(v.apiKey)}`,
    `URL="$BASE${v.target.largePath}"`,
    '# The first number or string field of that name (the pagination object comes before the rows).',
    'number() { grep -o "\\"$1\\":[0-9]*" | head -n 1 | cut -d : -f 2; }',
    'text() { grep -o "\\"$1\\":\\"[^\\"]*\\"" | head -n 1 | cut -d \'"\' -f 4; }',
  ];
  const fetchPage = (target: string) => [
    `  BODY=$(curl -sS -H "x-api-key: $API_KEY" "${target}")`,
    '  RETURNED=$(printf %s "$BODY" | number returned)',
    '  [ -n "$RETURNED" ] || { echo "$BODY"; exit 1; }',
  ];
  switch (style) {
    case 'page':
      return lines(
        ...head,
        'PAGE=1',
        'while :; do',
        ...fetchPage(`$URL?page=$PAGE&page_size=${SIZE}`),
        '  TOTAL_PAGES=$(printf %s "$BODY" | number total_pages)',
        '  echo "page $PAGE of $TOTAL_PAGES: $RETURNED rows"',
        '  [ "$PAGE" -lt "$TOTAL_PAGES" ] || break',
        '  PAGE=$((PAGE + 1))',
        'done',
      );
    case 'offset':
      return lines(
        ...head,
        `OFFSET=0; LIMIT=${SIZE}`,
        'while :; do',
        ...fetchPage('$URL?offset=$OFFSET&limit=$LIMIT'),
        '  TOTAL=$(printf %s "$BODY" | number total)',
        '  echo "offset $OFFSET of $TOTAL: $RETURNED rows"',
        '  OFFSET=$((OFFSET + LIMIT))',
        '  [ "$OFFSET" -lt "$TOTAL" ] || break',
        'done',
      );
    case 'cursor':
      return lines(
        ...head,
        '# Follow pagination.next_url unchanged: the cursor in it is opaque.',
        `NEXT="$URL?paginate=cursor&page_size=${SIZE}"`,
        'while [ -n "$NEXT" ]; do',
        ...fetchPage('$NEXT'),
        '  echo "$RETURNED rows"',
        '  NEXT=$(printf %s "$BODY" | text next_url)',
        'done',
      );
    case 'token':
      return lines(
        ...head,
        'TOKEN=',
        'while :; do',
        ...fetchPage(`$URL?paginate=token&page_size=${SIZE}\${TOKEN:+&pageToken=$TOKEN}`),
        '  echo "$RETURNED rows"',
        '  TOKEN=$(printf %s "$BODY" | text nextPageToken)',
        '  [ -n "$TOKEN" ] || break',
        'done',
      );
    case 'link':
      return lines(
        ...head,
        '# -i: the headers come first; follow the Link header\'s rel="next" URL.',
        `NEXT="$URL?paginate=link&page_size=${SIZE}"`,
        'while [ -n "$NEXT" ]; do',
        ...fetchPage('$NEXT').map((line) => line.replace('curl -sS ', 'curl -sS -i ')),
        '  echo "$RETURNED rows"',
        `  NEXT=$(printf %s "$BODY" | tr -d '\\r' | sed -nE 's/^[Ll]ink: *<([^>]*)>; *rel="next".*/\\1/p')`,
        'done',
      );
  }
}

function pythonPages(style: PaginationStyle, v: Values): string {
  const head = [
    scopeNote(v, '#'),
    'import requests',
    '',
    `BASE = ${str(v.base)}`,
    `API_KEY = ${str(v.apiKey)}`,
    `URL = f"{BASE}${v.target.largePath}"`,
    '',
    'session = requests.Session()',
    'session.headers["x-api-key"] = API_KEY',
    'rows = []',
  ];
  const tail = ['print(f"{len(rows)} rows")'];
  switch (style) {
    case 'page':
      return lines(
        ...head,
        'page = 1',
        'while True:',
        `    answer = session.get(URL, params={"page": page, "page_size": ${SIZE}}, timeout=30)`,
        '    answer.raise_for_status()',
        '    body = answer.json()',
        '    rows += body["data"]',
        '    if page >= body["pagination"]["total_pages"]:',
        '        break',
        '    page += 1',
        ...tail,
      );
    case 'offset':
      return lines(
        ...head,
        `offset, limit = 0, ${SIZE}`,
        'while True:',
        '    answer = session.get(URL, params={"offset": offset, "limit": limit}, timeout=30)',
        '    answer.raise_for_status()',
        '    body = answer.json()',
        '    rows += body["data"]',
        '    offset += limit',
        '    if offset >= body["pagination"]["total"]:',
        '        break',
        ...tail,
      );
    case 'cursor':
      return lines(
        ...head,
        '# Follow pagination.next_url unchanged: the cursor in it is opaque.',
        `url, params = URL, {"paginate": "cursor", "page_size": ${SIZE}}`,
        'while url:',
        '    answer = session.get(url, params=params, timeout=30)',
        '    answer.raise_for_status()',
        '    body = answer.json()',
        '    rows += body["data"]',
        '    url, params = body["pagination"]["next_url"], None',
        ...tail,
      );
    case 'token':
      return lines(
        ...head,
        `params = {"paginate": "token", "page_size": ${SIZE}}`,
        'while True:',
        '    answer = session.get(URL, params=params, timeout=30)',
        '    answer.raise_for_status()',
        '    body = answer.json()',
        '    rows += body["data"]',
        '    if "nextPageToken" not in body:',
        '        break',
        '    params["pageToken"] = body["nextPageToken"]',
        ...tail,
      );
    case 'link':
      return lines(
        ...head,
        '# requests parses the Link header (RFC 8288) into answer.links.',
        `url, params = URL, {"paginate": "link", "page_size": ${SIZE}}`,
        'while url:',
        '    answer = session.get(url, params=params, timeout=30)',
        '    answer.raise_for_status()',
        '    rows += answer.json()["data"]',
        '    url, params = answer.links.get("next", {}).get("url"), None',
        ...tail,
      );
  }
}

function javascriptPages(style: PaginationStyle, v: Values): string {
  const head = [
    JS_HEADER,
    scopeNote(v, '//'),
    `const BASE = ${str(v.base)};`,
    `const API_KEY = ${str(v.apiKey)};`,
    `const DATA_URL = \`\${BASE}${v.target.largePath}\`;`,
    '',
    'const get = async (url) => {',
    '  const answer = await fetch(url, { headers: { "x-api-key": API_KEY } });',
    '  if (!answer.ok) throw new Error(await answer.text());',
    '  return answer;',
    '};',
    'const rows = [];',
  ];
  const tail = ['console.log(`${rows.length} rows`);'];
  switch (style) {
    case 'page':
      return lines(
        ...head,
        'for (let page = 1; ; page++) {',
        `  const body = await (await get(\`\${DATA_URL}?page=\${page}&page_size=${SIZE}\`)).json();`,
        '  rows.push(...body.data);',
        '  if (page >= body.pagination.total_pages) break;',
        '}',
        ...tail,
      );
    case 'offset':
      return lines(
        ...head,
        `const limit = ${SIZE};`,
        'for (let offset = 0; ; ) {',
        '  const body = await (await get(`${DATA_URL}?offset=${offset}&limit=${limit}`)).json();',
        '  rows.push(...body.data);',
        '  offset += limit;',
        '  if (offset >= body.pagination.total) break;',
        '}',
        ...tail,
      );
    case 'cursor':
      return lines(
        ...head,
        '// Follow pagination.next_url unchanged: the cursor in it is opaque.',
        `let next = \`\${DATA_URL}?paginate=cursor&page_size=${SIZE}\`;`,
        'while (next) {',
        '  const body = await (await get(next)).json();',
        '  rows.push(...body.data);',
        '  next = body.pagination.next_url;',
        '}',
        ...tail,
      );
    case 'token':
      return lines(
        ...head,
        'let pageToken;',
        'do {',
        `  const query = new URLSearchParams({ paginate: "token", page_size: "${SIZE}", ...(pageToken ? { pageToken } : {}) });`,
        '  const body = await (await get(`${DATA_URL}?${query}`)).json();',
        '  rows.push(...body.data);',
        '  pageToken = body.nextPageToken;',
        '} while (pageToken);',
        ...tail,
      );
    case 'link':
      return lines(
        ...head,
        '// Node reads the Link header; a browser on another origin only if the answer exposes it (the sandbox does).',
        `let next = \`\${DATA_URL}?paginate=link&page_size=${SIZE}\`;`,
        'while (next) {',
        '  const answer = await get(next);',
        '  rows.push(...(await answer.json()).data);',
        '  next = /<([^>]*)>\\s*;\\s*rel="?next"?/.exec(answer.headers.get("link") ?? "")?.[1];',
        '}',
        ...tail,
      );
  }
}

function powerQueryPages(style: PaginationStyle, v: Values): string {
  const base = m(v.base);
  const relative = m(v.target.largePath.slice(1));
  const head = [
    M_REFRESH_NOTE,
    scopeNote(v, '//'),
    'let',
    `    ApiKey = ${m(v.apiKey)},`,
    '    // One page: the fixed base URL, the dataset path and a query record (values are text).',
    '    GetPage = (query as record) as record => Json.Document(Web.Contents(',
    `        ${base},`,
    `        [RelativePath = ${relative}, Query = query, Headers = [#"x-api-key" = ApiKey]]`,
    '    )),',
  ];
  const tail = ['    Rows = Table.FromRecords(List.Combine(List.Transform(Pages, each _[data])))', 'in', '    Rows'];
  switch (style) {
    case 'page':
      return lines(
        ...head,
        `    First = GetPage([page = "1", page_size = "${SIZE}"]),`,
        `    Pages = {First} & List.Transform({2..First[pagination][total_pages]}, each GetPage([page = Text.From(_), page_size = "${SIZE}"])),`,
        ...tail,
      );
    case 'offset':
      return lines(
        ...head,
        `    First = GetPage([offset = "0", limit = "${SIZE}"]),`,
        `    Offsets = List.Numbers(${SIZE}, Number.RoundUp(First[pagination][total] / ${SIZE}) - 1, ${SIZE}),`,
        `    Pages = {First} & List.Transform(Offsets, each GetPage([offset = Text.From(_), limit = "${SIZE}"])),`,
        ...tail,
      );
    case 'cursor':
      return lines(
        ...head,
        '    // Follow pagination.next_url: its query (with the opaque cursor) goes to the same fixed base and path.',
        '    Pages = List.Generate(',
        `        () => GetPage([paginate = "cursor", page_size = "${SIZE}"]),`,
        '        each _ <> null,',
        '        each if _[pagination][next_url] = null then null else GetPage(Uri.Parts(_[pagination][next_url])[Query])',
        '    ),',
        ...tail,
      );
    case 'token':
      return lines(
        ...head,
        '    Pages = List.Generate(',
        `        () => GetPage([paginate = "token", page_size = "${SIZE}"]),`,
        '        each _ <> null,',
        `        each if Record.HasFields(_, "nextPageToken") then GetPage([paginate = "token", page_size = "${SIZE}", pageToken = _[nextPageToken]]) else null`,
        '    ),',
        ...tail,
      );
    case 'link':
      return lines(
        M_REFRESH_NOTE,
        scopeNote(v, '//'),
        'let',
        `    ApiKey = ${m(v.apiKey)},`,
        '    // One page and the query of its Link rel="next" URL (null on the last page).',
        '    GetPage = (query as record) as record =>',
        '        let',
        `            Response = Web.Contents(${base}, [RelativePath = ${relative}, Query = query, Headers = [#"x-api-key" = ApiKey]]),`,
        '            Headers = Value.Metadata(Response)[Headers],',
        '            Link = if Record.HasFields(Headers, "Link") then Headers[Link] else "",',
        '            Next = if Text.Contains(Link, "rel=""next""") then Uri.Parts(Text.BetweenDelimiters(Link, "<", ">"))[Query] else null',
        '        in',
        '            [data = Json.Document(Response)[data], next = Next],',
        '    Pages = List.Generate(',
        `        () => GetPage([paginate = "link", page_size = "${SIZE}"]),`,
        '        each _ <> null,',
        '        each if _[next] = null then null else GetPage(_[next])',
        '    ),',
        ...tail,
      );
  }
}
