import { z } from 'zod';
import { challenges, playgroundApi } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { binary, type Contract, type ResponseDoc } from '../../http/contract';
import { OPEN_CORS_HEADERS } from '../../http/cors';
import { JSON_TYPE } from '../../http/reply';
import { SECURITY_HEADERS } from '../../http/security-headers';
import { BATCH, BATCH_HEADERS } from './batch-runner';

/*
 * What the HTTP practice rows (http-practice-routes.ts) accept and answer:
 * the schemas the dispatcher validates with and the OpenAPI document shows,
 * and the contract of each row.
 */

/** Caps on the delays a learner may ask for (spec: "capped"); the playground service clamps to these too. */
export const { DELAY_CAPS } = playgroundApi;
/** Upload limits: the playground enforces them as the body streams; the gateway refuses a declared body over the total at once. */
export const UPLOAD_MAX_BYTES = 25 * 1024 * 1024;

// ---- parameters: what the gateway validates and the OpenAPI document shows ----
//
// The playground service checks these rules for its own callers
// (services/playground/src/domain: query.ts, respond.ts, redirect.ts,
// cors.ts). The gateway states them here so that the document shows them,
// and so it refuses first, before any call, with the playground's status,
// code and words: for an HTTP client these schemas are the one rule. The
// limits both check come from one place (contracts' playgroundApi:
// MAX_REDIRECTS, DELAY_CAPS, the CORS lab's max-age); that the words agree
// is tested (http-practice.test.ts sends each refusal to both).

interface WholeNumber {
  /** Completes "<name> must be …" when the value is not digits. */
  what: string;
  min?: number;
  max?: number;
  /** The refusal of a whole number outside [min, max]. */
  outOfRange?: (value: number) => string;
  /** Absent: this value (documented as the default); optionalWholeNumber has none. */
  default?: number;
  description: string;
  example?: number;
}

/**
 * A whole number in the query, as the playground reads one: digits only (no
 * sign, point, exponent or spaces; `delay=` is given, and refused), leading
 * zeros fine, hundreds of digits just very large. Documented as an integer
 * with the bounds and default it is checked against.
 */
function wholeNumber(name: string, rule: WholeNumber & { default: number }) {
  return digitsOf(name, rule)
    .default(rule.default)
    .meta({ ...integerMeta(rule), default: rule.default });
}

/** A whole number as wholeNumber reads it, with no value when absent. */
function optionalWholeNumber(name: string, rule: WholeNumber) {
  return digitsOf(name, rule).optional().meta(integerMeta(rule));
}

function digitsOf(name: string, rule: WholeNumber) {
  const { min, max, outOfRange } = rule;
  return z
    .string()
    .regex(/^[0-9]+$/, {
      error: (issue) => `${name} must be ${rule.what}${/^-[0-9]+$/.test(String(issue.input)) ? ', not negative' : ''}; got ${quoteInput(issue.input)}`,
    })
    .transform((digits) => Math.min(Number(digits), Number.MAX_VALUE))
    .refine((value) => (min === undefined || value >= min) && (max === undefined || value <= max), {
      error: (issue) => outOfRange?.(issue.input as number) ?? `${name} must be from ${min} to ${max}; got ${issue.input}`,
    });
}

function integerMeta({ min, max, description, example }: WholeNumber) {
  return {
    type: 'integer' as const,
    ...(min !== undefined ? { minimum: min } : {}),
    ...(max !== undefined ? { maximum: max } : {}),
    description,
    ...(example !== undefined ? { example } : {}),
  };
}

/** A value given in the query is one of these words. */
const oneOf = <const T extends readonly [string, ...string[]]>(name: string, values: T, words: string) =>
  z.enum(values, { error: (issue) => `${name} must be ${words}; got ${quoteInput(issue.input)}` });

const delayOf = (defaultMs: number, capMs: number) =>
  wholeNumber('delay', {
    what: 'a whole number of milliseconds, e.g. delay=1500',
    min: 0,
    default: defaultMs,
    description: `Milliseconds to wait before answering. Capped at ${capMs}: a longer delay waits ${capMs}, and the answer says so (X-Delay-Applied-Ms, notes); it is not refused.`,
    example: 1500,
  });

/** The playground's answers to /playground/response: a status from 100 to 599 (1xx answered as a 200). */
const STATUS_RANGE = { min: 100, max: 599 } as const;
const responseQuery = z.object({
  status: wholeNumber('status', {
    what: `an integer from ${STATUS_RANGE.min} to ${STATUS_RANGE.max}, e.g. status=503`,
    ...STATUS_RANGE,
    outOfRange: (value) => `status must be an integer from ${STATUS_RANGE.min} to ${STATUS_RANGE.max}; got ${value}`,
    default: 200,
    description: 'The status to answer with. A 1xx cannot be a final answer, so it is answered as a 200 with X-Status-Requested.',
    example: 418,
  }),
  delay: delayOf(0, DELAY_CAPS.response),
  retry_after: optionalWholeNumber('retry_after', {
    what: `a whole number of seconds from 0 to ${playgroundApi.MAX_RETRY_AFTER_S}, e.g. retry_after=2`,
    min: 0,
    max: playgroundApi.MAX_RETRY_AFTER_S,
    description:
      'Seconds for a Retry-After header, to practise a retry that waits (with status=429 or 503). Clients read it only with a 3xx, 429 or 503; with another status it is sent, and a note says it is ignored. Absent: no Retry-After.',
    example: 2,
  }),
  body: z.string().optional().meta({
    description: 'Text to answer with instead of the JSON description (text/plain; charset=utf-8). Not sent with 204, 205 or 304, which carry no body.',
    example: 'short and stout',
  }),
});

const timeoutQuery = z.object({ delay: delayOf(1000, DELAY_CAPS.timeout) });

const REDIRECT_STATUSES = ['301', '302', '307', '308'] as const;
const { MAX_REDIRECTS } = playgroundApi;
/** One request of the chain in the trail: METHOD-bytes. */
const TRAIL_ENTRY = '[A-Za-z]{1,16}-[0-9]{1,10}';
const redirectQuery = z
  .object({
    n: wholeNumber('n', {
      what: `a whole number of redirects from 1 to ${MAX_REDIRECTS}, e.g. n=3`,
      min: 1,
      max: MAX_REDIRECTS,
      outOfRange: (value) => `n must be from 1 to ${MAX_REDIRECTS} (the number of redirects before the final answer); got ${value}`,
      default: 1,
      description: 'Redirects before the final 200.',
      example: 3,
    }),
    status: z
      .string()
      .refine((value): value is (typeof REDIRECT_STATUSES)[number] => (REDIRECT_STATUSES as readonly string[]).includes(value.replace(/^0+(?=\d)/, '')), {
        error: (issue) =>
          `status must be one of 301, 302, 307 or 308; got ${/^[0-9]+$/.test(String(issue.input)) ? Number(issue.input) : quoteInput(issue.input)}`,
      })
      .transform(Number)
      .default(302)
      .meta({
        type: 'integer',
        enum: REDIRECT_STATUSES.map(Number),
        default: 302,
        description: '301 and 302 let clients turn a POST into a GET (most do); 307 and 308 require the same method and body.',
        example: 307,
      }),
    hop: wholeNumber('hop', {
      what: 'the number of redirects already followed, from 0 to n',
      min: 0,
      max: MAX_REDIRECTS,
      outOfRange: (value) => `hop must be from 0 to n (at most ${MAX_REDIRECTS}); got ${value}`,
      default: 0,
      description: 'Written by the service into each Location: the redirects already followed, at most n. Follow the Location rather than editing it.',
    }),
    trail: z
      .string()
      .regex(new RegExp(`^(?:${TRAIL_ENTRY}(?:\\.${TRAIL_ENTRY})*)?$`), {
        error: (issue) =>
          `trail must hold one METHOD-bytes entry per redirect already followed, joined by dots; got ${quoteInput(issue.input)}. This endpoint writes it into each Location: follow the Location rather than editing it`,
      })
      .optional()
      .meta({
        description: 'Written by the service into each Location: what arrived at each request so far (METHOD-bytes, joined by dots), one entry per hop.',
        example: 'POST-7',
      }),
  })
  .superRefine(({ n, hop, trail }, ctx) => {
    if (hop > n) ctx.addIssue({ code: 'custom', path: ['hop'], message: `hop must be from 0 to n (${n}); got ${hop}` });
    else if ((trail ? trail.split('.').length : 0) !== hop) {
      ctx.addIssue({
        code: 'custom',
        path: ['trail'],
        message: `trail must hold one METHOD-bytes entry per redirect already followed (hop=${hop} needs ${hop}), joined by dots; got ${quoteInput(trail ?? '')}. This endpoint writes it into each Location: follow the Location rather than editing it`,
      });
    }
  });

// The CORS lab's parameters (docs/http-practice.md, "CORS lab").
/** RFC 9110 token characters (method and header names). */
const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const MAX_LIST_ITEMS = 50;
/** Names separated by commas (spaces around them allowed), at most 50, each a token or *; empty or blank: an empty list. */
const TOKEN_LIST = new RegExp(`^\\s*$|^\\s*${TOKEN}\\s*(?:,\\s*${TOKEN}\\s*){0,${MAX_LIST_ITEMS - 1}}$`);
const tokenList = (name: string, what: string, description: string, example: string) =>
  z
    .string()
    .regex(TOKEN_LIST, { error: (issue) => `${name} must be ${what} separated by commas (or *), at most ${MAX_LIST_ITEMS}; got ${quoteInput(issue.input)}` })
    .optional()
    .meta({ description, example });
const { MAX_AGE_LIMIT, LAB_DEFAULT_MAX_AGE, BROWSER_MAX_AGE_CAPS } = playgroundApi;

/** The five steering parameters: the same on all three lab URLs, and on the preflight a browser sends to them. */
const labSteering = {
  allow_origin: z
    .string()
    .regex(/^[\x21-\x7e](?:[\x20-\x7e]{0,254}[\x21-\x7e])?$/, {
      error: (issue) =>
        `allow_origin must be an origin such as https://example.org, * or null (printable ASCII, at most 256 characters); got ${quoteInput(issue.input)}`,
    })
    .optional()
    .meta({
      description:
        'Access-Control-Allow-Origin of every lab answer, sent exactly as given (so a trailing slash or a list can be seen to fail). Absent: the request’s Origin, reflected.',
      example: 'https://example.org',
    }),
  allow_methods: tokenList(
    'allow_methods',
    'method names',
    'Access-Control-Allow-Methods of the preflight answer, case kept; empty: no such header. Absent: the requested method, reflected.',
    'GET, PUT',
  ),
  allow_headers: tokenList(
    'allow_headers',
    'header names',
    'Access-Control-Allow-Headers of the preflight answer; empty: no such header. Absent: the requested headers, reflected.',
    'x-custom',
  ),
  allow_credentials: oneOf('allow_credentials', ['true', 'false'], 'true or false')
    .optional()
    .meta({ description: 'true: every lab answer carries Access-Control-Allow-Credentials: true. Absent or false: no such header.' }),
  max_age: wholeNumber('max_age', {
    what: `a whole number of seconds from 0 to ${MAX_AGE_LIMIT}`,
    min: 0,
    max: MAX_AGE_LIMIT,
    outOfRange: (value) => `max_age must be from 0 to ${MAX_AGE_LIMIT} seconds; got ${value}`,
    default: LAB_DEFAULT_MAX_AGE,
    description: `Access-Control-Max-Age of the preflight answer, in seconds (Chromium keeps a preflight at most ${BROWSER_MAX_AGE_CAPS.chromium} s, Firefox ${BROWSER_MAX_AGE_CAPS.firefox} s).`,
    example: 42,
  }),
};
const labQuery = z.object(labSteering);

const corsInfoQuery = z.object({
  ...labSteering,
  method: z
    .string()
    .regex(new RegExp(`^${TOKEN}$`), { error: (issue) => `method must be an HTTP method name such as PUT; got ${quoteInput(issue.input)}` })
    .max(32, { error: (issue) => `method must be an HTTP method name such as PUT; got ${quoteInput(issue.input)}` })
    .default('GET')
    .meta({ description: 'The method your page will use (fetch upper-cases only DELETE, GET, HEAD, OPTIONS, POST and PUT).', example: 'PUT' }),
  headers: z
    .string()
    .regex(TOKEN_LIST, {
      error: (issue) => `headers must be header names separated by commas (or *), at most ${MAX_LIST_ITEMS}; got ${quoteInput(issue.input)}`,
    })
    .refine((value) => !value.split(',').some((item) => item.trim() === '*'), {
      error: 'headers lists the header names your page will set; * is not a header name',
    })
    .optional()
    .meta({ description: 'The header names your page will set, separated by commas.', example: 'x-custom, authorization' }),
  content_type: z
    .string()
    .regex(/^[\x20-\x7e]{1,256}$/, {
      error: (issue) =>
        `content_type must be a Content-Type value such as text/plain (printable ASCII, at most 256 characters); got ${quoteInput(issue.input)}`,
    })
    .optional()
    .meta({ description: 'The Content-Type your page will send, if any (it counts as a header).', example: 'application/json' }),
  credentials: oneOf('credentials', ['omit', 'same-origin', 'include'], "omit, same-origin or include (fetch's credentials option)")
    .default('same-origin')
    .meta({ description: "fetch's credentials option." }),
  origin: z
    .string()
    .refine(playgroundApi.isSerialisedOrigin, {
      error: (issue) =>
        `origin must be an origin such as https://example.org (scheme, host and port; no path or trailing slash) or null; got ${quoteInput(issue.input)}`,
    })
    .optional()
    .meta({ description: 'The origin of the page to ask about; default: this request’s Origin header (curl sends none).', example: 'https://learner.example' }),
});

// ---- bodies ----------------------------------------------------------------------

/** Any bytes: the playground reads them by their Content-Type (docs/http-practice.md, "Echo"). */
const rawBody = (description: string) => ({ description, content: { '*/*': binary('The body as sent.') } });

const uploadBody = {
  description: `multipart/form-data (curl -F, a browser FormData): any number of fields and file parts, streamed. 10 MiB a file, ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB in all (framing included), 20 parts, 64 KiB a field value: the playground checks each as the body streams (413).`,
  content: {
    'multipart/form-data': z
      .looseObject({ file: binary('A file part; any field name works, and any number of them.').optional() })
      .meta({ description: 'Fields and files under any names.' }),
  },
};

/**
 * A batch item. The batch runner (batch-runner.ts) checks each item as it
 * comes to it, so a bad item fails alone (400 in its own result) and the
 * batch goes on: the dispatcher lets any item through, and this schema only
 * documents what a good one is.
 */
const batchItem = z.strictObject({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']).meta({ example: 'GET' }),
  path: z.string().max(2048).meta({
    description: 'A path on this service with its query: not a URL, no . or .. segments, no backslash, not the batch itself.',
    example: '/playground/echo?x=1',
  }),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .meta({
      description:
        "Only these, and where the batch went (its Host and a trusted proxy's X-Forwarded-*, unless set here): no credential is inherited from the batch request.",
      example: { 'x-api-key': 'ak_…' },
    }),
  body: z.unknown().optional().meta({ description: 'A string is sent as text/plain, anything else as JSON, unless headers names a Content-Type.' }),
});
const { $schema: _dialect, ...batchItemShape } = z.toJSONSchema(batchItem, { io: 'input' });
const batchBody = z
  .strictObject({
    requests: z
      .array(z.unknown().meta({ id: 'BatchItem', ...batchItemShape }), {
        error: 'requests must be an array: send {"requests": [{"method": "GET", "path": "/health"}, …]}',
      })
      // The runner owns the cap (BATCH.maxItems, 400 too_many_requests); stated here for the document.
      .meta({ maxItems: BATCH.maxItems, description: `At most ${BATCH.maxItems}; run in order, one ${BATCH.budgetMs / 1000} s budget for all.` }),
  })
  .meta({
    id: 'Batch',
    example: {
      requests: [
        { method: 'GET', path: '/health' },
        { method: 'POST', path: '/playground/echo', body: { n: 1 } },
      ],
    },
  });

// ---- answers ---------------------------------------------------------------------

const notes = z.array(z.string()).meta({ description: 'What happened and why, in words (empty when there is nothing to say).' });
const formValues = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
const bodyKind = z.enum(['none', 'json', 'form', 'text', 'bytes']);

const echoAnswer = z
  .object({
    method: z.string(),
    url: z.string().meta({ description: 'The public base URL, the path and the query.' }),
    path: z.string().meta({ description: 'As sent (percent-encoded).' }),
    query: formValues.meta({ description: 'A key given once is a string; a repeated key, an array in the order given.' }),
    contentType: z.string().nullable(),
    body: z.unknown().meta({ description: 'none: null; json: the object; form: an object like query; text: the string; bytes: {size, sha256}.' }),
    bodyKind,
    bodySize: z.number().int(),
    headers: formValues.meta({ description: 'Lower-case names, repeats combined as node combines them (set-cookie an array).' }),
    clientAddress: z.string(),
    httpVersion: z.string(),
    notes,
  })
  .meta({
    id: 'EchoAnswer',
    description: 'What arrived, read the way a server reads it.',
    example: {
      method: 'POST',
      url: 'http://127.0.0.1:8080/playground/echo?tag=a&tag=b',
      path: '/playground/echo',
      query: { tag: ['a', 'b'] },
      contentType: 'application/json',
      body: { hello: 'world' },
      bodyKind: 'json',
      bodySize: 17,
      headers: { host: '127.0.0.1:8080', 'content-type': 'application/json', 'content-length': '17' },
      clientAddress: '127.0.0.1',
      httpVersion: '1.1',
      notes: [],
    },
  });

const delayFields = {
  delayRequestedMs: z.number().meta({ description: 'The delay asked for.' }),
  delayAppliedMs: z.number().meta({ description: 'The wait, after the cap.' }),
  delayCapMs: z.number(),
};
const respondAnswer = z
  .object({
    status: z.number().int(),
    statusText: z.string().nullable().meta({ description: "The status's reason phrase; null for a status without one." }),
    statusRequested: z.number().int().optional().meta({ description: 'Only when the status answered is not the one asked for (a 1xx).' }),
    method: z.string(),
    ...delayFields,
    retryAfter: z.number().int().optional().meta({ description: 'The Retry-After sent, in seconds: only when retry_after was given.' }),
    notes,
  })
  .meta({
    id: 'ResponseAnswer',
    description: 'The status asked for, described (without the body parameter).',
    example: { status: 418, statusText: "I'm a Teapot", method: 'GET', delayRequestedMs: 20, delayAppliedMs: 20, delayCapMs: DELAY_CAPS.response, notes: [] },
  });
const timeoutAnswer = z.object({ status: z.literal(200), ...delayFields, notes }).meta({
  id: 'TimeoutAnswer',
  example: { status: 200, delayRequestedMs: 1000, delayAppliedMs: 1000, delayCapMs: DELAY_CAPS.timeout, notes: [playgroundApi.timeoutNote(1000)] },
});

const redirectStatus = z
  .number()
  .int()
  .meta({ enum: REDIRECT_STATUSES.map(Number) });
const redirectHop = z
  .object({
    redirect: z.number().int().meta({ description: 'This redirect’s number, from 1.' }),
    of: z.number().int().meta({ description: 'n' }),
    status: redirectStatus,
    location: z.string().meta({ description: 'As in the Location header.' }),
    arrived: z.object({ method: z.string(), bodyBytes: z.number().int() }),
    notes,
  })
  .meta({
    id: 'RedirectHop',
    example: {
      redirect: 1,
      of: 3,
      status: 307,
      location: '/playground/redirect?n=3&status=307&hop=1&trail=POST-7',
      arrived: { method: 'POST', bodyBytes: 7 },
      notes: [playgroundApi.REDIRECT_MEANING[307], playgroundApi.REDIRECT_LOCATION_NOTE],
    },
  });
const redirectEnd = z
  .object({
    redirects: z.number().int(),
    status: redirectStatus,
    trail: z.array(z.object({ request: z.number().int(), method: z.string(), bodyBytes: z.number().int(), answered: z.number().int() })),
    arrived: z.object({ method: z.string(), contentType: z.string().nullable(), body: z.unknown(), bodyKind, bodySize: z.number().int() }),
    methodChanged: z.boolean(),
    notes: notes.meta({ description: 'The first line is the verdict: what your client did with the method and the body.' }),
  })
  .meta({
    id: 'RedirectEnd',
    example: {
      redirects: 1,
      status: 302,
      trail: [
        { request: 1, method: 'POST', bodyBytes: 7, answered: 302 },
        { request: 2, method: 'GET', bodyBytes: 0, answered: 200 },
      ],
      arrived: { method: 'GET', contentType: null, body: null, bodyKind: 'none', bodySize: 0 },
      methodChanged: true,
      notes: [
        'Your client turned POST into GET after redirect 1 and dropped the body, as clients do with a 302; use 307 or 308 to keep the method and body.',
        playgroundApi.REDIRECT_MEANING[302],
      ],
    },
  });

const headersAnswer = z
  .object({
    received: z
      .array(z.object({ name: z.string(), value: z.string() }))
      .meta({ description: 'Every header line as it arrived: original case, order, repeats.' }),
    count: z.number().int(),
    normalised: formValues.meta({ description: 'What a node server works with: lower-case names, repeats combined.' }),
    httpVersion: z.string(),
    notes,
  })
  .meta({
    id: 'HeadersAnswer',
    example: {
      received: [
        { name: 'Host', value: '127.0.0.1:8080' },
        { name: 'X-Custom', value: '1' },
        { name: 'x-custom', value: '2' },
        { name: 'Connection', value: 'keep-alive' },
      ],
      count: 4,
      normalised: { host: '127.0.0.1:8080', 'x-custom': '1, 2', connection: 'keep-alive' },
      httpVersion: '1.1',
      notes: [
        'X-Custom was sent 2 times: joined with ", " into one value (RFC 9110 5.3: a list header may be split over several lines).',
        playgroundApi.HEADER_CASE_KEPT_NOTE,
      ],
    },
  });

const uploadAnswer = z
  .object({
    parts: z.array(
      z.discriminatedUnion('type', [
        z.object({
          type: z.literal('file'),
          name: z.string().optional().meta({ description: "The part's name; absent when the part sent none (RFC 7578 requires one)." }),
          filename: z.string().nullable(),
          contentType: z.string(),
          size: z.number().int(),
          sha256: z.string().meta({ description: 'Lower-case hex, as sha256sum prints it.' }),
        }),
        z.object({
          type: z.literal('field'),
          // RFC 7578 4.2 requires a name; busboy still reads a part sent without one, and so does the answer.
          name: z.string().optional().meta({ description: "The part's name; absent when the part sent none (RFC 7578 requires one)." }),
          value: z.string(),
        }),
      ]),
    ),
    files: z.number().int(),
    fields: z.number().int(),
    bodyBytes: z.number().int().meta({ description: 'The body, multipart framing included.' }),
    limits: z.object({ fileBytes: z.number().int(), requestBytes: z.number().int(), parts: z.number().int(), fieldBytes: z.number().int() }),
    notes,
  })
  .meta({
    id: 'UploadAnswer',
    example: {
      parts: [
        {
          type: 'file',
          name: 'doc',
          filename: 'photo.jpg',
          contentType: 'image/jpeg',
          size: 30512,
          sha256: '7c19872a655215f1090f5f0b40a6812dd8082448453c5b151299e0382c63fcee',
        },
        { type: 'field', name: 'note', value: 'hello' },
      ],
      files: 1,
      fields: 1,
      bodyBytes: 30757,
      limits: { fileBytes: 10485760, requestBytes: UPLOAD_MAX_BYTES, parts: 20, fieldBytes: 65536 },
      notes: [],
    },
  });

const checkResult = z.object({ result: z.enum(['pass', 'fail', 'skipped', 'unknown']), why: z.string() });
const checkName = z.enum(['origin', 'credentials', 'method', 'headers']);
/** Access-Control-* header values; the allowed origin is null when there was none to reflect. */
const corsHeaderValues = z.record(z.string(), z.string().nullable());
/** The CorsInfo example's query (?method=PUT&headers=x-custom): the parameters it shows as given. */
const CORS_INFO_EXAMPLE_QUERY: Readonly<Record<string, string>> = { method: 'PUT', headers: 'x-custom' };
const corsInfoAnswer = z
  .object({
    origin: z.object({
      value: z.string().nullable(),
      source: z.enum(['origin parameter', 'Origin header', 'none']),
      serviceOrigin: z.string().nullable(),
      sameOrigin: z.boolean(),
    }),
    request: z.object({
      method: z.string(),
      headers: z.array(z.string()),
      contentType: z.string().nullable(),
      credentials: z.enum(['omit', 'same-origin', 'include']),
      droppedByBrowser: z.array(z.string()),
    }),
    check: z.enum(['simple', 'preflight', 'none', 'blocked']),
    why: z.array(z.string()),
    preflightRequest: z.object({ method: z.literal('OPTIONS'), headers: corsHeaderValues }).nullable(),
    checks: z.object({ origin: checkResult, credentials: checkResult, method: checkResult, headers: checkResult }),
    failing: z.array(checkName),
    verdict: z.enum(['pass', 'fail', 'unknown']),
    summary: z.string(),
    labAnswers: z.object({ preflight: corsHeaderValues.nullable(), actual: corsHeaderValues }),
    maxAge: z.object({ seconds: z.number().int(), chromiumKeepsFor: z.number().int(), firefoxKeepsFor: z.number().int(), note: z.string() }).nullable(),
    parameters: z.array(z.object({ name: z.string(), role: z.enum(['steering', 'intended request']), meaning: z.string(), given: z.string().nullable() })),
    notes,
  })
  .meta({
    id: 'CorsInfo',
    description: 'Which check a browser makes for the intended request against the lab steered by the same query, and which would fail.',
    example: {
      origin: { value: 'https://learner.example', source: 'Origin header', serviceOrigin: 'http://127.0.0.1:8080', sameOrigin: false },
      request: { method: 'PUT', headers: ['x-custom'], contentType: null, credentials: 'same-origin', droppedByBrowser: [] },
      check: 'preflight',
      why: ['PUT is not a CORS-safelisted method (GET, HEAD, POST).', 'x-custom is not a CORS-safelisted request header.'],
      preflightRequest: {
        method: 'OPTIONS',
        headers: { Origin: 'https://learner.example', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-custom' },
      },
      checks: {
        origin: { result: 'pass', why: 'Access-Control-Allow-Origin reflects the Origin the browser sends, so any origin passes.' },
        credentials: {
          result: 'skipped',
          why: "credentials: 'same-origin' (fetch's default) sends no cookies or HTTP authentication to another origin, so Access-Control-Allow-Credentials does not matter.",
        },
        method: { result: 'pass', why: 'Access-Control-Allow-Methods ("PUT") lists PUT.' },
        headers: { result: 'pass', why: 'Access-Control-Allow-Headers ("x-custom") covers x-custom.' },
      },
      failing: [],
      verdict: 'pass',
      summary:
        'A page at https://learner.example calling PUT with x-custom makes a preflight (OPTIONS) first, and every check passes: the page can read the answer.',
      labAnswers: {
        preflight: {
          'Access-Control-Allow-Origin': 'https://learner.example',
          'Access-Control-Allow-Methods': 'PUT',
          'Access-Control-Allow-Headers': 'x-custom',
          'Access-Control-Max-Age': '600',
        },
        actual: { 'Access-Control-Allow-Origin': 'https://learner.example' },
      },
      maxAge: { seconds: 600, chromiumKeepsFor: 600, firefoxKeepsFor: 600, note: playgroundApi.PREFLIGHT_REUSE_NOTE },
      parameters: playgroundApi.CORS_PARAMETERS.map((parameter) => ({ ...parameter, given: CORS_INFO_EXAMPLE_QUERY[parameter.name] ?? null })),
      notes: [playgroundApi.EXPOSED_HEADERS_NOTE],
    },
  });
/** The lab's own answers' notes (the gateway answers cors/simple and cors/preflight itself). */
export const CORS_SIMPLE_NOTE = 'A simple request: the browser sent it without a preflight and checks Access-Control-Allow-Origin on this answer.';
export const CORS_PREFLIGHTED_NOTE = 'The browser asked first (OPTIONS), was allowed, then sent this request.';
const corsSimpleAnswer = z
  .object({ cors: z.literal('simple'), origin: z.string().nullable().meta({ description: 'The Origin header, if any.' }), note: z.string() })
  .meta({
    id: 'CorsSimple',
    example: { cors: 'simple', origin: 'https://learner.example', note: CORS_SIMPLE_NOTE },
  });
const jsonObject = z.record(z.string(), z.unknown()).meta({ description: 'Any JSON object.', example: { hello: 'world' } });
const corsPreflightAnswer = z.object({ cors: z.literal('preflighted'), origin: z.string().nullable(), received: jsonObject, note: z.string() }).meta({
  id: 'CorsPreflighted',
  example: {
    cors: 'preflighted',
    origin: 'https://learner.example',
    received: { hello: 'world' },
    note: CORS_PREFLIGHTED_NOTE,
  },
});

const batchResult = z
  .object({
    status: z
      .number()
      .int()
      .meta({ description: "The item's own status: a failing item never fails the batch (504 batch_budget_exhausted once the budget ran out)." }),
    headers: formValues,
    body: z.unknown().meta({ description: 'Parsed when the item answered JSON; text otherwise; null without a body.' }),
  })
  .meta({ id: 'BatchResult' });
/**
 * The Batch example's items answered (GET /health, then POST /playground/echo
 * {"n":1}), the batch sent to 127.0.0.1:8080. An item is a request without a
 * socket: it inherits the batch's Host (so its links point where the batch
 * went) and its address, nothing else (batch-runner.ts).
 */
const batchExampleBodies = {
  health: { status: 'ok' },
  echo: {
    method: 'POST',
    url: 'http://127.0.0.1:8080/playground/echo',
    path: '/playground/echo',
    query: {},
    contentType: 'application/json',
    body: { n: 1 },
    bodyKind: 'json',
    bodySize: 7,
    headers: { host: '127.0.0.1:8080', 'content-type': 'application/json', 'content-length': '7' },
    clientAddress: '127.0.0.1',
    httpVersion: '1.1',
    notes: [],
  },
};
/** An item's headers: its JSON answer's, and what dispatch adds to every answer (request id, security headers, the API's CORS). */
const batchItemHeaders = (body: unknown, requestId: string) => ({
  'Content-Type': JSON_TYPE,
  'Content-Length': String(Buffer.byteLength(JSON.stringify(body))),
  'X-Request-Id': requestId,
  ...SECURITY_HEADERS,
  ...OPEN_CORS_HEADERS,
});
const batchAnswer = z.array(batchResult).meta({
  id: 'BatchAnswer',
  description: 'One result per item, in the order of requests (the spec: "returns an array of results").',
  example: [
    { status: 200, headers: batchItemHeaders(batchExampleBodies.health, '4b0c2f0e-6a55-4a0e-9f57-1d2c3b4a5e6f'), body: batchExampleBodies.health },
    { status: 200, headers: batchItemHeaders(batchExampleBodies.echo, '9d1e3a5c-7b2f-4c6d-8e0a-1f3b5d7c9e2a'), body: batchExampleBodies.echo },
  ],
});

// ---- contracts ------------------------------------------------------------------

const delayApplied = {
  'X-Delay-Applied-Ms': {
    description: 'The wait, in milliseconds, after the cap.',
    schema: z
      .string()
      .regex(/^[0-9]+$/)
      .meta({ example: '1500' }),
    required: true,
  },
};
const playgroundNote = { 'X-Playground-Note': { description: 'Where the answer differs from what was asked for, why, in one line.' } };
const compressed = { 415: 'The body is compressed (Content-Encoding other than identity): send it as it is.' };
/** The gateway screens a raw body before forwarding it (guard/screen.ts). */
const SECRET_IN_BODY = 'or the body holds something shaped like a live secret of another service (production_credential_refused, naming the kind)';

/**
 * /playground/response answers the status the client asks for, so its
 * success is a range, not a key. Documented as the classes 2XX, 3XX, 4XX and
 * 5XX (OpenAPI's range keys, read by Schemathesis's status_code_conformance
 * and by client generators, which map 2XX to success and 4XX/5XX to errors),
 * rather than `default`, which says nothing about which statuses can come
 * and which most generators read as "an error". No 1XX: a 1xx asked for is
 * answered as a 200. Exact keys where the answer differs from its class:
 * 200 (the default, and a 1xx asked for), 204, 205 and 304 (no body). Where
 * a gateway refusal shares a class (400, 413, 503, 504), the document gives
 * that status both bodies.
 */
const retryAfterSent = { 'Retry-After': { description: 'The retry_after parameter, when given: seconds to wait before retrying.' } };
const answered = (description: string): ResponseDoc => ({
  description,
  content: { 'application/json': respondAnswer, 'text/plain': z.string().meta({ description: 'The body parameter, when given.', example: "I'm a teapot" }) },
  headers: { ...delayApplied, ...playgroundNote, ...retryAfterSent },
});
const noBody = (status: string): ResponseDoc => ({
  description: `${status}: no body and no Content-Type (RFC 9110), even with the body parameter.`,
  headers: { ...delayApplied, ...playgroundNote },
});
const respond = {
  query: responseQuery,
  description:
    'Answers with the status asked for (100-599), after the delay asked for, with the body parameter as a text/plain answer or else a JSON description. Where HTTP cannot do as asked, the answer is the closest HTTP allows and X-Playground-Note says so: a 1xx is answered as a 200, 204/205/304 carry no body, a 3xx has no Location (use /playground/redirect), 401 carries WWW-Authenticate and 405 Allow.',
  responses: {
    200: {
      ...answered('The default (no status given), or a 1xx asked for (answered as 200: X-Status-Requested names it).'),
      headers: { ...delayApplied, ...playgroundNote, 'X-Status-Requested': { description: 'The 1xx asked for, when the answer is a 200 instead.' } },
    },
    204: noBody('204 No Content'),
    205: noBody('205 Reset Content'),
    304: noBody('304 Not Modified'),
  },
  statusClasses: {
    '2XX': answered('The 2xx asked for.'),
    '3XX': answered('The 3xx asked for, without a Location: clients return it as it is.'),
    '4XX': {
      ...answered('The 4xx asked for.'),
      headers: {
        ...delayApplied,
        ...playgroundNote,
        ...retryAfterSent,
        'WWW-Authenticate': { description: `With a 401, as HTTP requires: ${challenges.CHALLENGE.bearer}.` },
        Allow: { description: 'With a 405, as HTTP requires: the methods of this endpoint.' },
      },
    },
    '5XX': answered('The 5xx asked for.'),
  },
  refusals: { 400: `A parameter breaks its rule (invalid_parameter, naming it); ${SECRET_IN_BODY}.`, ...compressed },
} satisfies Contract;

const timeout = {
  query: timeoutQuery,
  description: "Waits, then answers 200. Set your client's timeout below the delay to watch it give up; when it disconnects, the service stops waiting too.",
  responses: { 200: { description: 'Waited; the answer says how long.', schema: timeoutAnswer, headers: delayApplied } },
  refusals: { 400: 'delay is not a whole number of milliseconds (invalid_parameter).' },
} satisfies Contract;

const hop = (status: number) => ({
  description: `A redirect of the chain (hop < n).`,
  schema: redirectHop,
  headers: {
    Location: {
      description: `Where to go next: a path on this host (under the public base path), carrying n, status, hop and trail. Sent with status=${status}.`,
      schema: z.string().meta({ example: '/playground/redirect?n=3&status=307&hop=1&trail=POST-7' }),
      required: true,
    },
  },
});
const redirect = {
  query: redirectQuery,
  unparsedBody: rawBody('Any body: it is counted at each hop (307 and 308 must keep it), and shown at the end as the echo reads it, never refused.'),
  description:
    'A chain of n redirects, each answering status with a relative Location, then a 200 showing the trail: which method and body arrived at each request.',
  responses: {
    200: { description: 'The end of the chain: the trail, and the verdict on what your client did.', schema: redirectEnd },
    301: hop(301),
    302: hop(302),
    307: hop(307),
    308: hop(308),
  },
  refusals: { 400: `n, status, hop or trail breaks its rule (invalid_parameter, naming it); ${SECRET_IN_BODY}.`, ...compressed },
} satisfies Contract;

const echo = {
  unparsedBody: rawBody(
    'Any body, read by its Content-Type: JSON (application/json and every +json type) must be an object; a form is read like the query; text/* as text; anything else is reported as its size and sha256.',
  ),
  description: 'Any query parameters, reflected (a repeated key as a list).',
  responses: { 200: { description: 'What arrived.', schema: echoAnswer } },
  refusals: {
    400: `A JSON body that is malformed (malformed_body), not an object, or empty (invalid_body), or a JSON or form body that is not UTF-8 (invalid_utf8); ${SECRET_IN_BODY}.`,
    ...compressed,
  },
} satisfies Contract;

const upload = {
  unparsedBody: uploadBody,
  responses: { 200: { description: 'Every part, in the order sent.', schema: uploadAnswer } },
  refusals: {
    400: 'Not multipart/form-data (not_multipart), or a malformed multipart body (malformed_multipart); a field holding a live secret (production_credential_refused).',
    413: 'A limit crossed (file_too_large, body_too_large, too_many_parts, field_too_large): the service stops reading at once.',
  },
} satisfies Contract;

const headers = { responses: { 200: { description: 'The request headers, as received and as normalised.', schema: headersAnswer } } } satisfies Contract;

const labRefusal = { 400: 'A lab parameter breaks its rule (invalid_parameter, naming it).' };
const corsInfo = {
  query: corsInfoQuery,
  responses: { 200: { description: 'The browser’s checks, predicted.', schema: corsInfoAnswer } },
  refusals: labRefusal,
} satisfies Contract;
const corsSimple = {
  query: labQuery,
  responses: { 200: { description: 'Allowed under the lab’s policy, as steered.', schema: corsSimpleAnswer } },
  refusals: labRefusal,
  noUpstreamRefusals: true,
} satisfies Contract;
const corsPreflight = {
  query: labQuery,
  body: jsonObject,
  responses: { 200: { description: 'The body arrived after the preflight.', schema: corsPreflightAnswer } },
  refusals: labRefusal,
  noUpstreamRefusals: true,
} satisfies Contract;

const batch = {
  body: batchBody,
  description:
    'Each item runs through this API in order, with its own headers only (no credential is inherited), within one budget; a failing item fails alone.',
  responses: {
    200: {
      description: 'Every item’s answer, in order: an array, as many results as requests.',
      schema: batchAnswer,
      headers: {
        [BATCH_HEADERS.budget]: {
          description: `The budget all items shared, in milliseconds (${BATCH.budgetMs}): an item reached after it ran out answers 504 batch_budget_exhausted.`,
          schema: z
            .string()
            .regex(/^[0-9]+$/)
            .meta({ example: String(BATCH.budgetMs) }),
          required: true,
        },
        [BATCH_HEADERS.order]: {
          description: 'sequential: each item ran after the one before it had answered, so a later item sees an earlier one’s effect.',
          schema: z.literal('sequential'),
          required: true,
        },
      },
    },
  },
  refusals: { 400: `requests is not an array (invalid_body), or holds more than ${BATCH.maxItems} items (too_many_requests).` },
  // An item's own 503 or 504 is its result; the batch itself answers 200.
  noUpstreamRefusals: true,
} satisfies Contract;

/** Each row's contract (http-practice-routes.ts), by the row's name. */
export const contracts = { echo, upload, respond, timeout, redirect, headers, corsInfo, corsSimple, corsPreflight, batch };
