import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';
import { createApp, rawRequest, registerUser, requireStoreUrls, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

/**
 * OAuth 1.0a through the gateway, signed by a third-party signer (oauth-1.0a
 * from npm): what the gateway hands the oauth service (the URL the client
 * addressed, query and form parameters, the header) must be what the client
 * signed, and a refusal must teach.
 */
describe('OAuth 1.0a through the gateway', () => {
  let system: RunningSystem;
  let app: CreatedApp;
  const signer = () =>
    new OAuth({
      consumer: { key: app.appId, secret: app.apiKey },
      signature_method: 'HMAC-SHA1',
      hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
    });
  const signedPost = (path: string, data: Record<string, string>, token?: OAuth.Token, headers: Record<string, string> = {}) => {
    const url = `${system.baseUrl}${path}`;
    const authorization = signer().toHeader(signer().authorize({ url, method: 'POST', data }, token)).Authorization;
    // The signer puts oauth_ parameters (oauth_callback, oauth_verifier) in the header; each may appear in one place only.
    const form = Object.entries(data).filter(([name]) => !name.startsWith('oauth_'));
    return rawRequest(url, {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  };
  const threeLegs = async () => {
    const temporary = (await signedPost('/oauth1/request_token', { oauth_callback: 'oob' })).json();
    const { oauth_verifier: verifier } = (await rawRequest(`${system.baseUrl}/oauth1/authorize?oauth_token=${temporary.oauth_token}`)).json();
    const access = await signedPost('/oauth1/access_token', { oauth_verifier: verifier }, { key: temporary.oauth_token, secret: temporary.oauth_token_secret });
    expect(access.status).toBe(200);
    return access.json() as { oauth_token: string; oauth_token_secret: string };
  };
  const signedGet = (path: string, token: OAuth.Token) => {
    const url = `${system.baseUrl}${path}`;
    return rawRequest(url, { headers: { Authorization: signer().toHeader(signer().authorize({ url, method: 'GET' }, token)).Authorization } });
  };

  beforeAll(async () => {
    system = await startSystem({ REDIS_URL: requireStoreUrls().redisUrl });
    app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
  });
  afterAll(async () => system?.stop());

  it('the three legs answer JSON objects, or the RFC form encoding when asked; the access token then signs a protected call', async () => {
    const asJson = await signedPost('/oauth1/request_token', { oauth_callback: 'https://client.example/cb' });
    expect(asJson.headers['content-type']).toMatch(/^application\/json/);
    expect(asJson.json()).toEqual({ oauth_token: expect.any(String), oauth_token_secret: expect.any(String), oauth_callback_confirmed: true });
    const approved = (await rawRequest(`${system.baseUrl}/oauth1/authorize?oauth_token=${asJson.json().oauth_token}`)).json();
    expect(approved.callback).toMatch(/^https:\/\/client\.example\/cb\?oauth_token=.+&oauth_verifier=.+$/);

    const asForm = await signedPost('/oauth1/request_token', { oauth_callback: 'oob' }, undefined, { Accept: 'application/x-www-form-urlencoded' });
    expect(asForm.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(asForm.body).get('oauth_callback_confirmed')).toBe('true');

    const access = await threeLegs();
    const protectedCall = await signedGet('/playground/auth/oauth1', { key: access.oauth_token, secret: access.oauth_token_secret });
    expect(protectedCall.json()).toMatchObject({ authenticated: true, style: 'oauth1', app: { appId: app.appId } });
  });

  it('a bad signature is 401 signature_invalid with the base string the server built, never a secret', async () => {
    const url = `${system.baseUrl}/oauth1/request_token`;
    const wrong = new OAuth({
      consumer: { key: app.appId, secret: 'ak_not_the_key' },
      signature_method: 'HMAC-SHA1',
      hash_function: (b, k) => createHmac('sha1', k).update(b).digest('base64'),
    });
    const res = await rawRequest(url, {
      method: 'POST',
      headers: { Authorization: wrong.toHeader(wrong.authorize({ url, method: 'POST', data: { oauth_callback: 'oob' } })).Authorization },
    });
    expect(res.status).toBe(401);
    expect(res.json().error.code).toBe('signature_invalid');
    expect(res.json().error.message).toContain(`POST&${encodeURIComponent(url)}&`);
    expect(res.json().error.message).not.toContain(app.apiKey);
    expect(res.headers['www-authenticate']).toBe('OAuth realm="training-sandbox", oauth_problem="signature_invalid"');
  });

  it('before a successful leg 3, the protected call is refused saying to finish the legs; a replayed call is nonce_used', async () => {
    const temporary = (await signedPost('/oauth1/request_token', { oauth_callback: 'oob' })).json();
    const early = await signedGet('/playground/auth/oauth1', { key: temporary.oauth_token, secret: temporary.oauth_token_secret });
    expect(early.status).toBe(401);
    expect(early.json().error.message).toMatch(/three legs/);

    const access = await threeLegs();
    const url = `${system.baseUrl}/playground/auth/oauth1`;
    const authorization = signer().toHeader(
      signer().authorize({ url, method: 'GET' }, { key: access.oauth_token, secret: access.oauth_token_secret }),
    ).Authorization;
    expect((await rawRequest(url, { headers: { Authorization: authorization } })).status).toBe(200);
    const replay = await rawRequest(url, { headers: { Authorization: authorization } });
    expect(replay.status).toBe(401);
    expect(replay.json().error.code).toBe('nonce_used');
  });

  it('a missing protocol parameter is 400 parameter_absent, naming it', async () => {
    const res = await rawRequest(`${system.baseUrl}/oauth1/request_token`, {
      method: 'POST',
      headers: { Authorization: `OAuth oauth_consumer_key="${app.appId}"` },
    });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('parameter_absent');
    expect(res.json().error.message).toContain('oauth_signature');
  });
});
