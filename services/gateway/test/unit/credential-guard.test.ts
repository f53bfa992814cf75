import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { CredentialGuard, findProductionCredential, refusalMessage, scanValues, SHORTEST_MATCH, type CredentialMatch } from '../../src/guard/credential-guard';
import { SECRET_PATTERNS } from '../../src/guard/secret-patterns';

// Every secret-shaped string here is built at run time from random characters
// and split prefixes, so no literal in the repository looks like a secret to a
// scanner (nor is one).

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const BASE64 = ALNUM + '+/';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');
const alnum = (n: number) => pick(ALNUM, n);
const hex = (n: number) => pick('0123456789abcdef', n);
const digits = (n: number) => pick('0123456789', n);
const b64url = (bytes: number) => randomBytes(bytes).toString('base64url');
const json64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** GitHub's (and npm's) token layout: prefix, 30 random base62, base62 CRC-32 of them in six characters. */
function checksummed(prefix: string): string {
  const random = alnum(30);
  let sum = crc32(random);
  let check = '';
  for (let i = 0; i < 6; i++) {
    check = BASE62[sum % 62] + check;
    sum = Math.floor(sum / 62);
  }
  return prefix + '_' + random + check;
}

function jwt(header: Record<string, unknown>, payload: Record<string, unknown>, signatureBytes = 256): string {
  return `${json64(header)}.${json64(payload)}.${b64url(signatureBytes)}`;
}
const now = Math.floor(Date.now() / 1000);
const idpToken = (iss: string) =>
  jwt({ alg: 'RS256', typ: 'JWT', kid: b64url(16) }, { iss, sub: randomUUID(), aud: 'api://default', iat: now, exp: now + 3600 });

/** One synthetic secret of each pattern's shape, keyed by pattern id. */
const SAMPLES: Record<string, () => string> = {
  'aws-access-key-id': () => ['AK', 'IA'].join('') + pick(UPPER_ALNUM, 16),
  'aws-secret-access-key': () => 'aws_secret' + '_access_key = ' + pick(BASE64, 40),
  'github-pat': () => checksummed('gh' + 'p'),
  'github-oauth-token': () => checksummed('gh' + 'o'),
  'github-user-to-server-token': () => checksummed('gh' + 'u'),
  'github-server-to-server-token': () => checksummed('gh' + 's'),
  'github-refresh-token': () => checksummed('gh' + 'r'),
  'github-fine-grained-pat': () => 'github' + '_pat_' + alnum(22) + '_' + alnum(59),
  'gitlab-pat': () => 'gl' + 'pat-' + pick(ALNUM + '_-', 20),
  'gitlab-token': () => 'gl' + 'dt-' + pick(ALNUM + '_-', 20),
  'slack-token': () => 'xo' + 'xb-' + digits(12) + '-' + digits(13) + '-' + alnum(24),
  'slack-app-token': () => 'xa' + 'pp-1-' + 'A' + pick(UPPER_ALNUM, 10) + '-' + digits(13) + '-' + hex(64),
  'slack-webhook-url': () => 'https://hooks.' + 'slack.com/services/T' + pick(UPPER_ALNUM, 8) + '/B' + pick(UPPER_ALNUM, 8) + '/' + alnum(24),
  'stripe-live-key': () => 'sk' + '_live_' + alnum(24),
  'google-api-key': () => 'AI' + 'za' + pick(ALNUM + '_-', 35),
  'google-oauth-client-secret': () => 'GOC' + 'SPX-' + pick(ALNUM + '_-', 28),
  'private-key': () => '-----BEGIN ' + 'PRIVATE KEY-----\n' + randomBytes(96).toString('base64') + '\n-----END PRIVATE KEY-----\n',
  'jwt-foreign-issuer': () => idpToken('https://login.microsoftonline.com/' + randomUUID() + '/v2.0'),
  'npm-token': () => checksummed('np' + 'm'),
  'pypi-token': () => 'pypi-' + 'AgEIcHlwaS5vcmc' + pick(ALNUM + '_-', 120),
  'openai-api-key': () => 'sk-' + 'proj-' + pick(ALNUM + '_-', 58) + 'T3Blbk' + 'FJ' + pick(ALNUM + '_-', 58),
  'anthropic-api-key': () => 'sk-' + 'ant-api03-' + pick(ALNUM + '_-', 93) + 'AA',
  'sendgrid-api-key': () => 'S' + 'G.' + pick(ALNUM + '_-', 22) + '.' + pick(ALNUM + '_-', 43),
  'shopify-token': () => 'shp' + 'at_' + hex(32),
};

const SANDBOX_HOST = 'sandbox.example.org';
const PORTAL_IDP = 'https://idp.university.edu/';
const guard = new CredentialGuard({ allowedIssuerHosts: [`https://${SANDBOX_HOST}/api`, PORTAL_IDP] });

const refused = (text: string, host?: string) => guard.find(text, host)?.id;

describe('credential guard: every pattern', () => {
  it('when a pattern is added, then it has a synthetic sample here (one positive test per pattern)', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(SECRET_PATTERNS.map((p) => p.id).sort());
  });

  it.each(SECRET_PATTERNS.map((p) => [p.id, p] as const))('when a string has the shape of %s, then it is refused as that kind', (id, pattern) => {
    for (let i = 0; i < 20; i++) {
      const secret = SAMPLES[id]!();
      const match = guard.find(secret);
      expect(match?.id).toBe(id);
      if (pattern.confirm !== 'foreign-jwt-issuer') expect(match?.kind).toBe(pattern.kind);
      expect(match?.advice).toBe(pattern.advice);
      expect(secret.length).toBeGreaterThanOrEqual(pattern.minLength);
    }
  });

  it.each(SECRET_PATTERNS.map((p) => [p.id] as const))('when %s sits inside a header, a query or a JSON body, then it is still found', (id) => {
    const secret = SAMPLES[id]!();
    expect(refused(`Bearer ${secret}`)).toBe(id);
    expect(refused(`page=1&token=${secret}&page_size=50`)).toBe(id);
    expect(refused(JSON.stringify({ name: 'my app', config: { note: 'see below', value: secret } }))).toBe(id);
    expect(guard.scanJson({ name: 'my app', config: [{ value: secret }] })?.id).toBe(id);
  });

  it('when a match is returned, then it carries the kind and advice and never the value', () => {
    const secret = SAMPLES['stripe-live-key']!();
    const match = guard.find(`{"key":"${secret}"}`)!;
    expect(Object.keys(match).sort()).toEqual(['advice', 'id', 'kind']);
    expect(JSON.stringify(match)).not.toContain(secret.slice(8));
    expect(refusalMessage(match)).toBe(
      "This looks like a Stripe live-mode secret key. The sandbox must never receive production credentials: rotate that credential now, and use the sandbox's own.",
    );
  });

  it('when a foreign JWT is refused, then the refusal names the issuing host and nothing of the token', () => {
    const token = idpToken('https://accounts.google.com');
    const match = guard.find(`Bearer ${token}`)!;
    expect(match.kind).toBe('a JWT issued by accounts.google.com');
    expect(JSON.stringify(match)).not.toContain(token.split('.')[1]!.slice(0, 12));
  });
});

describe("credential guard: the sandbox's own credentials never trip it", () => {
  const appId = () => 'app_' + b64url(16);
  const secret = (prefix: string) => prefix + b64url(32);
  const ROUNDS = 300;

  it('when App IDs, App Secrets, API keys, bearer and refresh tokens are sent, then nothing is refused', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const values = [appId(), secret('as_'), secret('ak_'), secret('bt_'), secret('rt_')];
      expect(values[0]).toMatch(/^app_[A-Za-z0-9_-]{22}$/);
      expect(values[2]).toMatch(/^ak_[A-Za-z0-9_-]{43}$/);
      expect(guard.scanValues(values)).toBeUndefined();
      expect(guard.scanValues([`Bearer ${values[3]}`, `Basic ${Buffer.from(`${values[0]}:${values[1]}`).toString('base64')}`])).toBeUndefined();
      expect(
        guard.scanFields([
          ['x-api-key', values[2]!],
          ['client_secret', values[1]!],
          ['refresh_token', values[4]!],
        ]),
      ).toBeUndefined();
    }
  });

  it('when codes, page tokens, cursors, ids and nonces (unprefixed base64url) are sent, then nothing is refused', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const values = [b64url(32), b64url(30), b64url(16), randomUUID(), hex(24), hex(32), hex(64)];
      expect(guard.scanValues(values)).toBeUndefined();
      expect(guard.find(`code=${values[0]}&state=${values[2]}&cursor=${values[1]}`)).toBeUndefined();
    }
  });

  it('when a page token happens to start like a GitHub or npm token, then its missing checksum lets it pass', () => {
    for (let i = 0; i < ROUNDS; i++) {
      // 40 characters, like the data service's page tokens, but without a valid checksum.
      expect(refused('gh' + 'p_' + alnum(36))).toBeUndefined();
      expect(refused('np' + 'm_' + alnum(36))).toBeUndefined();
    }
  });

  it('when portal session JWTs (HS256, urn issuer) are sent, then nothing is refused', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const token = jwt(
        { alg: 'HS256', typ: 'JWT' },
        { iss: 'urn:training-sandbox:identity', aud: 'urn:training-sandbox:portal', sub: hex(24), jti: b64url(16), iat: now, exp: now + 3600 },
        32,
      );
      expect(refused(`Bearer ${token}`)).toBeUndefined();
    }
  });

  it("when OAuth access tokens and playground JWTs name the sandbox's own base URL, then nothing is refused", () => {
    const issuers = ['http://127.0.0.1:8080', 'http://localhost:8080', `https://${SANDBOX_HOST}/api`, `http://${SANDBOX_HOST}`];
    for (const iss of issuers) {
      for (let i = 0; i < 20; i++) {
        const access = jwt(
          { alg: 'RS256', typ: 'at+jwt', kid: b64url(32) },
          { iss, sub: hex(24), aud: `${iss}/playground`, client_id: appId(), scope: 'data:read', jti: b64url(16), iat: now, exp: now + 3600 },
        );
        const playground = jwt({ alg: 'HS256', typ: 'JWT' }, { iss, sub: appId(), aud: `${iss}/playground`, scope: 'data:read', iat: now, exp: now + 600 }, 32);
        expect(refused(`Bearer ${access}`)).toBeUndefined();
        expect(refused(`Bearer ${playground}`)).toBeUndefined();
        expect(guard.scanJson({ token: playground })).toBeUndefined();
      }
    }
  });

  it('when the public base URL comes from the request, then its host is passed with the scan and its https tokens pass', () => {
    const token = jwt({ alg: 'RS256', typ: 'at+jwt' }, { iss: 'https://learn.campus.edu:8443/sandbox', sub: hex(24), iat: now });
    expect(refused(token)).toBe('jwt-foreign-issuer');
    expect(refused(token, 'learn.campus.edu:8443')).toBeUndefined();
    expect(refused(token, 'LEARN.campus.edu:8443')).toBeUndefined();
    expect(refused(token, 'learn.campus.edu')).toBe('jwt-foreign-issuer');
    expect(refused(token, 'not a host/')).toBe('jwt-foreign-issuer');
  });

  it('when the portal identity provider configured for sessions issued the JWT, then it passes', () => {
    expect(refused(idpToken(PORTAL_IDP))).toBeUndefined();
    expect(refused(idpToken('https://idp.university.edu:443/realms/students'))).toBeUndefined();
    expect(refused(idpToken('https://other.university.edu/'))).toBe('jwt-foreign-issuer');
  });

  it('when OAuth 1.0a, HMAC and Digest requests are signed with sandbox credentials, then nothing is refused', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const signature = encodeURIComponent(randomBytes(20).toString('base64'));
      const oauth1 =
        `OAuth oauth_consumer_key="${appId()}", oauth_token="${b64url(32)}", oauth_signature_method="HMAC-SHA1", ` +
        `oauth_timestamp="${now}", oauth_nonce="${hex(32)}", oauth_version="1.0", oauth_signature="${signature}"`;
      const digest =
        `Digest username="${appId()}", realm="Training Sandbox", nonce="${b64url(24)}", uri="/playground/auth/digest", ` +
        `algorithm=SHA-256, response="${hex(64)}", opaque="${b64url(16)}", qop=auth, nc=00000001, cnonce="${hex(16)}"`;
      expect(guard.scanValues([oauth1, digest, hex(64), String(now)])).toBeUndefined();
      expect(guard.find(`oauth_token=${b64url(32)}&oauth_token_secret=${b64url(32)}&oauth_verifier=${b64url(16)}`)).toBeUndefined();
    }
  });

  it('when a learner builds a JWT with no iss, a made-up iss, an http iss or a reserved example host, then it passes', () => {
    const made = [
      jwt({ alg: 'HS256', typ: 'JWT' }, { sub: '1234567890', name: 'John Doe', iat: 1516239022 }, 32),
      jwt({ alg: 'HS256' }, { iss: 'my-test-app', sub: 'me' }, 32),
      jwt({ alg: 'none' }, { iss: 'https://', sub: 'me' }, 0),
      jwt({ alg: 'RS256' }, { iss: 'http://issuer.somewhere.com', sub: 'me' }),
      jwt({ alg: 'RS256' }, { iss: 'https://example.com', sub: 'me' }),
      jwt({ alg: 'RS256' }, { iss: 'https://auth.example.org/', sub: 'me' }),
      jwt({ alg: 'RS256' }, { iss: 'https://issuer.test', sub: 'me' }),
      jwt({ alg: 'RS256' }, { iss: 'https://localhost:8443', sub: 'me' }),
      jwt({ alg: 'RS256' }, { iss: 'https://127.0.0.1:9000', sub: 'me' }),
      jwt({ alg: 'RS256' }, { iss: 'https://[::1]/', sub: 'me' }),
      jwt({ alg: 'RS256' }, { iss: 42, sub: 'me' }),
    ];
    for (const token of made) {
      expect(refused(token)).toBeUndefined();
      expect(guard.scanJson({ token })).toBeUndefined();
    }
  });

  it('when a JWT-looking string has no JSON header with an alg, then it is not a JWT', () => {
    expect(refused(`${json64({ typ: 'JWT' })}.${json64({ iss: 'https://accounts.google.com' })}.${b64url(32)}`)).toBeUndefined();
    expect(refused(`eyJ${b64url(12)}.${json64({ iss: 'https://accounts.google.com' })}.${b64url(32)}`)).toBeUndefined();
    expect(refused(`${json64({ alg: 'RS256' })}.${b64url(40)}.${b64url(32)}`)).toBeUndefined();
  });

  it('when a foreign https issuer comes second in one string, then it is still found', () => {
    const ours = jwt({ alg: 'HS256' }, { iss: 'urn:training-sandbox:identity' }, 32);
    expect(refused(`${ours} ${idpToken('https://dev-123456.okta.com/oauth2/default')}`)).toBe('jwt-foreign-issuer');
    expect(refused(idpToken('HTTPS://Cognito-IDP.eu-west-1.amazonaws.com/eu-west-1_abc'))).toBe('jwt-foreign-issuer');
  });
});

describe('credential guard: lookalikes and boundaries', () => {
  it('when Stripe test-mode or publishable keys are sent, then they pass', () => {
    expect(refused('sk' + '_test_' + alnum(24))).toBeUndefined();
    expect(refused('rk' + '_test_' + alnum(24))).toBeUndefined();
    expect(refused('pk' + '_live_' + alnum(24))).toBeUndefined();
  });

  it('when AKIA and 16 capitals sit inside a longer word or run, then it is not an access key ID (keys stand alone)', () => {
    const body = ['AK', 'IA'].join('') + pick(UPPER_ALNUM, 16);
    expect(refused(body)).toBe('aws-access-key-id');
    expect(refused(`AWS_ACCESS_KEY_ID=${body}\n`)).toBe('aws-access-key-id');
    expect(refused(`"${body}"`)).toBe('aws-access-key-id');
    expect(refused('X' + body)).toBeUndefined();
    expect(refused(body + 'X')).toBeUndefined();
    expect(refused(body + '_suffix')).toBeUndefined();
    expect(refused('prefix-' + body)).toBeUndefined();
    expect(refused('abc/' + body + '+def')).toBeUndefined();
    expect(refused(['AK', 'IA'].join('') + pick('abcdefghijklmnop', 16))).toBeUndefined();
  });

  it('when a Google-key prefix has the wrong length, then it passes', () => {
    const prefix = 'AI' + 'za';
    expect(refused(prefix + pick(ALNUM, 34))).toBeUndefined();
    expect(refused(prefix + pick(ALNUM, 36))).toBeUndefined();
    expect(refused(prefix + pick(ALNUM, 35))).toBe('google-api-key');
  });

  it('when 40 base64 characters carry no AWS secret name, then they pass; with the name, in any common form, they are refused', () => {
    const value = pick(BASE64, 40);
    expect(refused(`client_secret=${value}`)).toBeUndefined();
    expect(refused(`secret: ${value}`)).toBeUndefined();
    expect(refused(`AWS_SECRET_ACCESS_KEY=${value}`)).toBe('aws-secret-access-key');
    expect(refused(`{"SecretAccessKey": "${value}"}`)).toBe('aws-secret-access-key');
    expect(refused(`aws_secret_access_key = ${value}\n`)).toBe('aws-secret-access-key');
    expect(refused(`aws_secret_access_key=${value}x`)).toBeUndefined();
    expect(guard.findInField('aws_secret_access_key', value)?.id).toBe('aws-secret-access-key');
    expect(guard.scanFields([['SecretAccessKey', value]])?.id).toBe('aws-secret-access-key');
    expect(guard.scanJson({ credentials: { secretAccessKey: value } })?.id).toBe('aws-secret-access-key');
    expect(guard.findInField('client_secret', value)).toBeUndefined();
  });

  it('when a GitHub-shaped token has a wrong checksum or length, then it passes', () => {
    const real = checksummed('gh' + 'p');
    const last = real.at(-1) === 'a' ? 'b' : 'a';
    expect(refused(real)).toBe('github-pat');
    expect(refused(real.slice(0, -1) + last)).toBeUndefined();
    expect(refused(real.slice(0, -1))).toBeUndefined();
    expect(refused('x' + real)).toBeUndefined();
    expect(refused('token ' + real)).toBe('github-pat');
  });

  it('when other near misses are sent, then they pass', () => {
    const near = [
      'gl' + 'pat-' + alnum(19),
      'xo' + 'xb-notatoken-' + alnum(24),
      '-----BEGIN ' + 'PUBLIC KEY-----\n' + randomBytes(64).toString('base64'),
      '-----BEGIN ' + 'CERTIFICATE-----\n' + randomBytes(64).toString('base64'),
      'hooks.' + 'slack.com/services/',
      'The secret of a good integration is pagination; the key to it is patience.',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    ];
    for (const text of near) expect(refused(text)).toBeUndefined();
  });

  it("when one pattern's trigger overlaps another's, then both patterns still run", () => {
    // "…SECRE" + "T3BlbkFJ…": the trigger ECRET ends on the T that starts OpenAI's.
    const key = 'sk-' + 'proj-' + pick(ALNUM, 53) + 'SECRE' + 'T3Blbk' + 'FJ' + pick(ALNUM, 58);
    expect(refused(key)).toBe('openai-api-key');
  });

  it('when a Basic credential hides a live token as its password, then it is found once decoded', () => {
    const token = checksummed('gh' + 'p');
    const header = `Basic ${Buffer.from(`octocat:${token}`).toString('base64')}`;
    expect(refused(header)).toBe('github-pat');
    expect(guard.scanFields([['authorization', header]])?.id).toBe('github-pat');
  });

  it(`when a string is shorter than the shortest pattern (${SHORTEST_MATCH}), then it is not scanned, and the shortest Slack token is`, () => {
    const shortest = 'xo' + 'xb-1-' + alnum(10);
    expect(shortest).toHaveLength(SHORTEST_MATCH);
    expect(refused(shortest)).toBe('slack-token');
    expect(refused(shortest.slice(0, -1))).toBeUndefined();
  });
});

describe('credential guard: API', () => {
  it('when the convenience functions are used, then they scan with the same patterns', () => {
    const key = SAMPLES['google-api-key']!();
    expect(findProductionCredential(`key=${key}`)?.id).toBe('google-api-key');
    expect(scanValues(['*/*', 'page=1&page_size=50', key])?.id).toBe('google-api-key');
    expect(scanValues(['*/*', 'page=1&page_size=50'])).toBeUndefined();
    const token = idpToken('https://sso.partner.com');
    expect(findProductionCredential(token)?.id).toBe('jwt-foreign-issuer');
    expect(findProductionCredential(token, { allowedIssuerHosts: ['sso.partner.com'] })).toBeUndefined();
  });

  it('when a field name is itself a secret (a query key with no value), then it is found', () => {
    expect(guard.scanFields([[SAMPLES['slack-token']!(), '']])?.id).toBe('slack-token');
    expect(guard.scanJson({ [SAMPLES['npm-token']!()]: true })?.id).toBe('npm-token');
  });

  it('when a JSON body nests deeper than the call stack allows, then the walk still finishes', () => {
    let deep: unknown = SAMPLES['shopify-token']!();
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(guard.scanJson(deep)?.id).toBe('shopify-token');
  });

  it('when an allowed issuer host is malformed, then the guard refuses to start', () => {
    expect(() => new CredentialGuard({ allowedIssuerHosts: ['https://'] })).toThrow(/allowedIssuerHosts/);
  });

  it('when one guard scans many strings in a row, then no state leaks from one scan to the next', () => {
    const foreign = idpToken('https://accounts.google.com');
    const results: (CredentialMatch | undefined)[] = [];
    for (let i = 0; i < 5; i++) results.push(guard.find(foreign), guard.find(`x ${foreign}`), guard.find('page=1&page_size=50'));
    expect(results.map((r) => r?.id)).toEqual(Array.from({ length: 5 }, () => ['jwt-foreign-issuer', 'jwt-foreign-issuer', undefined]).flat());
  });

  it('when a 1 MB body is built to make a pattern backtrack, then the scan stays linear (seconds, not minutes)', () => {
    // Not a benchmark (bench/credential-guard.mjs is): each scan takes tens of milliseconds on an idle machine, a
    // quadratic pattern would take minutes. The bound sits far from both, so a busy CI machine (one scan took
    // 1.0 s beside the chaos suite) cannot fail a guard that is linear, and a backtracking one still fails.
    const hostile = [
      'T3Blbk' + 'FJ ' + ('sk-' + 'a'.repeat(40)).repeat(25_000),
      ('eyJ' + 'a'.repeat(10) + '.' + 'b'.repeat(20) + '.').repeat(30_000),
      ('aws_secret_access_key=' + ' '.repeat(20)).repeat(25_000),
      ('gl' + 'pat-').repeat(200_000),
      ('-----BEGIN ' + 'A '.repeat(5)).repeat(50_000) + 'PRIVATE KEY',
      ('xo' + 'xb-1-').repeat(150_000),
      ('hooks.' + 'slack.com/services/TAAAAAAA/').repeat(30_000),
      'eyJ' + 'a'.repeat(10) + '.' + 'b'.repeat(1_000_000),
    ];
    for (const text of hostile) {
      const started = process.hrtime.bigint();
      guard.find(text);
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(15_000);
    }
  });
});
