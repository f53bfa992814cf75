import { randomBytes, randomUUID } from 'node:crypto';
import type { playground } from '@sandbox/contracts';
import { APP, everyService, httpAnswer, type Arrangement } from './fake-clients';
import { startGateway, type Answer, type Harness } from './harness';

// Synthetic live-secret shapes, built at run time so no literal one sits in the repository.
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const upper = (n: number) => Array.from(randomBytes(n), (b) => UPPER[b % UPPER.length]).join('');
const awsKey = () => ['AK', 'IA'].join('') + upper(16);
const stripeKey = () => 'sk' + '_live_' + randomBytes(18).toString('base64url').replace(/[-_]/g, 'x');
const slackToken = () => ['xo', 'xb-'].join('') + '1234567890-' + randomBytes(18).toString('hex');
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const idpJwt = () =>
  `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iss: `https://login.microsoftonline.com/${randomUUID()}/v2.0`, sub: 'x' })}.${randomBytes(64).toString('base64url')}`;

const expectRefused = (answer: Answer, kind: RegExp) => {
  expect({ status: answer.status, code: answer.json?.error?.code }).toEqual({ status: 400, code: 'production_credential_refused' });
  expect(answer.json.error.message).toMatch(kind);
  expect(answer.json.error.message).toMatch(/rotate/);
};

/** A fake upload stream: takes the messages, and answers with how many chunks and bytes arrived once ended. */
function uploadStream(): NonNullable<Arrangement['playground']>['clientStream'] {
  return (() => {
    let bytes = 0;
    let end!: () => void;
    let cancel!: (error: Error) => void;
    const response = new Promise<{ http: playground.HttpResponse }>((resolve, reject) => {
      end = () => resolve(httpAnswer(200, { bytes }));
      cancel = reject;
    });
    response.catch(() => undefined);
    return {
      write: (message: playground.UploadRequest) => {
        if (message.part?.$case === 'chunk') bytes += message.part.value.length;
        return true;
      },
      drained: async () => undefined,
      end: () => end(),
      cancel: () => cancel(new Error('cancelled')),
      response,
    };
  }) as never;
}

/** The guard at the edge (services/gateway guard/): every way a request can carry a live secret of another service is refused before anything is forwarded. */
describe('the production-credential guard', () => {
  let h: Harness;
  beforeEach(async () => {
    const services = everyService();
    h = await startGateway({ ...services, playground: { ...services.playground, clientStream: uploadStream() } });
  });
  afterEach(async () => h.stop());

  it('when a header holds an AWS access key, then 400 naming the kind, before the credential is checked', async () => {
    expectRefused(await h.get('/playground/auth/api-key', { 'x-api-key': APP.apiKey, 'X-Debug': awsKey() }), /AWS access key/);
    expect(h.calls).toEqual([]);
  });

  it('when the query holds a Stripe key, then 400 naming it, and the data service is never asked', async () => {
    expectRefused(await h.get(`/playground/data/hr/employees?api_key=${APP.apiKey}&note=${stripeKey()}`), /Stripe/);
    expect(h.calls).toEqual([]);
  });

  it('when the path holds one, then 400 too', async () => {
    expectRefused(await h.get(`/playground/data/${awsKey()}/x`), /AWS access key/);
  });

  it('when a JSON body holds a JWT of another identity provider, then 400 naming the issuer', async () => {
    expectRefused(await h.post('/playground/auth/jwt/decode', { token: idpJwt() }), /JWT issued by login\.microsoftonline\.com/);
  });

  it('when the token endpoint’s form holds one, then the refusal speaks RFC 6749: invalid_request, explained in error_description', async () => {
    const answer = await h.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${awsKey()}`,
    });
    expect({ status: answer.status, error: answer.json.error }).toEqual({ status: 400, error: 'invalid_request' });
    expect(answer.json.error_description).toMatch(/AWS access key.*rotate/);
  });

  it('when a registration’s password holds one, then the body is never forwarded', async () => {
    expectRefused(await h.post('/api/auth/register', { email: 'a@example.org', password: `pw ${awsKey()}` }), /AWS access key/);
    expect(h.calls).toEqual([]);
  });

  describe.each(['/playground/echo', '/playground/response', '/playground/redirect?n=1&status=307'])('on %s, which forwards the body as sent', (path) => {
    const post = (type: string, body: string) => h.inject({ method: 'POST', url: path, headers: { 'Content-Type': type }, body });

    it('when a JSON, a form or a text body holds a live secret, then 400 naming the kind, and nothing is forwarded', async () => {
      expectRefused(await post('application/json', JSON.stringify({ note: 'mine', key: awsKey() })), /AWS access key/);
      expectRefused(await post('application/x-www-form-urlencoded', `note=mine&key=${encodeURIComponent(stripeKey())}`), /Stripe/);
      expectRefused(await post('text/plain', `my token is ${slackToken()} ok`), /Slack token/);
      expect(h.calls).toEqual([]);
    });

    it('when the secret is hidden by JSON escapes or percent-encoding, then it is found in what the body decodes to', async () => {
      const key = awsKey();
      const escaped = JSON.stringify({ key }).replace(key, `\\u00${key.charCodeAt(0).toString(16)}${key.slice(1)}`);
      expectRefused(await post('application/json', escaped), /AWS access key/);
      expectRefused(
        await post('application/x-www-form-urlencoded', `key=${[...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`),
        /AWS access key/,
      );
    });

    it('when a field is named as an AWS secret access key, then its value is refused, in JSON and in a form', async () => {
      const secret = randomBytes(30).toString('base64');
      expectRefused(await post('application/json', JSON.stringify({ AWS_SECRET_ACCESS_KEY: secret })), /AWS secret access key/);
      expectRefused(await post('application/x-www-form-urlencoded', `aws_secret_access_key=${encodeURIComponent(secret)}`), /AWS secret access key/);
    });
  });

  it("when a body holds the sandbox's own API key, then it is forwarded as before", async () => {
    const answer = await h.post('/playground/echo', { note: 'mine', apiKey: APP.apiKey, appId: APP.appId });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.json.body)).toEqual({ note: 'mine', apiKey: APP.apiKey, appId: APP.appId });
  });

  it("when a learner's made-up JWT is decoded, then it passes", async () => {
    const madeUp = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: 'my-test-issuer', sub: 'me' })}.${randomBytes(32).toString('base64url')}`;
    const answer = await h.post('/playground/auth/jwt/decode', { token: madeUp });
    expect({ status: answer.status, iss: answer.json.payload.iss }).toEqual({ status: 200, iss: 'my-test-issuer' });
  });

  describe('an upload', () => {
    const boundary = 'b0123456789';
    const part = (disposition: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n${value}\r\n`;
    const upload = (parts: string) =>
      h.inject({
        method: 'POST',
        url: '/playground/upload',
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body: `${parts}--${boundary}--\r\n`,
      });

    it('when a file holds a secret, then its contents are not scanned: streamed to the playground', async () => {
      const answer = await upload(part('name="doc"; filename="notes.txt"', `key ${awsKey()}`));
      expect(answer.status).toBe(200);
      expect(answer.json.bytes).toBeGreaterThan(0);
    });

    it('when a plain field holds a secret, then the upload ends with the guard’s 400', async () => {
      expectRefused(await upload(part('name="note"', `key ${awsKey()}`)), /AWS access key/);
    });
  });
});
