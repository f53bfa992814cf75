import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { createApp, rawRequest, registerUser, startPrefixProxy, startSystem, type CreatedApp, type PrefixProxy, type RunningSystem } from '@sandbox/testing';

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
});
