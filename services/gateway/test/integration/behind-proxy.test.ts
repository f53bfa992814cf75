import { execFile } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { promisify } from 'node:util';
import OAuth from 'oauth-1.0a';
import {
  createApp,
  pythonClient,
  rawRequest,
  registerUser,
  startPrefixProxy,
  startSystem,
  type CreatedApp,
  type PrefixProxy,
  type RunningSystem,
} from '@sandbox/testing';
import { authSnippet, type Language } from '../../portal/src/snippets';

jest.setTimeout(60_000);

const run = promisify(execFile);

/*
 * The sandbox behind an ingress that serves it under /sandbox and strips the
 * prefix (X-Forwarded-Prefix, TRUST_PROXY=true): what a learner's client
 * signs must match what it sent, not what the gateway received.
 */
describe('the sandbox behind a prefix-stripping proxy', () => {
  let system: RunningSystem;
  let proxy: PrefixProxy;
  let app: CreatedApp;
  beforeAll(async () => {
    system = await startSystem({ TRUST_PROXY: 'true' });
    proxy = await startPrefixProxy(system.baseUrl);
    app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
  });
  afterAll(async () => {
    await proxy?.close();
    await system?.stop();
  });

  it('when curl --digest signs /sandbox/…, then the gateway checks the uri against the path as the client sent it', async () => {
    const { stdout } = await run('curl', ['-s', '--digest', '-u', `${app.appId}:${app.apiKey}`, `${proxy.url}/sandbox/playground/auth/digest`]);
    expect(JSON.parse(stdout)).toMatchObject({ authenticated: true, style: 'digest' });
  });

  it('when curl --digest goes straight to the gateway, then it still gets in (no prefix, nothing added)', async () => {
    const { stdout } = await run('curl', ['-s', '--digest', '-u', `${app.appId}:${app.apiKey}`, `${system.baseUrl}/playground/auth/digest`]);
    expect(JSON.parse(stdout)).toMatchObject({ authenticated: true, style: 'digest' });
  });

  it('when a Digest answer signs the path without the prefix behind the proxy, then it is refused, naming the path the client sent', async () => {
    const url = `${proxy.url}/sandbox/playground/auth/digest`;
    const challenge = String((await rawRequest(url)).headers['www-authenticate']);
    const param = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(challenge)![1]!;
    const [realm, nonce] = [param('realm'), param('nonce')];
    const H = (text: string) => createHash('sha256').update(text).digest('hex');
    const uri = '/playground/auth/digest'; // what the gateway receives, not what the client sent
    const cnonce = 'c0ffee';
    const response = H(`${H(`${app.appId}:${realm}:${app.apiKey}`)}:${nonce}:00000001:${cnonce}:auth:${H(`GET:${uri}`)}`);
    const authorization = `Digest username="${app.appId}", realm="${realm}", nonce="${nonce}", uri="${uri}", algorithm=SHA-256, qop=auth, nc=00000001, cnonce="${cnonce}", response="${response}", opaque="${param('opaque')}"`;
    const refused = await rawRequest(url, { headers: { Authorization: authorization } });
    expect(refused.status).toBe(401);
    expect(refused.json().error.message).toContain('/sandbox/playground/auth/digest');
  });

  /** HMAC headers as docs/auth-playground.md tells a learner to make them: hex HMAC-SHA256 of "timestamp.METHOD.path", keyed with the API key. */
  const hmacHeaders = (method: string, path: string, timestamp: number) => ({
    'x-app-id': app.appId,
    'x-timestamp': String(timestamp),
    'x-signature': createHmac('sha256', app.apiKey).update(`${timestamp}.${method}.${path}`).digest('hex'),
  });

  it('when an HMAC request signs /sandbox/… as sent, then the gateway checks it against the path as the client sent it', async () => {
    const path = '/sandbox/playground/auth/hmac';
    const res = await rawRequest(`${proxy.url}${path}`, { headers: hmacHeaders('GET', path, Math.floor(Date.now() / 1000)) });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ authenticated: true, style: 'hmac', app: { appId: app.appId } });
  });

  it('when an HMAC request signs the path without the prefix behind the proxy, then it is refused, showing the path the client sent', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await rawRequest(`${proxy.url}/sandbox/playground/auth/hmac`, { headers: hmacHeaders('GET', '/playground/auth/hmac', timestamp) });
    expect(res.status).toBe(401);
    expect(res.json().error.message).toContain(`The server signed "${timestamp}.GET./sandbox/playground/auth/hmac"`);
  });

  it.each([
    ['curl', 'bash', (code: string) => ['-c', code]],
    ['python', '', (code: string) => ['-c', code]],
    ['javascript', process.execPath, (code: string) => ['--input-type=module', '-e', code]],
  ] as const)("when the portal's %s HMAC snippet runs against <proxy>/sandbox, then it signs the path it sends and gets in", async (language, tool, args) => {
    const code = authSnippet('hmac', language as Language, {
      baseUrl: `${proxy.url}/sandbox`,
      app: { ...app, scopes: [], redirectUris: [] },
      secrets: { apiKey: app.apiKey },
    });
    // Each signature is accepted once: each language signs in a second of its own.
    await new Promise((resolve) => setTimeout(resolve, 1_020 - (Date.now() % 1_000)));
    const { stdout } = await run(tool || pythonClient(), args(code), { timeout: 60_000, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(stdout).toMatch(/"authenticated":\s?true/);
  });

  describe('OAuth 1.0a signed by the oauth-1.0a client against the public URL', () => {
    const signer = () =>
      new OAuth({
        consumer: { key: app.appId, secret: app.apiKey },
        signature_method: 'HMAC-SHA1',
        hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
      });
    const at = (path: string) => `${proxy.url}/sandbox${path}`;
    const signedPost = (path: string, data: Record<string, string>, token?: OAuth.Token) =>
      rawRequest(at(path), {
        method: 'POST',
        headers: {
          Authorization: signer().toHeader(signer().authorize({ url: at(path), method: 'POST', data }, token)).Authorization,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: '',
      });
    /** The three legs, each signed over the URL the client addressed (/sandbox/…). */
    const accessToken = async (): Promise<OAuth.Token> => {
      const temporary = await signedPost('/oauth1/request_token', { oauth_callback: 'oob' });
      expect(temporary.status).toBe(200);
      const { oauth_token: key, oauth_token_secret: secret } = temporary.json();
      const { oauth_verifier } = (await rawRequest(`${at('/oauth1/authorize')}?oauth_token=${encodeURIComponent(key)}`)).json();
      const access = await signedPost('/oauth1/access_token', { oauth_verifier }, { key, secret });
      expect(access.status).toBe(200);
      return { key: access.json().oauth_token, secret: access.json().oauth_token_secret };
    };

    it('when the protected call is signed in the Authorization header, then it gets in', async () => {
      const token = await accessToken();
      const url = at('/playground/auth/oauth1');
      const res = await rawRequest(url, { headers: { Authorization: signer().toHeader(signer().authorize({ url, method: 'GET' }, token)).Authorization } });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ authenticated: true, style: 'oauth1', app: { appId: app.appId } });
    });

    it('when the protected call is signed in the query string, then it gets in', async () => {
      const token = await accessToken();
      const url = at('/playground/auth/oauth1');
      const params = signer().authorize({ url, method: 'GET' }, token) as unknown as Record<string, string>;
      const res = await rawRequest(`${url}?${new URLSearchParams(params)}`);
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ authenticated: true, style: 'oauth1', app: { appId: app.appId } });
    });
  });
});
