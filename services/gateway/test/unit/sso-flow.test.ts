import { randomBytes } from 'node:crypto';
import { AppError, createLogger, GrpcStatus } from '@sandbox/runtime';
import { CookieSealer } from '../../src/sso/sealed-cookie';
import { SsoFlow, type RelyingParty } from '../../src/sso/sso-flow';
import type { SsoSettings } from '../../src/sso/sso-config';

/*
 * The single sign-on flow's own decisions, with the provider and identity
 * stood in for (the integration test, sso.test.ts, has the real ones): where
 * the cookies go behind a proxy prefix and over https, and what each refusal
 * of identity becomes.
 */
const BASE = 'https://sandbox.example.org/sandbox';
const settings = { providerName: 'Campus login' } as SsoSettings;
const relyingParty: RelyingParty = {
  authorizationRequest: async (redirectUri) => ({
    url: new URL(`https://login.campus.example/authorize?redirect_uri=${encodeURIComponent(redirectUri)}`),
    codeVerifier: 'v',
    state: 'st',
    nonce: 'n',
  }),
  grant: async () => ({ idToken: 'header.payload.signature', expiresAt: new Date(Date.UTC(2030, 0, 1)) }),
};
const flowWith = (verifySession: (token: string) => Promise<void>, party = relyingParty) =>
  new SsoFlow({
    settings,
    relyingParty: party,
    sealer: new CookieSealer(new Uint8Array(randomBytes(32))),
    verifySession,
    logger: createLogger('gateway', 'silent'),
  });
const call = { requestId: 'r1' };
const cookieValue = (line: string) => line.slice(line.indexOf('=') + 1, line.indexOf(';'));

async function throughCallback(flow: SsoFlow) {
  const started = await flow.start(BASE, 'r0');
  const cookie = `sandbox_sso_flow=${cookieValue(started.cookies[0]!)}`;
  return { started, back: await flow.callback(BASE, { cookie }, 'code=c&state=st', call) };
}

describe('the single sign-on flow behind a proxy prefix, over https', () => {
  it('when a sign-in starts, then the redirect URI and the cookie path carry the prefix, and the cookie is Secure', async () => {
    const { started } = await throughCallback(flowWith(async () => undefined));
    expect(new URL(started.location).searchParams.get('redirect_uri')).toBe(`${BASE}/api/auth/sso/callback`);
    expect(started.cookies[0]).toMatch(/^sandbox_sso_flow=[\w.-]+; Path=\/sandbox\/api\/auth\/sso\/callback; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('when it comes back accepted, then the session waits in a Secure, Strict cookie on the prefixed session path, and the page picks it up once', async () => {
    const flow = flowWith(async () => undefined);
    const { back } = await throughCallback(flow);
    expect(back.location).toBe('../../../portal/#/apps?sso=signed_in');
    expect(back.cookies[0]).toBe('sandbox_sso_flow=; Path=/sandbox/api/auth/sso/callback; Max-Age=0; HttpOnly; SameSite=Lax; Secure');
    expect(back.cookies[1]).toMatch(/^sandbox_sso_handoff=[\w.-]+; Path=\/sandbox\/api\/auth\/sso\/session; Max-Age=60; HttpOnly; SameSite=Strict; Secure$/);
    const picked = await flow.pickUp(BASE, { cookie: `sandbox_sso_handoff=${cookieValue(back.cookies[1]!)}`, 'sec-fetch-site': 'same-origin' });
    expect(picked).toEqual({
      token: 'header.payload.signature',
      expiresAt: '2030-01-01T00:00:00.000Z',
      cookies: ['sandbox_sso_handoff=; Path=/sandbox/api/auth/sso/session; Max-Age=0; HttpOnly; SameSite=Strict; Secure'],
    });
  });

  it.each([
    ['refuses the token', new AppError(GrpcStatus.UNAUTHENTICATED, 'invalid_session', 'no'), 'sso_error=token_refused'],
    [
      'refuses the account',
      new AppError(GrpcStatus.PERMISSION_DENIED, 'user_disabled', 'This account is disabled.'),
      'sso_error=account_refused&sso_error_description=This+account+is+disabled.',
    ],
    ["cannot reach the provider's keys", new AppError(GrpcStatus.UNAVAILABLE, 'identity_provider_unavailable', 'down'), 'sso_error=provider_unavailable'],
    ['is itself unavailable', new AppError(GrpcStatus.UNAVAILABLE, 'unavailable', 'down'), 'sso_error=unavailable'],
  ])('when identity %s, then back to sign-in with its code, and no session is handed over', async (_what, error, query) => {
    const { back } = await throughCallback(
      flowWith(async () => {
        throw error;
      }),
    );
    expect(back.location).toBe(`../../../portal/#/sign-in?${query}`);
    expect(back.cookies).toHaveLength(1);
  });

  it('when the ID token is too large for a cookie, then token_too_large rather than a cookie the browser would drop', async () => {
    const large: RelyingParty = { ...relyingParty, grant: async () => ({ idToken: `h.${'p'.repeat(4000)}.s`, expiresAt: new Date() }) };
    const { back } = await throughCallback(flowWith(async () => undefined, large));
    expect(back.location).toBe('../../../portal/#/sign-in?sso_error=token_too_large');
  });

  it('when something unexpected fails at the start, then back to sign-in with internal (the log has the rest), and no cookie', async () => {
    const broken: RelyingParty = { ...relyingParty, authorizationRequest: () => Promise.reject(new RangeError('unexpected')) };
    const started = await flowWith(async () => undefined, broken).start(BASE, 'r0');
    expect(started).toEqual({ location: '../../../portal/#/sign-in?sso_error=internal', cookies: [] });
  });
});
