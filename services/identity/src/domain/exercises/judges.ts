/**
 * Judge builders for the exercise catalogue (catalogue.ts): small, named and
 * reused, so that the catalogue stays data. Each returns a Judge: given one
 * request a learner's app made (and what was remembered of their last attempt
 * at that exercise), it answers done, an attempt with a hint, or undefined
 * when the request has nothing to do with the exercise.
 *
 * Most requests are unrelated to most exercises, and every request is shown
 * to every judge, so each judge compares the path (and method) first and
 * reads facts only after that.
 *
 * Hints are written from the request's own refusal ("code: message", which
 * the gateway and the services write never to hold a secret or an expected
 * value) and from facts the learner's own client sent or caused, never from
 * anything else.
 */
import type { ExerciseProgress, Judge, ObservedRequest, Verdict } from './types';

export const DONE: Verdict = { kind: 'done' };

const attempt = (hint: string): Verdict => ({ kind: 'attempt', hint });

/** 2xx: the request did what it asked. A 3xx or a 304 is not a success here. */
export const succeeded = (status: number): boolean => status >= 200 && status < 300;

/** A refusal's message is shown back at most this long (messages quote what was sent, cut already; this bounds the hint). */
export const HINT_MESSAGE_MAX = 400;

/** The failing rule in the learner's words: "Your last try was refused (code): message. <what to change>". */
export function refusalHint(request: ObservedRequest, change: string): string {
  const { failure } = request;
  if (!failure) return `Your last try was answered ${request.status}. ${change}`;
  const colon = failure.indexOf(': ');
  const code = colon > 0 ? failure.slice(0, colon) : '';
  let message = colon > 0 ? failure.slice(colon + 2) : failure;
  if (message.length > HINT_MESSAGE_MAX) message = `${message.slice(0, HINT_MESSAGE_MAX)}…`;
  const said = /[.!?…]$/.test(message) ? message : `${message}.`;
  return `Your last try was refused with ${request.status}${code ? ` (${code})` : ''}: ${said} ${change}`;
}

/** The code of a refusal ("code: message"), '' without one. */
export function failureCode(request: ObservedRequest): string {
  const colon = request.failure.indexOf(': ');
  return colon > 0 ? request.failure.slice(0, colon) : request.failure;
}

// ---- where requests go ---------------------------------------------------------------------

export const DATA_ROOT = '/playground/data';
const DATA_PAGE = /^\/playground\/data\/([^/]+)\/[^/]+$/;

/** GET /playground/data/{pack}/{entity}: a data page (the catalogue and pack descriptions are not). */
export const isDataPage = (path: string): boolean => path.startsWith(DATA_ROOT) && DATA_PAGE.test(path);

/** The pack of a data page's path, undefined for any other path. */
export const packOf = (path: string): string | undefined => (path.startsWith(DATA_ROOT) ? DATA_PAGE.exec(path)?.[1] : undefined);

export const AUTH_PLAYGROUND = '/playground/auth';

/** The playground endpoint of each style (docs/auth-playground.md), by the style the gateway logs. */
export const AUTH_ENDPOINTS = {
  basic: `${AUTH_PLAYGROUND}/basic`,
  bearer: `${AUTH_PLAYGROUND}/bearer`,
  api_key_header: `${AUTH_PLAYGROUND}/api-key`,
  api_key_query: `${AUTH_PLAYGROUND}/api-key-query`,
  oauth2: `${AUTH_PLAYGROUND}/oauth2`,
  oauth1: `${AUTH_PLAYGROUND}/oauth1`,
  hmac: `${AUTH_PLAYGROUND}/hmac`,
  digest: `${AUTH_PLAYGROUND}/digest`,
  jwt: `${AUTH_PLAYGROUND}/jwt`,
} as const;

export const OAUTH2_TOKEN = '/oauth/token';
export const OAUTH1_PATHS = {
  requestToken: '/oauth1/request_token',
  authorize: '/oauth1/authorize',
  accessToken: '/oauth1/access_token',
  resource: AUTH_ENDPOINTS.oauth1,
} as const;

/** Which path a judge looks at: one exact path (the cheapest test), or a rule. */
export type PathRule = string | ((path: string) => boolean);

const pathMatches = (rule: PathRule, path: string): boolean => (typeof rule === 'string' ? rule === path : rule(path));

/** Facts a request must carry, by name (docs/exercises.md). */
export type RequiredFacts = Readonly<Record<string, string>>;

/** True when every named fact is present with its value. */
const hasFacts = (request: ObservedRequest, facts: RequiredFacts): boolean => Object.entries(facts).every(([name, value]) => request.facts[name] === value);

/** True when a named fact is present with another value: the request belongs to a sibling exercise (e.g. RS256, not HS256). */
const contradictsFacts = (request: ObservedRequest, facts: RequiredFacts): boolean =>
  Object.entries(facts).some(([name, value]) => request.facts[name] !== undefined && request.facts[name] !== value);

/** The attempt remembered for this exercise, when it came before this request (batches from several gateways may arrive out of order). */
const earlierAttempt = (request: ObservedRequest, previous: ExerciseProgress | undefined) => {
  const last = previous?.lastAttempt;
  return last && last.at <= request.at ? last : undefined;
};

// ---- builders ------------------------------------------------------------------------------

export interface SucceedsAt {
  /** The methods it is judged on; absent: any. */
  methods?: readonly string[];
  path: PathRule;
  /** The styles that count (ObservedRequest.authStyle); absent: any, including none. */
  authStyles?: readonly string[];
  /** Facts a success must carry; a refusal that carries one of them with another value belongs to another exercise. */
  facts?: RequiredFacts;
  /** What to change after a refusal, in the imperative. */
  advice: string;
}

/**
 * Done when a request at `path` succeeds (2xx) with one of `authStyles` and
 * `facts`; a refusal there (4xx, 5xx) is an attempt whose hint is its rule. A
 * success with another style or other facts is another exercise's.
 */
export function succeedsAt(spec: SucceedsAt): Judge {
  const { methods, path, authStyles, facts = {}, advice } = spec;
  return (request) => {
    if (!pathMatches(path, request.path)) return undefined;
    if (methods && !methods.includes(request.method)) return undefined;
    const otherStyle = authStyles !== undefined && !authStyles.includes(request.authStyle);
    if (request.status >= 400) {
      // A refusal that named no style ('') may still be this exercise's; one that named another style is not.
      if ((otherStyle && request.authStyle !== '') || contradictsFacts(request, facts)) return undefined;
      return attempt(refusalHint(request, advice));
    }
    if (!succeeded(request.status) || otherStyle) return undefined;
    return hasFacts(request, facts) ? DONE : undefined;
  };
}

export interface FixedAfter {
  /** The refusal to read: its status, and its code when only one code teaches the lesson. */
  status: number;
  code?: string;
  /**
   * The endpoint a path belongs to, as a key (undefined: not this exercise's).
   * The fix must succeed at the same endpoint as the refusal.
   */
  endpoint: (path: string) => string | undefined;
  /** Refusals that are steps of a protocol rather than mistakes (Digest's challenge): not counted. */
  ignore?: (request: ObservedRequest) => boolean;
  advice: string;
}

/**
 * "Read and fixed": a refusal with `status` at one of the exercise's
 * endpoints is an attempt (its hint is the rule that failed); a later success
 * (2xx) at the same endpoint, after that remembered refusal, is done. A
 * success with no refusal before it shows nothing read, so it is not judged.
 */
export function fixedAfter(spec: FixedAfter): Judge {
  const { status, code, endpoint, ignore, advice } = spec;
  return (request, previous) => {
    const key = endpoint(request.path);
    if (key === undefined) return undefined;
    if (request.status === status) {
      if (code !== undefined && failureCode(request) !== code) return undefined;
      if (ignore?.(request)) return undefined;
      return attempt(refusalHint(request, advice));
    }
    if (!succeeded(request.status)) return undefined;
    const refused = earlierAttempt(request, previous);
    return refused?.path !== undefined && endpoint(refused.path) === key ? DONE : undefined;
  };
}

export interface TokenGrant {
  /** grant_type: client_credentials, authorization_code or refresh_token (the spec's default, client_credentials, when the fact is absent). */
  grant: string;
  /** Facts the successful grant must carry, each with the hint shown when it is missing or other. */
  requires?: ReadonlyArray<{ fact: string; value: string; hint: string }>;
  advice: string;
}

/** The grant_type a token request asked for; absent means the spec's default. */
const grantOf = (request: ObservedRequest): string => request.facts.grant || 'client_credentials';

/**
 * POST /oauth/token with `grant`: done when it issues a token (2xx) with
 * every required fact; a refusal is an attempt with its rule; a success that
 * lacks a required fact is an attempt saying which.
 */
export function grantSucceeds(spec: TokenGrant): Judge {
  const { grant, requires = [], advice } = spec;
  return (request) => {
    if (request.path !== OAUTH2_TOKEN || request.method !== 'POST') return undefined;
    if (grantOf(request) !== grant) return undefined;
    if (request.status >= 400) return attempt(refusalHint(request, advice));
    if (!succeeded(request.status)) return undefined;
    const missing = requires.find(({ fact, value }) => request.facts[fact] !== value);
    return missing ? attempt(missing.hint) : DONE;
  };
}

/**
 * Refresh-token rotation, handled by the client: the sandbox rotates on every
 * use, so one refresh shows only that the sandbox did; a second refresh that
 * succeeds shows the client kept the new refresh token (presenting the used
 * one is refused, and revokes the grant). Done on a rotated refresh right
 * after another rotated refresh.
 */
export function refreshRotated(advice: string): Judge {
  const rotatedRefresh = (facts: Readonly<Record<string, string>>) => facts.grant === 'refresh_token' && facts.rotated === 'true';
  return (request, previous) => {
    if (request.path !== OAUTH2_TOKEN || request.method !== 'POST') return undefined;
    if (grantOf(request) !== 'refresh_token') return undefined;
    if (request.status >= 400) return attempt(refusalHint(request, advice));
    if (!succeeded(request.status)) return undefined;
    if (!rotatedRefresh(request.facts))
      return attempt('The refresh was answered without a new refresh token. Refresh again with the newest refresh token you hold.');
    const before = earlierAttempt(request, previous);
    if (before && rotatedRefresh(before.facts)) return DONE;
    return attempt(
      'The refresh worked and the sandbox rotated the refresh token: the one you sent is used up. Keep the new refresh_token from this answer and refresh once more with it.',
    );
  };
}

/**
 * OAuth 1.0a's three legs: done when a signed request to the resource
 * succeeds after the client's own access-token leg (remembered as the attempt
 * the leg made, or as a failed resource request after it). Each leg that
 * succeeds is an attempt whose hint names the next one; a refusal on any leg
 * is an attempt with its rule.
 */
export function oauth1ThreeLegs(advice: string): Judge {
  const paths: readonly string[] = Object.values(OAUTH1_PATHS);
  return (request, previous) => {
    if (!paths.includes(request.path)) return undefined;
    if (request.status >= 400) return attempt(refusalHint(request, advice));
    if (!succeeded(request.status)) return undefined;
    switch (request.facts.oauth1_step) {
      case 'request_token':
        return attempt(
          'Leg 1 done: you hold a temporary token. Authorize it at /oauth1/authorize, then exchange it with the verifier at /oauth1/access_token (leg 3).',
        );
      case 'access_token':
        return attempt('Leg 3 done: you hold an access token. Sign a request to /playground/auth/oauth1 with it.');
      case 'resource': {
        const step = earlierAttempt(request, previous)?.facts.oauth1_step;
        if (step === 'access_token' || step === 'resource') return DONE;
        return attempt(
          'That signed request worked, but the sandbox has not seen your client take the access-token leg first: run the three legs (request token, authorize, access token), then sign the request again.',
        );
      }
      default:
        return undefined;
    }
  };
}

/** Rows an entity must have for a paging exercise: enough that a client must really page. */
export const PAGING_MIN_ROWS = 1000;

/**
 * Read an entity of at least PAGING_MIN_ROWS rows to its last page with one
 * pagination style: done on the page the data service marked last
 * (`last_page`); each earlier page in that style is an attempt saying to go
 * on; a refusal in that style is an attempt with its rule.
 */
export function pagesToTheEnd(style: string, advice: string): Judge {
  return (request) => {
    if (!isDataPage(request.path)) return undefined;
    if (request.facts.pagination !== style) return undefined;
    if (request.status >= 400) return attempt(refusalHint(request, advice));
    if (!succeeded(request.status)) return undefined;
    // Without the entity's row count the page cannot be judged (the data service sends it with every page).
    const rows = Number(request.facts.entity_rows ?? NaN);
    if (!Number.isFinite(rows)) return undefined;
    const entity = request.path.slice(DATA_ROOT.length + 1);
    if (rows < PAGING_MIN_ROWS) {
      return attempt(`${entity} has ${rows} rows: choose an entity of at least 1,000 rows (hr/employees has 2,173) so that your client has to page.`);
    }
    if (request.facts.last_page === 'true') return DONE;
    return attempt(`Your client is paging ${entity} with the ${style} style: keep going until the last page.`);
  };
}

/**
 * A redirect chain followed to its end: done on the chain's last answer
 * (`redirect_end`) when the hops had `status` and the final request still had
 * `method`. A hop is an attempt saying to follow it (a client that stops there
 * keeps that hint); an end reached otherwise is an attempt saying what differed.
 */
export function redirectChainFollowed(status: string, method: string, advice: string): Judge {
  const path = '/playground/redirect';
  return (request) => {
    if (request.path !== path) return undefined;
    if (request.status >= 400) return attempt(refusalHint(request, advice));
    if (request.status >= 300 && request.status < 400) {
      return attempt(`The chain answered ${request.status} with a Location: your client must follow it (and each after it) to the end.`);
    }
    if (!succeeded(request.status) || request.facts.redirect_end !== 'true') return undefined;
    const hops = request.facts.redirect_status;
    if (hops !== status) return attempt(`That chain used ${hops ?? 'another status'}: ask for status=${status} (and send a ${method}).`);
    const arrived = request.facts.redirect_method;
    if (arrived !== method) {
      return attempt(`The chain's last request arrived as ${arrived ?? 'another method'}: send a ${method}, and keep it a ${method} on every hop.`);
    }
    return DONE;
  };
}

/**
 * A client-side timeout shorter than the delay: done when the gateway saw
 * the client give up (`client_gave_up_ms`) before the delay it asked for
 * (`delay_ms`). A request that waited the whole delay is an attempt.
 */
export function clientGaveUpFirst(advice: string): Judge {
  const path = '/playground/timeout';
  return (request) => {
    if (request.path !== path) return undefined;
    const gaveUp = request.facts.client_gave_up_ms;
    const delay = Number(request.facts.delay_ms);
    if (gaveUp !== undefined) {
      if (Number(gaveUp) < delay) return DONE;
      return attempt(`Your client gave up after ${gaveUp} ms, not before the delay of ${request.facts.delay_ms ?? '?'} ms: set its timeout below the delay.`);
    }
    if (request.status >= 400) return attempt(refusalHint(request, advice));
    if (!succeeded(request.status)) return undefined;
    return attempt(
      `Your client waited the whole delay${Number.isFinite(delay) ? ` of ${delay} ms` : ''}: set its timeout below the delay, so that it gives up first.`,
    );
  };
}

/** An upload whose SHA-256, computed by the learner's client and sent with it, the sandbox found the same (`sha256_match`). */
export function uploadHashMatches(advice: string): Judge {
  const path = '/playground/upload';
  return (request) => {
    if (request.path !== path || request.method !== 'POST') return undefined;
    if (request.status >= 400) return attempt(refusalHint(request, advice));
    if (!succeeded(request.status)) return undefined;
    const match = request.facts.sha256_match;
    if (match === 'true') return DONE;
    if (match === 'false') {
      return attempt(
        "The SHA-256 your client sent differs from the one the sandbox computed over the file's bytes: hash exactly the bytes you upload, and send it as 64 lowercase hex characters.",
      );
    }
    return attempt('The upload arrived without a SHA-256 of your own to compare: compute it over the file in your client and send it with the upload.');
  };
}

/**
 * A CORS preflight passed from a browser origin: a browser sends the request
 * itself only when the preflight (OPTIONS with an Origin, `preflight_origin`)
 * passed, so done when the request follows a remembered preflight to the same
 * lab URL (whatever it answered: the preflight is what is judged). A request
 * there without a preflight before it is an attempt.
 */
export function preflightPassed(advice: string): Judge {
  const lab = '/playground/cors/';
  const target = '/playground/cors/preflight';
  return (request, previous) => {
    if (!request.path.startsWith(lab)) return undefined;
    if (request.method === 'OPTIONS') {
      const origin = request.facts.preflight_origin;
      if (origin === undefined) return undefined;
      if (request.status >= 400) return attempt(refusalHint(request, advice));
      return attempt(
        `The lab answered a preflight from ${origin}. If it passed, your browser sends the request itself next; if it does not, its console says which check failed.`,
      );
    }
    const preflight = earlierAttempt(request, previous);
    if (preflight?.facts.preflight_origin !== undefined && preflight.path === request.path) return DONE;
    if (request.path !== target) return undefined;
    if (request.status >= 400) return attempt(refusalHint(request, advice));
    return attempt(
      `That request came without a preflight before it: send it with fetch() from a page on another origin, with Content-Type: application/json, so that the browser asks first.`,
    );
  };
}

/**
 * A refusal with Retry-After (429 or 503, `retry_after_s`) answered by a
 * retry of the same path at least that many seconds later: the wait is the
 * skill, so the retry counts whatever it is answered (a retry of
 * /playground/response?status=503 is refused again, and a client that waited
 * did it right). A retry sooner is an attempt saying how soon it was, and
 * becomes the request the next one is measured from: refused again with a
 * Retry-After, it starts the next wait; answered, a new refusal is needed.
 */
export function retriedAfterWait(): Judge {
  return (request, previous) => {
    const refused = earlierAttempt(request, previous);
    const wait = refused?.facts.retry_after_s;
    if (wait !== undefined && refused!.path === request.path) {
      const waitedMs = request.at - refused!.at;
      if (waitedMs >= Number(wait) * 1000) return DONE;
      return attempt(
        `Your retry came ${(waitedMs / 1000).toFixed(1)} s after the refusal, but Retry-After asked for ${wait} s: wait at least that long before retrying.`,
      );
    }
    const asked = request.facts.retry_after_s;
    if ((request.status === 429 || request.status === 503) && asked !== undefined) {
      return attempt(refusalHint(request, `Its Retry-After said ${asked}: wait ${asked} s, then send the same request again.`));
    }
    return undefined;
  };
}
