import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXERCISES, exerciseById } from '../../src/domain/exercises/catalogue';
import type { Exercise, ExerciseProgress, ObservedRequest, Verdict } from '../../src/domain/exercises/types';

const ROOT = join(__dirname, '../../../..');
const T0 = Date.UTC(2026, 0, 1);

/** One request as identity sees it in a gateway's batch; `at` counts seconds after T0 to keep the sequences readable. */
function req(
  method: string,
  path: string,
  status: number,
  more: { style?: string; failure?: string; s?: number; facts?: Record<string, string> } = {},
): ObservedRequest {
  return {
    method,
    path,
    status,
    authStyle: more.style ?? '',
    failure: more.failure ?? '',
    at: T0 + (more.s ?? 0) * 1000,
    facts: more.facts ?? {},
  };
}

/**
 * Plays requests through one exercise's judge as the progress store would:
 * an attempt replaces the remembered last attempt (with its facts and path),
 * done is kept. Returns every verdict and the progress at the end.
 */
function play(exercise: Exercise, requests: readonly ObservedRequest[], start?: ExerciseProgress): { verdicts: Verdict[]; progress?: ExerciseProgress } {
  let progress = start;
  const verdicts: Verdict[] = [];
  for (const request of requests) {
    const verdict = exercise.judge(request, progress);
    verdicts.push(verdict);
    if (verdict?.kind === 'attempt') {
      progress = {
        status: progress?.status === 'done' ? 'done' : 'attempted',
        firstAttemptAt: progress?.firstAttemptAt ?? request.at,
        lastAttempt: { at: request.at, hint: verdict.hint, facts: request.facts, path: request.path },
        doneAt: progress?.doneAt,
      };
    } else if (verdict?.kind === 'done' && progress?.status !== 'done') {
      progress = {
        status: 'done',
        firstAttemptAt: progress?.firstAttemptAt ?? request.at,
        lastAttempt: progress?.lastAttempt,
        doneAt: request.at,
        doneWith: 'app',
      };
    }
  }
  return { verdicts, progress };
}

const DATA = '/playground/data/hr/employees';
const MISSING_SCOPE = 'missing_scope: Reading the fpa pack needs the scope fpa:read, which this app does not hold.';
const BAD_SECRET = 'invalid_credentials: The App ID or App Secret is not correct.';
const RATE_LIMITED = 'rate_limited: This app may make 50 requests a second (bursts of 100), and that budget is spent. Wait 1 s (Retry-After) and retry.';

interface Case {
  /** Requests that complete it: the last verdict is done (and none before it). */
  completes: ObservedRequest[];
  /** Requests that only attempt it: the last verdict is an attempt whose hint holds each of `hintNames`. */
  attempts: ObservedRequest[];
  hintNames: string[];
  /** A request that has nothing to do with it. */
  unrelated: ObservedRequest;
}

const page = (style: string, lastPage: boolean, s: number, rows = '2173') =>
  req('GET', DATA, 200, { style: 'api_key_header', s, facts: { pagination: style, last_page: String(lastPage), entity_rows: rows } });

const pagingCase = (style: string, other: string): Case => ({
  completes: [page(style, false, 1), page(style, false, 2), page(style, true, 3)],
  attempts: [
    page(style, false, 1),
    req('GET', DATA, 400, {
      style: 'api_key_header',
      s: 2,
      failure: 'conflicting_parameters: page cannot be combined with cursor: choose one pagination style.',
      facts: { pagination: style },
    }),
  ],
  hintNames: ['conflicting_parameters', 'page cannot be combined with cursor'],
  unrelated: page(other, true, 1),
});

const styleCase = (path: string, style: string, failure: string, rule: string): Case => ({
  completes: [req('GET', path, 200, { style })],
  attempts: [req('GET', path, 401, { style, failure })],
  hintNames: [rule],
  unrelated: req('GET', DATA, 200, { style: 'api_key_header' }),
});

const token = (status: number, facts: Record<string, string>, s = 0, failure = '') =>
  req('POST', '/oauth/token', status, { style: 'oauth2', s, facts, failure });

const CASES: Record<string, Case> = {
  'start-first-page': {
    completes: [req('GET', DATA, 200, { style: 'api_key_query' })],
    attempts: [req('GET', '/playground/data/fpa/actuals', 403, { style: 'api_key_header', failure: MISSING_SCOPE })],
    hintNames: ['missing_scope', 'needs the scope fpa:read'],
    unrelated: req('GET', DATA, 200, { style: 'bearer' }),
  },
  'start-401-fixed': {
    completes: [
      req('GET', '/playground/auth/basic', 401, { style: 'basic', failure: BAD_SECRET }),
      req('GET', '/playground/auth/basic', 200, { style: 'basic', s: 30 }),
    ],
    attempts: [req('GET', '/playground/auth/basic', 401, { style: 'basic', failure: BAD_SECRET })],
    hintNames: ['invalid_credentials', 'The App ID or App Secret is not correct.'],
    unrelated: req('GET', '/playground/echo', 200),
  },
  'start-403-scope': {
    completes: [
      req('GET', '/playground/data/fpa/actuals', 403, { style: 'api_key_header', failure: MISSING_SCOPE }),
      req('GET', '/playground/data/fpa/departments', 200, { style: 'api_key_header', s: 60 }),
    ],
    attempts: [req('GET', '/playground/data/fpa/actuals', 403, { style: 'api_key_header', failure: MISSING_SCOPE })],
    hintNames: ['missing_scope', 'fpa:read'],
    unrelated: req('GET', DATA, 200, { style: 'api_key_header' }),
  },
  'auth-basic': styleCase('/playground/auth/basic', 'basic', BAD_SECRET, 'App Secret is not correct'),
  'auth-bearer': styleCase('/playground/auth/bearer', 'bearer', 'invalid_credentials: An app bearer token starts with bt_.', 'starts with bt_'),
  'auth-api-key-header': styleCase('/playground/auth/api-key', 'api_key_header', 'invalid_credentials: The API key is not valid.', 'API key is not valid'),
  'auth-api-key-query': styleCase(
    '/playground/auth/api-key-query',
    'api_key_query',
    'invalid_credentials: api_key was given twice.',
    'api_key was given twice',
  ),
  'auth-hmac': styleCase(
    '/playground/auth/hmac',
    'hmac',
    'invalid_credentials: The signature does not match. You signed the path with its query string; sign the path only.',
    'sign the path only',
  ),
  'auth-digest': styleCase('/playground/auth/digest', 'digest', 'invalid_credentials: nc 00000001 does not increase.', 'does not increase'),
  'auth-jwt-hs256': {
    completes: [req('GET', '/playground/auth/jwt', 200, { style: 'jwt', facts: { jwt_alg: 'HS256' } })],
    attempts: [
      req('GET', '/playground/auth/jwt', 401, {
        style: 'jwt',
        failure: 'invalid_credentials: Wrong aud: expected "urn:training-sandbox:playground", received "x".',
      }),
    ],
    hintNames: ['Wrong aud'],
    unrelated: req('GET', '/playground/auth/jwt', 200, { style: 'jwt', facts: { jwt_alg: 'RS256' } }),
  },
  'auth-jwt-rs256': {
    completes: [req('GET', '/playground/auth/jwt', 200, { style: 'jwt', facts: { jwt_alg: 'RS256' } })],
    attempts: [
      req('GET', '/playground/auth/jwt', 401, { style: 'jwt', failure: 'invalid_credentials: The token expired at 2026-01-01T00:00:00Z (1767225600).' }),
    ],
    hintNames: ['The token expired at'],
    unrelated: req('GET', '/playground/auth/jwt', 200, { style: 'jwt', facts: { jwt_alg: 'HS256' } }),
  },
  'auth-oauth1': {
    completes: [
      req('POST', '/oauth1/request_token', 200, { style: 'oauth1', facts: { oauth1_step: 'request_token' } }),
      req('GET', '/oauth1/authorize', 200, { s: 1 }),
      req('POST', '/oauth1/access_token', 200, { style: 'oauth1', s: 2, facts: { oauth1_step: 'access_token' } }),
      req('GET', '/playground/auth/oauth1', 401, {
        style: 'oauth1',
        s: 3,
        failure: 'signature_invalid: The signature does not match.',
        facts: { oauth1_step: 'resource' },
      }),
      req('GET', '/playground/auth/oauth1', 200, { style: 'oauth1', s: 4, facts: { oauth1_step: 'resource' } }),
    ],
    attempts: [
      req('POST', '/oauth1/request_token', 200, { style: 'oauth1', facts: { oauth1_step: 'request_token' } }),
      req('POST', '/oauth1/access_token', 401, {
        style: 'oauth1',
        s: 1,
        failure: 'verifier_invalid: The verifier is not the one issued for this token.',
        facts: { oauth1_step: 'access_token' },
      }),
    ],
    hintNames: ['verifier_invalid', 'not the one issued'],
    unrelated: token(200, { grant: 'client_credentials' }),
  },
  'auth-oauth2-client-credentials': {
    completes: [token(200, { grant: 'client_credentials' })],
    attempts: [token(401, { grant: 'client_credentials' }, 0, 'invalid_client: The client secret is not correct.')],
    hintNames: ['invalid_client', 'client secret is not correct'],
    unrelated: token(200, { grant: 'authorization_code', pkce: 'S256' }),
  },
  'auth-oauth2-pkce': {
    completes: [token(200, { grant: 'authorization_code', pkce: 'S256' })],
    attempts: [token(400, { grant: 'authorization_code' }, 0, 'invalid_grant: The code_verifier does not match the code_challenge.')],
    hintNames: ['invalid_grant', 'code_verifier does not match'],
    unrelated: token(200, { grant: 'client_credentials' }),
  },
  'auth-oauth2-refresh': {
    completes: [token(200, { grant: 'refresh_token', rotated: 'true' }), token(200, { grant: 'refresh_token', rotated: 'true' }, 10)],
    attempts: [
      token(200, { grant: 'refresh_token', rotated: 'true' }),
      token(400, { grant: 'refresh_token' }, 10, 'invalid_grant: The refresh token was already used: its whole grant is now revoked.'),
    ],
    hintNames: ['invalid_grant', 'already used'],
    unrelated: token(200, { grant: 'client_credentials' }),
  },
  'paging-page': pagingCase('page', 'offset'),
  'paging-offset': pagingCase('offset', 'cursor'),
  'paging-cursor': pagingCase('cursor', 'token'),
  'paging-token': pagingCase('token', 'link'),
  'paging-link': pagingCase('link', 'page'),
  'http-redirect-307': {
    completes: [
      req('POST', '/playground/redirect', 307),
      req('POST', '/playground/redirect', 307, { s: 1 }),
      req('POST', '/playground/redirect', 200, { s: 2, facts: { redirect_end: 'true', redirect_status: '307', redirect_method: 'POST' } }),
    ],
    attempts: [
      req('POST', '/playground/redirect', 302),
      req('GET', '/playground/redirect', 200, { s: 1, facts: { redirect_end: 'true', redirect_status: '302', redirect_method: 'GET' } }),
    ],
    hintNames: ['302', 'status=307'],
    unrelated: req('POST', '/playground/echo', 200),
  },
  'http-timeout': {
    completes: [req('GET', '/playground/timeout', 499, { facts: { delay_ms: '5000', client_gave_up_ms: '2000' } })],
    attempts: [req('GET', '/playground/timeout', 200, { facts: { delay_ms: '1000' } })],
    hintNames: ['whole delay of 1000 ms', 'timeout below the delay'],
    unrelated: req('GET', '/playground/response', 200, { facts: { delay_ms: '1000' } }),
  },
  'http-upload-sha256': {
    completes: [req('POST', '/playground/upload', 200, { facts: { sha256_match: 'true' } })],
    attempts: [req('POST', '/playground/upload', 200, { facts: { sha256_match: 'false' } })],
    hintNames: ['SHA-256', 'differs'],
    unrelated: req('POST', '/playground/echo', 200),
  },
  'http-batch': {
    completes: [req('POST', '/playground/batch', 200)],
    attempts: [req('POST', '/playground/batch', 400, { failure: 'too_many_requests: A batch holds at most 20 requests; this one has 21.' })],
    hintNames: ['too_many_requests', 'at most 20 requests'],
    unrelated: req('GET', '/playground/echo', 200),
  },
  'http-cors-preflight': {
    completes: [
      req('OPTIONS', '/playground/cors/preflight', 204, { facts: { preflight_origin: 'http://127.0.0.1:5173' } }),
      req('POST', '/playground/cors/preflight', 200, { s: 1 }),
    ],
    attempts: [req('POST', '/playground/cors/preflight', 200)],
    hintNames: ['without a preflight'],
    unrelated: req('GET', '/playground/cors/simple', 200),
  },
  'http-retry-after': {
    completes: [
      req('GET', DATA, 429, { style: 'api_key_header', failure: RATE_LIMITED, facts: { retry_after_s: '2' } }),
      req('GET', DATA, 200, { style: 'api_key_header', s: 2 }),
    ],
    attempts: [
      req('GET', DATA, 429, { style: 'api_key_header', failure: RATE_LIMITED, facts: { retry_after_s: '2' } }),
      req('GET', DATA, 200, { style: 'api_key_header', s: 0.5 }),
    ],
    hintNames: ['0.5 s after the refusal', 'Retry-After asked for 2 s'],
    unrelated: req('GET', '/playground/echo', 200, { s: 5 }),
  },
};

describe('the exercise catalogue', () => {
  it('when the catalogue is listed, then there are about twenty exercises, in every group, each with a case below', () => {
    expect(EXERCISES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(EXERCISES.map((e) => e.group))).toEqual(new Set(['getting_started', 'authentication', 'paging', 'http']));
    expect(EXERCISES.map((e) => e.id).sort()).toEqual(Object.keys(CASES).sort());
  });

  it('when ids are read, then each is unique, URL-safe and found by exerciseById', () => {
    const ids = EXERCISES.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(exerciseById(id)?.id).toBe(id);
    }
    expect(exerciseById('no-such-exercise')).toBeUndefined();
  });

  it('when every exercise is read, then it has a title, a task and a rule for done, each a sentence', () => {
    for (const e of EXERCISES) {
      expect({ id: e.id, title: e.title.length > 0, task: /\.$/.test(e.task), doneWhen: /\.$/.test(e.doneWhen) }).toEqual({
        id: e.id,
        title: true,
        task: true,
        doneWhen: true,
      });
    }
  });

  it("when each docs link is followed, then its file is under docs/ and its anchor is one of that file's headings", () => {
    for (const e of EXERCISES) {
      const [file, anchor] = e.docs.split('#');
      expect({ id: e.id, file: file.startsWith('docs/') && existsSync(join(ROOT, file)), anchor: anchor !== undefined }).toEqual({
        id: e.id,
        file: true,
        anchor: true,
      });
      expect({ id: e.id, anchors: githubAnchors(readFileSync(join(ROOT, file), 'utf8')).includes(anchor) }).toEqual({ id: e.id, anchors: true });
    }
  });

  it('when a snippet is named, then it is an authentication or pagination style id of the portal (snippets.ts, read as text)', () => {
    const text = readFileSync(join(ROOT, 'services/gateway/portal/src/snippets.ts'), 'utf8');
    const ids = [...styleIds(text, 'AUTH_STYLES'), ...styleIds(text, 'PAGINATION_STYLES')];
    expect(ids).toEqual(expect.arrayContaining(['basic', 'api_key_header', 'page', 'link']));
    for (const e of EXERCISES.filter((x) => x.snippet !== undefined))
      expect({ id: e.id, snippet: ids.includes(e.snippet!) }).toEqual({ id: e.id, snippet: true });
  });

  it('when docs/exercises.md is read, then it describes every exercise by its id', () => {
    const doc = readFileSync(join(ROOT, 'docs/exercises.md'), 'utf8');
    for (const e of EXERCISES) expect({ id: e.id, described: doc.includes(`\`${e.id}\``) }).toEqual({ id: e.id, described: true });
  });
});

describe.each(Object.keys(CASES))('exercise %s', (id) => {
  const exercise = exerciseById(id)!;
  const c = CASES[id];

  it('when its requests are made, then the last one completes it and none before it does', () => {
    const { verdicts } = play(exercise, c.completes);
    expect(verdicts.at(-1)).toEqual({ kind: 'done' });
    expect(verdicts.slice(0, -1).filter((v) => v?.kind === 'done')).toEqual([]);
  });

  it('when it is only attempted, then it is not done and the hint names the rule that failed', () => {
    const { verdicts } = play(exercise, c.attempts);
    expect(verdicts.some((v) => v?.kind === 'done')).toBe(false);
    const last = verdicts.at(-1);
    expect(last?.kind).toBe('attempt');
    for (const name of c.hintNames) expect(last?.kind === 'attempt' ? last.hint : '').toContain(name);
  });

  it('when an unrelated request is judged, fresh or after an attempt, then the verdict is undefined', () => {
    expect(exercise.judge(c.unrelated, undefined)).toBeUndefined();
    const { progress } = play(exercise, c.attempts);
    expect(exercise.judge({ ...c.unrelated, at: T0 + 3_600_000 }, progress)).toBeUndefined();
  });
});

describe('every judge', () => {
  const everyday = [req('GET', '/health', 200), req('GET', '/playground/echo', 200), req('GET', '/api/apps', 200), req('GET', '/playground/data', 200)];

  it.each(EXERCISES.map((e) => [e.id, e] as const))('when %s sees requests of no exercise, then it answers undefined', (_, exercise) => {
    for (const request of everyday)
      expect({ path: request.path, verdict: exercise.judge(request, undefined) }).toEqual({ path: request.path, verdict: undefined });
  });

  it('when a hint is built from a refusal, then it quotes only the message and cuts a long one', () => {
    const e = exerciseById('auth-basic')!;
    const verdict = e.judge(req('GET', '/playground/auth/basic', 401, { style: 'basic', failure: `invalid_credentials: ${'x'.repeat(2000)}` }), undefined);
    expect(verdict?.kind === 'attempt' && verdict.hint.length < 700).toBe(true);
  });
});

describe('judges that remember an earlier attempt', () => {
  it('when a 200 comes with no 401 before it, or at another endpoint than the 401, then "a 401 read and fixed" is not done', () => {
    const e = exerciseById('start-401-fixed')!;
    expect(e.judge(req('GET', '/playground/auth/basic', 200, { style: 'basic' }), undefined)).toBeUndefined();
    const { verdicts } = play(e, [
      req('GET', '/playground/auth/basic', 401, { style: 'basic', failure: BAD_SECRET }),
      req('GET', '/playground/auth/bearer', 200, { style: 'bearer', s: 1 }),
    ]);
    expect(verdicts[1]).toBeUndefined();
  });

  it("when a Digest challenge's 401 is judged, then it is no attempt at reading a 401 (it is the protocol's first step)", () => {
    const e = exerciseById('start-401-fixed')!;
    expect(
      e.judge(req('GET', '/playground/auth/digest', 401, { style: 'digest', failure: 'missing_credentials: No Digest credentials were sent.' }), undefined),
    ).toBeUndefined();
  });

  it('when the 200 was made before the 401 it would fix (batches out of order), then it does not count', () => {
    const e = exerciseById('start-401-fixed')!;
    const { progress } = play(e, [req('GET', DATA, 401, { style: 'jwt', failure: 'invalid_credentials: The token has no exp claim.', s: 10 })]);
    expect(e.judge(req('GET', DATA, 200, { style: 'jwt', s: 5 }), progress)).toBeUndefined();
  });

  it('when the 403 was for one pack and the 200 for another, then the scope exercise is not done', () => {
    const e = exerciseById('start-403-scope')!;
    const { verdicts } = play(e, [
      req('GET', '/playground/data/fpa/actuals', 403, { style: 'api_key_header', failure: MISSING_SCOPE }),
      req('GET', DATA, 200, { style: 'api_key_header', s: 1 }),
    ]);
    expect(verdicts[1]).toBeUndefined();
  });

  it('when the OAuth 1.0a resource succeeds without an access-token leg before it, then it is an attempt naming the legs', () => {
    const e = exerciseById('auth-oauth1')!;
    const verdict = e.judge(req('GET', '/playground/auth/oauth1', 200, { style: 'oauth1', facts: { oauth1_step: 'resource' } }), undefined);
    expect(verdict).toEqual({ kind: 'attempt', hint: expect.stringContaining('three legs') });
  });

  it('when one refresh succeeds, then rotation is attempted, not done: the client must use the new refresh token', () => {
    const { verdicts } = play(exerciseById('auth-oauth2-refresh')!, [token(200, { grant: 'refresh_token', rotated: 'true' })]);
    expect(verdicts[0]).toEqual({ kind: 'attempt', hint: expect.stringContaining('refresh once more') });
  });

  it('when a code is redeemed without PKCE, then the hint says to send an S256 challenge', () => {
    const verdict = exerciseById('auth-oauth2-pkce')!.judge(token(200, { grant: 'authorization_code' }), undefined);
    expect(verdict).toEqual({ kind: 'attempt', hint: expect.stringContaining('code_challenge_method=S256') });
  });

  it('when an entity under 1,000 rows is read to its end, then the paging exercise is an attempt naming the count', () => {
    const verdict = exerciseById('paging-cursor')!.judge(page('cursor', true, 0, '14'), undefined);
    expect(verdict).toEqual({ kind: 'attempt', hint: expect.stringContaining('has 14 rows') });
  });

  it('when the client gave up only once the delay was over, then the timeout exercise is an attempt, not done', () => {
    const verdict = exerciseById('http-timeout')!.judge(
      req('GET', '/playground/timeout', 200, { facts: { delay_ms: '2000', client_gave_up_ms: '2000' } }),
      undefined,
    );
    expect(verdict).toEqual({ kind: 'attempt', hint: expect.stringContaining('below the delay') });
  });

  it('when a 307 chain ends as a GET, then the hint says to send a POST', () => {
    const verdict = exerciseById('http-redirect-307')!.judge(
      req('GET', '/playground/redirect', 200, { facts: { redirect_end: 'true', redirect_status: '307', redirect_method: 'GET' } }),
      undefined,
    );
    expect(verdict).toEqual({ kind: 'attempt', hint: expect.stringContaining('send a POST') });
  });

  it('when the retry goes to another path, or the refusal had no Retry-After, then the retry exercise is not judged', () => {
    const e = exerciseById('http-retry-after')!;
    const { progress } = play(e, [req('GET', DATA, 429, { style: 'api_key_header', failure: RATE_LIMITED, facts: { retry_after_s: '1' } })]);
    expect(e.judge(req('GET', '/playground/data/hr/departments', 200, { style: 'api_key_header', s: 5 }), progress)).toBeUndefined();
    expect(e.judge(req('GET', '/playground/response', 503), undefined)).toBeUndefined();
  });

  it('when the retry after the wait is refused again, then it is still done: the wait is what is judged', () => {
    const { verdicts } = play(exerciseById('http-retry-after')!, [
      req('GET', '/playground/response', 503, { failure: '', facts: { retry_after_s: '1' } }),
      req('GET', '/playground/response', 503, { s: 1.2, failure: '', facts: { retry_after_s: '1' } }),
    ]);
    expect(verdicts[1]).toEqual({ kind: 'done' });
  });

  it('when a retry too soon is refused with its own Retry-After, then the next retry is measured from it', () => {
    const { verdicts } = play(exerciseById('http-retry-after')!, [
      req('GET', '/playground/response', 503, { facts: { retry_after_s: '2' } }),
      req('GET', '/playground/response', 503, { s: 0.5, facts: { retry_after_s: '2' } }),
      req('GET', '/playground/response', 200, { s: 2.1 }),
      req('GET', '/playground/response', 200, { s: 2.6 }),
    ]);
    expect(verdicts[1]).toEqual({ kind: 'attempt', hint: expect.stringContaining('0.5 s after the refusal') });
    expect(verdicts[2]).toEqual({ kind: 'attempt', hint: expect.stringContaining('1.6 s after the refusal') });
    expect(verdicts[3]).toBeUndefined();
  });

  it('when a preflight is followed by the request it allowed, then it is done even if that request was refused (the preflight passed)', () => {
    const { verdicts } = play(exerciseById('http-cors-preflight')!, [
      req('OPTIONS', '/playground/cors/preflight', 204, { facts: { preflight_origin: 'null' } }),
      req('POST', '/playground/cors/preflight', 400, { s: 1, failure: 'invalid_body: The body must be a JSON object.' }),
    ]);
    expect(verdicts[1]).toEqual({ kind: 'done' });
  });
});

/** The anchors GitHub gives a Markdown file's headings (github-slugger's rule), outside fenced code. */
function githubAnchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.push(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** The `id: '…'` values of one exported style list of snippets.ts. */
function styleIds(text: string, list: string): string[] {
  const start = text.indexOf(`export const ${list}`);
  const end = text.indexOf('\n];', start);
  return [...text.slice(start, end).matchAll(/\bid: '([^']+)'/g)].map((m) => m[1]);
}
