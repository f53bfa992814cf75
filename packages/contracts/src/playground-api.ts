/*
 * The HTTP playground's fixed words: the notes and meanings its answers
 * carry that do not depend on the request beyond a number or a version. Like
 * data-api.ts, this is a contract between services: the playground service
 * answers with these words, and the gateway's OpenAPI examples quote them,
 * so the two cannot drift. Only words (and the numbers they state) live
 * here; every rule about when a note applies stays in the playground service
 * (services/playground/src/domain).
 */

/** The most redirects /playground/redirect makes before its final answer (n, and hop, at most this). */
export const MAX_REDIRECTS = 10;
/** The longest waits, in ms: /playground/response's delay and /playground/timeout's. */
export const DELAY_CAPS = { response: 10_000, timeout: 60_000 } as const;
/** The longest Retry-After /playground/response sends, in seconds: long enough to practise waiting, short enough to wait out. */
export const MAX_RETRY_AFTER_S = 120;
/** The statuses with which clients read Retry-After (RFC 9110 10.2.3): a redirect, 429 and 503. */
export const retryAfterHeeded = (status: number) => (status >= 300 && status < 400) || status === 429 || status === 503;
/** /playground/response's note when retry_after comes with a status clients do not read it with. */
export const retryAfterIgnoredNote = (status: number) =>
  `Retry-After was sent as asked, but clients read it only with a 3xx, 429 or 503 (RFC 9110 10.2.3), so with ${status} it is ignored.`;

/** What a client does with each redirect status (/playground/redirect, every hop and the end). */
export const REDIRECT_MEANING: Readonly<Record<number, string>> = {
  301: '301 Moved Permanently: clients repeat the request at Location, but browsers, curl -L, Python requests and most others turn a POST into a GET and drop the body (RFC 9110 15.4.2 allows it for historical reasons).',
  302: '302 Found: clients repeat the request at Location, but browsers, curl -L, Python requests and most others turn a POST into a GET and drop the body (RFC 9110 15.4.3 allows it for historical reasons).',
  307: '307 Temporary Redirect: clients must repeat the request at Location with the same method and the same body (RFC 9110 15.4.8).',
  308: '308 Permanent Redirect: clients must repeat the request at Location with the same method and the same body (RFC 9110 15.4.9).',
};

/** A redirect hop's second note: its Location is relative. */
export const REDIRECT_LOCATION_NOTE = 'Location is a path on this host: a client resolves it against the URL it just asked for.';

/** /playground/timeout's note, once it has waited. */
export const timeoutNote = (waitedMs: number) =>
  `Waited ${waitedMs} ms before answering. Set your client's timeout below the delay to watch it give up; when it disconnects, the server stops waiting too.`;

/** /playground/headers: what became of the case of header names, over HTTP/1.x. */
export const HEADER_CASE_KEPT_NOTE =
  'Header names keep the case your client wrote; HTTP says they are case-insensitive (RFC 9110 5.1), so servers compare them in lower case, as the normalised map does.';
/** /playground/headers: what became of the case of header names, over HTTP/2 and HTTP/3. */
export const headerCaseLostNote = (httpVersion: string) =>
  `HTTP/${httpVersion} sends header names in lower case, so the case your client wrote is gone before any server sees it.`;

// ---- the CORS lab ----

/** The lab's Access-Control-Max-Age when max_age is not given (the same as the rest of the API's preflight answers). */
/**
 * Whether the lab's origin parameter is a serialised origin (scheme, host and
 * port; no path, no trailing slash), or null: what a browser sends in Origin.
 * The gateway's contract refuses anything else with a 400, and the playground
 * checks it again for callers that come in over gRPC.
 */
export function isSerialisedOrigin(value: string): boolean {
  if (value === 'null') return true;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

export const LAB_DEFAULT_MAX_AGE = 600;
export const MAX_AGE_LIMIT = 86_400;
/** How long browsers keep a preflight answer at most, whatever Access-Control-Max-Age says. */
export const BROWSER_MAX_AGE_CAPS = { chromium: 7200, firefox: 86_400 } as const;

/** The meaning of every parameter of the CORS lab, as cors/info lists them and docs/http-practice.md documents them. */
export const CORS_PARAMETERS: ReadonlyArray<{ name: string; role: 'steering' | 'intended request'; meaning: string }> = [
  {
    name: 'allow_origin',
    role: 'steering',
    meaning:
      'Access-Control-Allow-Origin of every lab answer, sent exactly as given: an origin (https://example.org), * or null. Absent: your Origin, reflected. A browser accepts only an exact match (scheme, host and port; no path or trailing slash), or * for a request without credentials.',
  },
  {
    name: 'allow_methods',
    role: 'steering',
    meaning:
      'Access-Control-Allow-Methods of a preflight answer: methods separated by commas, compared case-sensitively; * means any method, for a request without credentials only. Empty (allow_methods=): no such header, so only GET, HEAD and POST pass. Absent: the method the preflight asks about, reflected.',
  },
  {
    name: 'allow_headers',
    role: 'steering',
    meaning:
      'Access-Control-Allow-Headers of a preflight answer: header names separated by commas, compared case-insensitively; * means any header except Authorization, for a request without credentials only. Empty (allow_headers=): no such header. Absent: the headers the preflight asks about, reflected.',
  },
  {
    name: 'allow_credentials',
    role: 'steering',
    meaning:
      'true: every lab answer carries Access-Control-Allow-Credentials: true, which a request with credentials (cookies, HTTP authentication) needs, together with an exact origin. false or absent: no such header.',
  },
  {
    name: 'max_age',
    role: 'steering',
    meaning: `Access-Control-Max-Age of a preflight answer in seconds, 0 to ${MAX_AGE_LIMIT}: how long the browser may reuse it for the same origin, URL and credentials mode (Chromium keeps it at most ${BROWSER_MAX_AGE_CAPS.chromium} s, Firefox ${BROWSER_MAX_AGE_CAPS.firefox} s; 0: ask every time). Absent: ${LAB_DEFAULT_MAX_AGE}.`,
  },
  {
    name: 'method',
    role: 'intended request',
    meaning: 'The method your page will use (default GET). fetch upper-cases only DELETE, GET, HEAD, OPTIONS, POST and PUT.',
  },
  { name: 'headers', role: 'intended request', meaning: 'The header names your page will set, separated by commas (default none).' },
  {
    name: 'content_type',
    role: 'intended request',
    meaning:
      'The Content-Type value your page will send, if any; only application/x-www-form-urlencoded, multipart/form-data and text/plain avoid a preflight.',
  },
  { name: 'credentials', role: 'intended request', meaning: "fetch's credentials option: omit, same-origin (fetch's default) or include." },
  {
    name: 'origin',
    role: 'intended request',
    meaning: 'The origin of the page to ask about (default: the Origin header of this request), e.g. when asking with curl.',
  },
];

/** cors/info's maxAge.note, with a preflight. */
export const PREFLIGHT_REUSE_NOTE =
  'A kept preflight answer is reused for the same origin, URL (query included) and credentials mode; another query string is asked again.';

/** The response headers every lab answer exposes to the page (Access-Control-Expose-Headers). */
export const LAB_EXPOSED_HEADERS = ['X-Request-Id', 'Link'] as const;

/** cors/info's note on what a page can read of an answer, for a simple or preflighted request. */
export const EXPOSED_HEADERS_NOTE = `Besides the safelisted response headers (Cache-Control, Content-Language, Content-Length, Content-Type, Expires, Last-Modified, Pragma), a page can read only what Access-Control-Expose-Headers names: the lab exposes ${LAB_EXPOSED_HEADERS.join(' and ')}.`;
