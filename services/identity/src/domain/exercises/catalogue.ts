/**
 * The exercise catalogue (issue #37): every exercise in one place, as data.
 * How each is judged lives in judges.ts; docs/exercises.md describes each
 * exercise, its judge and the facts it reads, and must say the same.
 */
import {
  AUTH_ENDPOINTS,
  clientGaveUpFirst,
  fixedAfter,
  grantSucceeds,
  isDataPage,
  oauth1ThreeLegs,
  packOf,
  pagesToTheEnd,
  preflightPassed,
  redirectChainFollowed,
  refreshRotated,
  retriedAfterWait,
  succeedsAt,
  uploadHashMatches,
} from './judges';
import type { Exercise } from './types';

/** The playground endpoints a 401 can be read and fixed at. Digest's 401 is its protocol's first step, not a mistake, so it is left out. */
const FIXABLE_401: ReadonlySet<string> = new Set(Object.values(AUTH_ENDPOINTS).filter((path) => path !== AUTH_ENDPOINTS.digest));

/** One paging exercise per style; the styles are data's (docs/data.md), the snippet ids the portal's. */
const paging = (style: 'page' | 'offset' | 'cursor' | 'token' | 'link', title: string, how: string): Exercise => ({
  id: `paging-${style}`,
  group: 'paging',
  title,
  task: `Read an entity of at least 1,000 rows (hr/employees, say) to its last page ${how}.`,
  doneWhen: `A page served in the ${style} style is its entity's last, and the entity has at least 1,000 rows.`,
  docs: 'docs/data.md#pagination-styles',
  snippet: style,
  judge: pagesToTheEnd(style, 'Fix what it names and continue from the last page that worked.'),
});

/** One exercise per style that authenticates with nothing but what is on the request. */
const style = (
  id: string,
  authStyle: keyof typeof AUTH_ENDPOINTS,
  words: { title: string; with: string; task: string; advice: string },
  docs: string,
  methods: readonly string[] = ['GET'],
): Exercise => ({
  id,
  group: 'authentication',
  title: words.title,
  task: words.task,
  doneWhen: `A ${methods.join(' or ')} of ${AUTH_ENDPOINTS[authStyle]} authenticated with ${words.with} answered 200.`,
  docs,
  snippet: authStyle,
  judge: succeedsAt({ methods, path: AUTH_ENDPOINTS[authStyle], authStyles: [authStyle], advice: words.advice }),
});

const KEYS = 'docs/auth-playground.md#basic-bearer-api-key-api-key-query';

export const EXERCISES: readonly Exercise[] = [
  // ---- getting started ----
  {
    id: 'start-first-page',
    group: 'getting_started',
    title: 'A first page of data',
    task: 'Read one page of any entity of a pack your app holds, with your API key in the x-api-key header or the api_key query parameter.',
    doneWhen: 'A GET of /playground/data/{pack}/{entity} authenticated with the API key (header or query) answered 200.',
    docs: 'docs/data.md#access',
    snippet: 'api_key_header',
    judge: succeedsAt({
      methods: ['GET'],
      path: isDataPage,
      authStyles: ['api_key_header', 'api_key_query'],
      advice: 'Send the API key (ak_…) in x-api-key, and ask for a pack your app holds.',
    }),
  },
  {
    id: 'start-401-fixed',
    group: 'getting_started',
    title: 'A 401 read and fixed',
    task: 'Get a 401 from a data page or an authentication playground endpoint, read its message, fix what it names and send the request again.',
    doneWhen: 'A 401 at a data page or a playground endpoint, then a 200 at the same endpoint (any data page counts as the same).',
    docs: 'docs/errors.md#one-shape',
    judge: fixedAfter({
      status: 401,
      endpoint: (path) => (isDataPage(path) ? 'data' : FIXABLE_401.has(path) ? path : undefined),
      advice: 'Fix what the message names and send the request again.',
    }),
  },
  {
    id: 'start-403-scope',
    group: 'getting_started',
    title: 'A 403 for a missing scope, fixed',
    task: "Read a pack your app does not hold (403 missing_scope), add the pack's scope to the app in the portal, and read it again.",
    doneWhen: 'A 403 missing_scope at a data page, then a 200 at a data page of the same pack.',
    docs: 'docs/data.md#access',
    judge: fixedAfter({
      status: 403,
      code: 'missing_scope',
      endpoint: packOf,
      advice: "Add the pack's scope to your app in the portal (a token issued before keeps its old scopes: get a new one), then read the pack again.",
    }),
  },

  // ---- authentication: one exercise per style, at its playground endpoint ----
  style(
    'auth-basic',
    'basic',
    {
      title: 'Basic',
      with: 'Basic',
      task: 'Call /playground/auth/basic with your App ID and App Secret in Authorization: Basic.',
      advice: 'Send Authorization: Basic with base64 of "App ID:App Secret".',
    },
    KEYS,
  ),
  style(
    'auth-bearer',
    'bearer',
    {
      title: 'A bearer token',
      with: 'the app bearer token',
      task: 'Call /playground/auth/bearer with your app bearer token (bt_…) in Authorization: Bearer.',
      advice: 'Send Authorization: Bearer with the app bearer token (it starts with bt_).',
    },
    KEYS,
  ),
  style(
    'auth-api-key-header',
    'api_key_header',
    {
      title: 'The API key in a header',
      with: 'the API key in x-api-key',
      task: 'Call /playground/auth/api-key with your API key in the x-api-key header.',
      advice: 'Send the API key (ak_…) in the x-api-key header.',
    },
    KEYS,
  ),
  style(
    'auth-api-key-query',
    'api_key_query',
    {
      title: 'The API key in the query',
      with: 'the API key in api_key',
      task: 'Call /playground/auth/api-key-query with your API key as the api_key query parameter, and read why it is the weaker form.',
      advice: 'Send the API key (ak_…) once, as ?api_key=.',
    },
    KEYS,
  ),
  style(
    'auth-hmac',
    'hmac',
    {
      title: 'An HMAC signature',
      with: 'an HMAC signature',
      task: 'Call /playground/auth/hmac with x-app-id, x-timestamp and x-signature: the hex HMAC-SHA256 of "timestamp.METHOD.path" keyed with your API key.',
      advice: 'Sign "<x-timestamp>.<METHOD>.<path>" afresh for each request.',
    },
    'docs/auth-playground.md#hmac',
    ['GET', 'POST'],
  ),
  style(
    'auth-digest',
    'digest',
    {
      title: 'HTTP Digest',
      with: 'a Digest response',
      task: 'Call /playground/auth/digest, and answer its challenge with username = App ID and password = API key.',
      advice: 'Answer the newest challenge, with the App ID as username and the API key as password.',
    },
    'docs/auth-playground.md#digest',
  ),
  {
    id: 'auth-jwt-hs256',
    group: 'authentication',
    title: 'A JWT signed with HS256',
    task: 'Get a token from POST /playground/auth/jwt/issue (or sign one with your API key) and call /playground/auth/jwt with its HS256 form.',
    doneWhen: 'A GET of /playground/auth/jwt authenticated with an HS256 JWT answered 200.',
    docs: 'docs/auth-playground.md#jwt',
    snippet: 'jwt',
    judge: succeedsAt({
      methods: ['GET'],
      path: AUTH_ENDPOINTS.jwt,
      authStyles: ['jwt'],
      facts: { jwt_alg: 'HS256' },
      advice: 'Send the hs256 token of /playground/auth/jwt/issue, or one you signed with your API key, before it expires.',
    }),
  },
  {
    id: 'auth-jwt-rs256',
    group: 'authentication',
    title: 'A JWT signed with RS256',
    task: "Call /playground/auth/jwt with the RS256 token of POST /playground/auth/jwt/issue; verify it yourself with the sandbox's public key.",
    doneWhen: 'A GET of /playground/auth/jwt authenticated with an RS256 JWT answered 200.',
    docs: 'docs/auth-playground.md#jwt',
    snippet: 'jwt',
    judge: succeedsAt({
      methods: ['GET'],
      path: AUTH_ENDPOINTS.jwt,
      authStyles: ['jwt'],
      facts: { jwt_alg: 'RS256' },
      advice: 'Send the rs256 token of /playground/auth/jwt/issue unchanged, before it expires.',
    }),
  },
  {
    id: 'auth-oauth1',
    group: 'authentication',
    title: 'OAuth 1.0a, three legs',
    task: 'Take the three legs (request token, authorize, access token), then sign a request to /playground/auth/oauth1 with the access token.',
    doneWhen: 'A signed request to /playground/auth/oauth1 answered 200 after the client took the access-token leg.',
    docs: 'docs/oauth.md#the-three-legs',
    snippet: 'oauth1',
    judge: oauth1ThreeLegs('Fix what it names (the message of a bad signature holds the base string the sandbox built: diff it against yours).'),
  },
  {
    id: 'auth-oauth2-client-credentials',
    group: 'authentication',
    title: 'OAuth 2.0 client credentials',
    task: 'Get an access token from POST /oauth/token with grant_type=client_credentials, authenticating with your App ID and App Secret.',
    doneWhen: 'POST /oauth/token with grant_type client_credentials answered 200.',
    docs: 'docs/oauth.md#token-endpoint',
    snippet: 'oauth2_client_credentials',
    judge: grantSucceeds({
      grant: 'client_credentials',
      advice: 'Authenticate with the App ID and App Secret once (Basic header or body), and ask only for scopes your app holds.',
    }),
  },
  {
    id: 'auth-oauth2-pkce',
    group: 'authentication',
    title: 'OAuth 2.0 authorization code with PKCE',
    task: 'Get a code from /oauth/authorize with an S256 code_challenge, then redeem it at POST /oauth/token with its code_verifier.',
    doneWhen: 'POST /oauth/token with grant_type authorization_code answered 200 after checking an S256 code_verifier.',
    docs: 'docs/oauth.md#pkce',
    snippet: 'oauth2_authorization_code',
    judge: grantSucceeds({
      grant: 'authorization_code',
      requires: [
        {
          fact: 'pkce',
          value: 'S256',
          hint: 'The code was redeemed without an S256 PKCE check: send code_challenge (the S256 of a fresh code_verifier) with code_challenge_method=S256 to /oauth/authorize, then the code_verifier with the code.',
        },
      ],
      advice: 'Codes last 60 s and are single use: get a fresh one, and send the same redirect_uri and the code_verifier it was made from.',
    }),
  },
  {
    id: 'auth-oauth2-refresh',
    group: 'authentication',
    title: 'OAuth 2.0 refresh-token rotation',
    task: 'Refresh an access token at POST /oauth/token with grant_type=refresh_token, then refresh again with the new refresh token the first answer gave.',
    doneWhen: 'Two refresh_token grants in a row answered 200, each issuing a new refresh token.',
    docs: 'docs/oauth.md#refresh-tokens',
    snippet: 'oauth2_authorization_code',
    judge: refreshRotated(
      'Each refresh token works once: after a refresh, keep the new one. A used one revokes the whole grant, so start again with the authorization code flow.',
    ),
  },

  // ---- paging: each style to the last page of a large entity ----
  paging('page', 'Page number to the end', 'with page and page_size, adding 1 to page'),
  paging('offset', 'Offset and limit to the end', 'with offset and limit, adding limit to offset'),
  paging('cursor', 'A cursor to the end', 'with paginate=cursor, following pagination.next_url unchanged until it is null'),
  paging('token', 'Page tokens to the end', 'with paginate=token, sending each nextPageToken back as pageToken until there is none'),
  paging('link', 'The Link header to the end', 'with paginate=link, following the Link header\'s rel="next" until there is none'),

  // ---- HTTP ----
  {
    id: 'http-redirect-307',
    group: 'http',
    title: 'A 307 redirect chain, POST kept',
    task: 'POST a body to /playground/redirect?n=3&status=307 and have your client follow the chain to its end, still a POST.',
    doneWhen: "The chain's last request answered 200, after 307 hops, and arrived as a POST.",
    docs: 'docs/http-practice.md#redirect-playgroundredirect',
    judge: redirectChainFollowed('307', 'POST', 'n is 1 to 10 and status one of 301, 302, 307, 308.'),
  },
  {
    id: 'http-timeout',
    group: 'http',
    title: 'A client-side timeout',
    task: "Call /playground/timeout?delay=5000 with your client's timeout set shorter than the delay, and handle the timeout.",
    doneWhen: 'The gateway saw the client give up on /playground/timeout before the delay it asked for.',
    docs: 'docs/http-practice.md#timeout-playgroundtimeout',
    judge: clientGaveUpFirst('delay is whole milliseconds, 0 to 60,000.'),
  },
  {
    id: 'http-upload-sha256',
    group: 'http',
    title: 'A multipart upload, hash checked',
    task: "Upload a file to /playground/upload as multipart/form-data with the SHA-256 your client computed of it, and compare it with the sandbox's.",
    doneWhen: 'An upload answered 200 and the SHA-256 the client sent matched the one the sandbox computed.',
    docs: 'docs/http-practice.md#upload-post-playgroundupload',
    judge: uploadHashMatches('Send multipart/form-data (curl -F, a FormData), within the limits the message names.'),
  },
  {
    id: 'http-batch',
    group: 'http',
    title: 'A batch',
    task: 'Send several requests in one POST /playground/batch and read each result.',
    doneWhen: 'POST /playground/batch answered 200.',
    docs: 'docs/http-practice.md#batch-post-playgroundbatch',
    judge: succeedsAt({
      methods: ['POST'],
      path: '/playground/batch',
      advice: 'Send a JSON object {"requests": [{"method", "path", "body"?}, …]} of at most 20 items, with no other fields.',
    }),
  },
  {
    id: 'http-cors-preflight',
    group: 'http',
    title: 'A CORS preflight passed',
    task: "From a page on another origin, fetch() POST /playground/cors/preflight?api_key=<your app's API key> with a JSON body, so that the browser sends a preflight first and then the request. The key goes in the query because a browser sends no credential with a preflight: the URL is what names your app on both.",
    doneWhen: "The lab answered a preflight (OPTIONS with an Origin), and the browser's request to the same URL followed it.",
    docs: 'docs/cors-lab.md#cors-lab-in-a-browser',
    judge: preflightPassed('Check the steering parameters (GET /playground/cors/info names the failing check).'),
  },
  {
    id: 'http-retry-after',
    group: 'http',
    title: 'Retry-After honoured',
    task: 'When a request is refused with 429 or 503 and Retry-After, wait the seconds it says, then retry the same request.',
    doneWhen:
      'A 429 or 503 carrying Retry-After, then a request to the same path at least that many seconds later, whatever it is answered (the wait is what is judged). GET /playground/response?status=503&retry_after=2 asks for one.',
    docs: 'docs/http-practice.md#response-playgroundresponse',
    judge: retriedAfterWait(),
  },
];

/** Ids are stable names in URLs and stored progress: two exercises with one id would share a learner's progress, so loading fails instead. */
const BY_ID: ReadonlyMap<string, Exercise> = (() => {
  const byId = new Map<string, Exercise>();
  for (const exercise of EXERCISES) {
    if (byId.has(exercise.id)) throw new Error(`exercise id '${exercise.id}' is used twice in the catalogue`);
    byId.set(exercise.id, exercise);
  }
  return byId;
})();

/** The exercise with this id, if any. */
export function exerciseById(id: string): Exercise | undefined {
  return BY_ID.get(id);
}
