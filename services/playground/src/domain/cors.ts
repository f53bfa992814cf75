import { playgroundApi } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { headerValue } from './headers';
import { baseOrigin, jsonAnswer, TOKEN, type Answer, type Inbound } from './http';
import { parseMediaType } from './media-type';
import { invalidParameter, Query } from './query';

// The rules a browser applies to a cross-origin fetch(), from the Fetch
// standard (https://fetch.spec.whatwg.org/, sections "CORS protocol", "HTTP
// extensions" and "CORS-preflight fetch"), with the places Chromium departs
// from it said where they matter.

/** Fetch "CORS-safelisted method": the only methods that never need a preflight. */
export const SAFELISTED_METHODS: readonly string[] = ['GET', 'HEAD', 'POST'];
/** Fetch "normalize a method": only these are upper-cased; `patch` goes out as `patch`. */
const NORMALISED_METHODS: readonly string[] = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
/** Fetch "forbidden method": fetch() throws a TypeError for these before sending anything. */
const FORBIDDEN_METHODS: readonly string[] = ['CONNECT', 'TRACE', 'TRACK'];
/** Fetch "forbidden request-header": a script cannot set these (fetch silently leaves them out); the browser sets them itself. */
const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'accept-charset',
  'accept-encoding',
  'access-control-request-headers',
  'access-control-request-method',
  'connection',
  'content-length',
  'cookie',
  'cookie2',
  'date',
  'dnt',
  'expect',
  'host',
  'keep-alive',
  'origin',
  'referer',
  'set-cookie',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'via',
]);
const SAFELISTED_CONTENT_TYPES: readonly string[] = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
/** Header names whose value decides whether they are safelisted (Fetch "CORS-safelisted request-header"). */
const SAFELISTED_HEADER_NAMES: readonly string[] = ['accept', 'accept-language', 'content-language', 'content-type', 'range'];

/**
 * The lab's default and largest Access-Control-Max-Age, how long browsers
 * keep a preflight answer at most, and the lab parameters' meanings: words
 * and numbers the gateway's document quotes too, so they are the contract's
 * (packages/contracts playground-api.ts).
 */
export const { LAB_DEFAULT_MAX_AGE, MAX_AGE_LIMIT, BROWSER_MAX_AGE_CAPS, CORS_PARAMETERS } = playgroundApi;
/** Without Access-Control-Max-Age, a browser keeps a preflight answer 5 seconds (Fetch). */
export const FETCH_DEFAULT_MAX_AGE = 5;

export type Credentials = 'omit' | 'same-origin' | 'include';

/** Fetch "normalize a method". */
export function normaliseMethod(method: string): string {
  const upper = method.toUpperCase();
  return NORMALISED_METHODS.includes(upper) ? upper : method;
}

export const isSafelistedMethod = (method: string) => SAFELISTED_METHODS.includes(method);
export const isForbiddenMethod = (method: string) => FORBIDDEN_METHODS.includes(method.toUpperCase());

/** Fetch "forbidden request-header" by name (the X-HTTP-Method-Override family is forbidden only with a forbidden method as its value). */
export function isForbiddenHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return FORBIDDEN_HEADERS.has(lower) || lower.startsWith('proxy-') || lower.startsWith('sec-');
}

/** Fetch "CORS-unsafe request-header byte". */
export function hasUnsafeByte(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f || '"():<>?@[\\]{}'.includes(value[i])) return true;
  }
  return false;
}

/** Fetch "simple range header value" (one range, start given, no whitespace): `bytes=0-` or `bytes=0-499`. */
const SIMPLE_RANGE = /^bytes=([0-9]+)-([0-9]*)$/;

/** Fetch "CORS-safelisted request-header": whether a header with this name and value goes out without a preflight. */
export function isSafelistedRequestHeader(name: string, value: string): boolean {
  if (value.length > 128) return false;
  switch (name.toLowerCase()) {
    case 'accept':
      return !hasUnsafeByte(value);
    case 'accept-language':
    case 'content-language':
      return /^[0-9A-Za-z *,\-.;=]*$/.test(value);
    case 'content-type': {
      if (hasUnsafeByte(value)) return false;
      const type = parseMediaType(value);
      return type !== null && SAFELISTED_CONTENT_TYPES.includes(type.essence);
    }
    case 'range': {
      const range = SIMPLE_RANGE.exec(value);
      return range !== null && (range[2] === '' || Number(range[1]) <= Number(range[2]));
    }
    default:
      return false;
  }
}

/** What the steering parameters make the lab's answers allow (absent: the lab's default for that header). */
export interface LabParameters {
  /** Access-Control-Allow-Origin as given; absent: the request's Origin, reflected. */
  allowOrigin?: string;
  /** Access-Control-Allow-Methods items as given (case kept); absent: the requested method, reflected; []: no such header. */
  allowMethods?: string[];
  /** Access-Control-Allow-Headers items as given; absent: the requested headers, reflected; []: no such header. */
  allowHeaders?: string[];
  /** Access-Control-Allow-Credentials: true when true; no such header otherwise. */
  allowCredentials: boolean;
  /** Access-Control-Max-Age in seconds; absent: LAB_DEFAULT_MAX_AGE. */
  maxAge?: number;
}

const ORIGIN_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]{0,254}[\x21-\x7e])?$/;

/** A comma-separated list of tokens (or *), items trimmed; "" is an empty list. */
function tokenList(query: Query, name: string, what: string): string[] | undefined {
  const value = query.single(name);
  if (value === undefined) return undefined;
  if (value.trim() === '') return [];
  const items = value.split(',').map((item) => item.trim());
  if (items.length > 50 || items.some((item) => item !== '*' && !TOKEN.test(item))) {
    throw invalidParameter(`${name} must be ${what} separated by commas (or *), at most 50; got ${quoteInput(value)}.`);
  }
  return items;
}

/** The steering parameters (allow_origin, allow_methods, allow_headers, allow_credentials, max_age), checked. */
export function readLabParameters(query: Query): LabParameters {
  const allowOrigin = query.single('allow_origin');
  if (allowOrigin !== undefined && !ORIGIN_VALUE.test(allowOrigin)) {
    throw invalidParameter(
      `allow_origin must be an origin such as https://example.org, * or null (printable ASCII, at most 256 characters); got ${quoteInput(allowOrigin)}.`,
    );
  }
  const allowMethods = tokenList(query, 'allow_methods', 'method names');
  const allowHeaders = tokenList(query, 'allow_headers', 'header names');
  const credentials = query.single('allow_credentials');
  if (credentials !== undefined && credentials !== 'true' && credentials !== 'false') {
    throw invalidParameter(`allow_credentials must be true or false; got ${quoteInput(credentials)}.`);
  }
  const maxAge = query.has('max_age') ? query.integer('max_age', LAB_DEFAULT_MAX_AGE, `a whole number of seconds from 0 to ${MAX_AGE_LIMIT}`) : undefined;
  if (maxAge !== undefined && maxAge > MAX_AGE_LIMIT) throw invalidParameter(`max_age must be from 0 to ${MAX_AGE_LIMIT} seconds; got ${maxAge}.`);
  return { allowOrigin, allowMethods, allowHeaders, allowCredentials: credentials === 'true', maxAge };
}

/** The request a page intends to make, as info is asked about it. */
export interface IntendedRequest {
  /** The method as given. */
  givenMethod: string;
  /** The method fetch sends (normalised). */
  method: string;
  /** Header names the page sets (as given, repeats removed), Content-Type included when content_type is given. */
  headers: string[];
  contentType?: string;
  credentials: Credentials;
  origin: string | null;
  originSource: 'origin parameter' | 'Origin header' | 'none';
}

export function readIntendedRequest(query: Query, originHeader: string | undefined): IntendedRequest {
  const givenMethod = query.single('method') ?? 'GET';
  if (!TOKEN.test(givenMethod) || givenMethod.length > 32)
    throw invalidParameter(`method must be an HTTP method name such as PUT; got ${quoteInput(givenMethod)}.`);
  const listed = tokenList(query, 'headers', 'header names') ?? [];
  if (listed.includes('*')) throw invalidParameter('headers lists the header names your page will set; * is not a header name.');
  const contentType = query.single('content_type');
  if (contentType !== undefined && !/^[\x20-\x7e]{1,256}$/.test(contentType)) {
    throw invalidParameter(
      `content_type must be a Content-Type value such as text/plain (printable ASCII, at most 256 characters); got ${quoteInput(contentType)}.`,
    );
  }
  const credentials = query.single('credentials') ?? 'same-origin';
  if (credentials !== 'omit' && credentials !== 'same-origin' && credentials !== 'include') {
    throw invalidParameter(`credentials must be omit, same-origin or include (fetch's credentials option); got ${quoteInput(credentials)}.`);
  }
  const originParam = query.single('origin');
  if (originParam !== undefined && !playgroundApi.isSerialisedOrigin(originParam)) {
    throw invalidParameter(
      `origin must be an origin such as https://example.org (scheme, host and port; no path or trailing slash) or null; got ${quoteInput(originParam)}.`,
    );
  }
  const headers: string[] = [];
  for (const name of contentType !== undefined ? [...listed, 'Content-Type'] : listed) {
    if (!headers.some((seen) => seen.toLowerCase() === name.toLowerCase())) headers.push(name);
  }
  return {
    givenMethod,
    method: normaliseMethod(givenMethod),
    headers,
    contentType,
    credentials,
    origin: originParam ?? originHeader ?? null,
    originSource: originParam !== undefined ? 'origin parameter' : originHeader !== undefined ? 'Origin header' : 'none',
  };
}

export type CheckResult = 'pass' | 'fail' | 'skipped' | 'unknown';
export interface Check {
  result: CheckResult;
  why: string;
}
export type CheckName = 'origin' | 'credentials' | 'method' | 'headers';

export interface CorsVerdict {
  /** none: same origin, no CORS at all; blocked: fetch refuses to send it; simple: sent at once; preflight: OPTIONS first. */
  check: 'none' | 'blocked' | 'simple' | 'preflight';
  why: string[];
  /** Header names that need the preflight's permission, lower case and sorted, as Access-Control-Request-Headers lists them. */
  unsafeHeaders: string[];
  /** Header names fetch leaves out (forbidden): the browser sets them itself. */
  droppedHeaders: string[];
  checks: Record<CheckName, Check>;
  /** In the order the browser makes them: the preflight's origin and credentials, its method, its headers; then the answer's origin and credentials. */
  failing: CheckName[];
  verdict: 'pass' | 'fail' | 'unknown';
  notes: string[];
}

const skipped = (why: string): Check => ({ result: 'skipped', why });

/** Why an Access-Control-Allow-Origin value does not match an origin, in words. */
function originMismatch(allowed: string, origin: string): string {
  const base = `Access-Control-Allow-Origin is ${JSON.stringify(allowed)} but the page's origin is ${JSON.stringify(origin)}; a browser accepts only an exact match`;
  if (allowed.includes(',') || allowed.includes(' '))
    return `${base}, and only one origin: a list is never accepted (a server that allows several must reflect the one that asked).`;
  if (allowed === `${origin}/`) return `${base}: the trailing slash makes it a different string (an origin has no path).`;
  if (allowed.toLowerCase() === origin.toLowerCase()) return `${base}, byte for byte: the case differs.`;
  if (allowed === 'null')
    return `${base}: null matches only pages with an opaque origin (sandboxed iframes, file: pages), which is why allowing null is unsafe.`;
  return `${base} (scheme, host and port).`;
}

/**
 * The checks a browser makes for `request` against lab answers steered by
 * `lab`, the Fetch standard's way: which kind of request it is, and for each
 * check whether it passes.
 */
export function evaluateCors(request: IntendedRequest, lab: LabParameters, serviceOrigin: string | null): CorsVerdict {
  const notes: string[] = [];
  const droppedHeaders = request.headers.filter(isForbiddenHeaderName);
  const sent = request.headers.filter((name) => !isForbiddenHeaderName(name));
  if (droppedHeaders.length) {
    notes.push(
      `fetch silently leaves out ${droppedHeaders.join(', ')}: a script may not set ${droppedHeaders.length > 1 ? 'these headers' : 'this header'}; the browser sets ${droppedHeaders.length > 1 ? 'them' : 'it'} itself.`,
    );
  }
  const why: string[] = [];
  const unsafe = new Set<string>();
  for (const name of sent) {
    const lower = name.toLowerCase();
    if (lower === 'content-type') {
      if (request.contentType === undefined) {
        unsafe.add(lower);
        why.push(
          'Content-Type is set without content_type=..., so it is taken to be application/json, which is not one of the three safelisted types; give content_type to check another value.',
        );
      } else if (!isSafelistedRequestHeader(name, request.contentType)) {
        unsafe.add(lower);
        why.push(
          `Content-Type ${JSON.stringify(request.contentType)} is not safelisted: only application/x-www-form-urlencoded, multipart/form-data and text/plain are (at most 128 bytes, none of "():<>?@[\\]{}).`,
        );
      }
    } else if (SAFELISTED_HEADER_NAMES.includes(lower)) {
      notes.push(
        `${name} is taken to carry a safelisted value (at most 128 bytes; Accept-Language and Content-Language only letters, digits, space and *,-.;=; Range only one bytes=start-[end] range); another value needs a preflight.`,
      );
    } else {
      unsafe.add(lower);
      why.push(`${name} is not a CORS-safelisted request header.`);
    }
  }
  const unsafeHeaders = [...unsafe].sort();
  if (request.method !== request.givenMethod) notes.push(`fetch sends ${JSON.stringify(request.givenMethod)} as ${request.method}.`);
  else if (request.method !== request.method.toUpperCase()) {
    notes.push(
      `fetch sends ${JSON.stringify(request.method)} exactly so: it upper-cases only DELETE, GET, HEAD, OPTIONS, POST and PUT. Browsers then disagree: the Fetch standard (Firefox, Safari) needs ${JSON.stringify(request.method)} in Access-Control-Allow-Methods, Chromium needs ${JSON.stringify(request.method.toUpperCase())}. Write ${request.method.toUpperCase()} in your code.`,
    );
  }

  const result = (check: CorsVerdict['check'], checks: Record<CheckName, Check>): CorsVerdict => {
    const failing = (['origin', 'credentials', 'method', 'headers'] as const).filter((name) => checks[name].result === 'fail');
    const unknown = (['origin', 'credentials', 'method', 'headers'] as const).some((name) => checks[name].result === 'unknown');
    return { check, why, unsafeHeaders, droppedHeaders, checks, failing, verdict: failing.length ? 'fail' : unknown ? 'unknown' : 'pass', notes };
  };

  if (isForbiddenMethod(request.method)) {
    why.length = 0;
    why.push(`${request.method.toUpperCase()} is a forbidden method: fetch throws a TypeError before sending anything.`);
    const blocked = skipped('Nothing is sent.');
    return result('blocked', { origin: blocked, credentials: blocked, method: { result: 'fail', why: why[0] }, headers: blocked });
  }
  if (request.origin !== null && serviceOrigin !== null && request.origin === serviceOrigin) {
    why.length = 0;
    why.push(`The page's origin is this service's own (${serviceOrigin}): a same-origin request needs no CORS at all.`);
    const none = skipped('Same origin: no CORS check.');
    return result('none', { origin: none, credentials: none, method: none, headers: none });
  }

  const preflight = !isSafelistedMethod(request.method) || unsafeHeaders.length > 0;
  if (!isSafelistedMethod(request.method)) why.unshift(`${request.method} is not a CORS-safelisted method (GET, HEAD, POST).`);
  if (!preflight)
    why.push(`${request.method} with only safelisted headers is a simple request: the browser sends it at once and checks only the answer's headers.`);
  const credentialed = request.credentials === 'include';

  // The origin check, on the preflight answer and on the actual answer alike (the same parameters steer both).
  const allowed = lab.allowOrigin;
  let origin: Check;
  if (allowed === undefined) origin = { result: 'pass', why: 'Access-Control-Allow-Origin reflects the Origin the browser sends, so any origin passes.' };
  else if (allowed === '*')
    origin = { result: 'pass', why: 'Access-Control-Allow-Origin is *: any origin passes (for a request without credentials; see credentials).' };
  else if (request.origin === null) {
    origin = {
      result: 'unknown',
      why: `No origin to compare: only a page whose origin is exactly ${JSON.stringify(allowed)} passes. Call this from your page, or give origin=.`,
    };
  } else if (allowed === request.origin)
    origin = { result: 'pass', why: `Access-Control-Allow-Origin is exactly the page's origin, ${JSON.stringify(allowed)}.` };
  else origin = { result: 'fail', why: originMismatch(allowed, request.origin) };

  let credentials: Check;
  if (!credentialed) {
    credentials = skipped(
      request.credentials === 'omit'
        ? "credentials: 'omit' sends no cookies or HTTP authentication, so Access-Control-Allow-Credentials does not matter."
        : "credentials: 'same-origin' (fetch's default) sends no cookies or HTTP authentication to another origin, so Access-Control-Allow-Credentials does not matter.",
    );
  } else if (allowed === '*') {
    credentials = { result: 'fail', why: "With credentials: 'include', Access-Control-Allow-Origin must name the origin exactly; * is refused." };
  } else if (!lab.allowCredentials) {
    credentials = {
      result: 'fail',
      why: "With credentials: 'include', the answer must carry Access-Control-Allow-Credentials: true (give allow_credentials=true).",
    };
  } else credentials = { result: 'pass', why: 'Access-Control-Allow-Credentials: true, with an exact origin: credentials may travel.' };

  let method: Check;
  let headers: Check;
  if (!preflight) {
    method = skipped('No preflight: the browser does not ask about the method.');
    headers = skipped('No preflight: the browser does not ask about the headers.');
  } else {
    const methods = lab.allowMethods ?? [request.method];
    const shownMethods = methods.length ? JSON.stringify(methods.join(', ')) : 'absent';
    if (isSafelistedMethod(request.method))
      method = { result: 'pass', why: `${request.method} is safelisted: it passes whatever Access-Control-Allow-Methods says.` };
    else if (methods.includes(request.method)) method = { result: 'pass', why: `Access-Control-Allow-Methods (${shownMethods}) lists ${request.method}.` };
    else if (!credentialed && methods.includes('*'))
      method = { result: 'pass', why: 'Access-Control-Allow-Methods is *: any method, for a request without credentials.' };
    else {
      const otherCase = methods.find((m) => m.toLowerCase() === request.method.toLowerCase());
      method = {
        result: 'fail',
        why:
          `Access-Control-Allow-Methods (${shownMethods}) does not list ${request.method}` +
          (otherCase
            ? `: it lists ${otherCase}, and methods are compared case-sensitively.`
            : credentialed && methods.includes('*')
              ? ": with credentials, * is a literal name, not 'any'."
              : '.'),
      };
    }
    const names = (lab.allowHeaders ?? unsafeHeaders).map((name) => name.toLowerCase());
    const wildcard = !credentialed && names.includes('*');
    const authorizationUncovered = sent.some((name) => name.toLowerCase() === 'authorization') && !names.includes('authorization');
    const missing = unsafeHeaders.filter((name) => !names.includes(name));
    const shownHeaders = names.length ? JSON.stringify((lab.allowHeaders ?? unsafeHeaders).join(', ')) : 'absent';
    if (authorizationUncovered && wildcard) {
      headers = { result: 'fail', why: 'Authorization must be named in Access-Control-Allow-Headers: * never covers it.' };
    } else if (missing.length === 0) {
      headers = {
        result: 'pass',
        why: unsafeHeaders.length ? `Access-Control-Allow-Headers (${shownHeaders}) covers ${unsafeHeaders.join(', ')}.` : 'No header needs permission.',
      };
    } else if (wildcard) {
      headers = { result: 'pass', why: 'Access-Control-Allow-Headers is *: any header but Authorization, for a request without credentials.' };
    } else {
      headers = {
        result: 'fail',
        why: `Access-Control-Allow-Headers (${shownHeaders}) does not list ${missing.join(', ')}${credentialed && names.includes('*') ? "; with credentials, * is a literal name, not 'any'" : ''}.`,
      };
    }
  }
  if (credentialed && !lab.allowCredentials && preflight)
    notes.push('A preflight itself never carries credentials, but its answer must allow them for the request that follows.');
  return result(preflight ? 'preflight' : 'simple', { origin, credentials, method, headers });
}

/** The Access-Control-* headers the lab answers with under these parameters (the gateway sends them; Vary and Expose-Headers besides). */
export function labHeaders(lab: LabParameters, request: IntendedRequest, unsafeHeaders: string[], kind: 'preflight' | 'actual'): Record<string, string | null> {
  const headers: Record<string, string | null> = { 'Access-Control-Allow-Origin': lab.allowOrigin ?? request.origin };
  if (lab.allowCredentials) headers['Access-Control-Allow-Credentials'] = 'true';
  if (kind === 'preflight') {
    const methods = lab.allowMethods ?? [request.method];
    const names = lab.allowHeaders ?? unsafeHeaders;
    if (methods.length) headers['Access-Control-Allow-Methods'] = methods.join(', ');
    if (names.length) headers['Access-Control-Allow-Headers'] = names.join(', ');
    headers['Access-Control-Max-Age'] = String(lab.maxAge ?? LAB_DEFAULT_MAX_AGE);
  }
  return headers;
}

/** One sentence: what the browser will do. */
function summarise(request: IntendedRequest, verdict: CorsVerdict): string {
  const who = request.origin === null ? 'A page' : `A page at ${request.origin}`;
  const what = `${who} calling ${request.method}${verdict.unsafeHeaders.length ? ` with ${verdict.unsafeHeaders.join(', ')}` : ''}`;
  if (verdict.check === 'blocked') return `${what}: fetch refuses to send it at all.`;
  if (verdict.check === 'none') return `${what}: same origin, so no CORS check.`;
  const kind = verdict.check === 'preflight' ? 'makes a preflight (OPTIONS) first' : 'is a simple request (no preflight)';
  if (verdict.verdict === 'pass') return `${what} ${kind}, and every check passes: the page can read the answer.`;
  if (verdict.verdict === 'unknown') return `${what} ${kind}; whether it passes depends on the page's origin.`;
  const first = verdict.checks[verdict.failing[0]].why;
  const stage =
    verdict.check === 'preflight' ? 'the preflight fails, so the request itself is never sent' : 'the request is sent, but the page cannot read the answer';
  return `${what} ${kind}; ${stage} (fetch rejects with a TypeError): ${first}`;
}

/**
 * GET /playground/cors/info: which check a browser makes for the intended
 * request (method, headers, content_type, credentials, from the page's
 * origin) against the lab steered by the same query, and which check would
 * fail.
 */
export function corsInfo(request: Inbound): Answer {
  const query = new Query(request.rawQuery);
  const lab = readLabParameters(query);
  const originHeader = headerValue(request.headers, 'origin');
  const intended = readIntendedRequest(query, originHeader);
  const serviceOrigin = baseOrigin(request.baseUrl);
  const verdict = evaluateCors(intended, lab, serviceOrigin);
  const notes = [...verdict.notes];
  if (intended.origin === null) {
    notes.push(
      'This request carried no Origin header, so it did not come from a cross-origin fetch (curl, a server, a navigation or a same-origin GET send none). Give origin= to ask about a page.',
    );
  }
  if (intended.origin === 'null') notes.push('Origin null is what sandboxed iframes and file: pages send.');
  if (verdict.check === 'preflight' || verdict.check === 'simple') {
    notes.push(playgroundApi.EXPOSED_HEADERS_NOTE);
  }
  if (verdict.check === 'simple' && intended.method === 'POST') {
    notes.push(
      'A POST with a safelisted Content-Type is sent without asking: CORS only stops the page reading the answer, so a server must not rely on it against cross-site requests (CSRF).',
    );
  }
  const maxAge = lab.maxAge ?? LAB_DEFAULT_MAX_AGE;
  const given = (name: string) => query.single(name) ?? null;

  return jsonAnswer({
    origin: { value: intended.origin, source: intended.originSource, serviceOrigin, sameOrigin: verdict.check === 'none' },
    request: {
      method: intended.method,
      headers: intended.headers.filter((name) => !isForbiddenHeaderName(name)),
      contentType: intended.contentType ?? null,
      credentials: intended.credentials,
      droppedByBrowser: verdict.droppedHeaders,
    },
    check: verdict.check,
    why: verdict.why,
    preflightRequest:
      verdict.check === 'preflight'
        ? {
            method: 'OPTIONS',
            headers: {
              Origin: intended.origin,
              'Access-Control-Request-Method': intended.method,
              ...(verdict.unsafeHeaders.length ? { 'Access-Control-Request-Headers': verdict.unsafeHeaders.join(',') } : {}),
            },
          }
        : null,
    checks: verdict.checks,
    failing: verdict.failing,
    verdict: verdict.verdict,
    summary: summarise(intended, verdict),
    labAnswers: {
      preflight: verdict.check === 'preflight' ? labHeaders(lab, intended, verdict.unsafeHeaders, 'preflight') : null,
      actual: labHeaders(lab, intended, verdict.unsafeHeaders, 'actual'),
    },
    maxAge:
      verdict.check === 'preflight'
        ? {
            seconds: maxAge,
            chromiumKeepsFor: Math.min(maxAge, BROWSER_MAX_AGE_CAPS.chromium),
            firefoxKeepsFor: Math.min(maxAge, BROWSER_MAX_AGE_CAPS.firefox),
            note: playgroundApi.PREFLIGHT_REUSE_NOTE,
          }
        : null,
    parameters: CORS_PARAMETERS.map((parameter) => ({ ...parameter, given: given(parameter.name) })),
    notes,
  });
}
