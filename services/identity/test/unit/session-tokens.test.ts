import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTVerifyGetKey } from 'jose';
import { refusalOf } from '@sandbox/testing';
import { SESSION_AUDIENCE, SESSION_ISSUER, SessionTokens } from '../../src/domain/session-tokens';

const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'sandbox-portal';

const refusalCode = async (promise: Promise<unknown>) => (await refusalOf(promise)).code;

describe('SessionTokens', () => {
  const key = randomBytes(32);
  let now = new Date('2030-01-01T00:00:00Z');
  const clock = () => now;
  let idpKeys: JWTVerifyGetKey;
  let idpPrivate: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    idpPrivate = pair.privateKey;
    idpKeys = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' }] });
  });
  beforeEach(() => {
    now = new Date('2030-01-01T00:00:00Z');
  });

  const tokens = () => new SessionTokens(key, 3600, { issuer: ISSUER, audience: AUDIENCE, keys: idpKeys }, clock);
  const external = (claims: Record<string, unknown>, options: { audience?: string; issuer?: string; exp?: number } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setSubject('user-42')
      .setExpirationTime(options.exp ?? Math.floor(now.getTime() / 1000) + 600)
      .sign(idpPrivate);

  it('when a session is issued, then it verifies to its user and session and expires after the TTL', async () => {
    const { token, expiresAt } = await tokens().issue('user-1', 'sid-1');
    expect(expiresAt.toISOString()).toBe('2030-01-01T01:00:00.000Z');
    await expect(tokens().verify(token)).resolves.toEqual({ kind: 'local', userId: 'user-1', sessionId: 'sid-1', expiresAt });
  });

  it('when the session has expired, then session_expired', async () => {
    const { token } = await tokens().issue('user-1', 'sid-1');
    now = new Date('2030-01-01T01:00:01Z');
    expect(await refusalCode(tokens().verify(token))).toBe('session_expired');
  });

  it('when the token was signed with another key, then invalid_session', async () => {
    const { token } = await new SessionTokens(randomBytes(32), 3600, undefined, clock).issue('user-1', 'sid-1');
    expect(await refusalCode(tokens().verify(token))).toBe('invalid_session');
  });

  it('when the token is garbage or unsigned (alg none), then invalid_session', async () => {
    expect(await refusalCode(tokens().verify('not-a-jwt'))).toBe('invalid_session');
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ iss: SESSION_ISSUER, aud: SESSION_AUDIENCE, sub: 'u', jti: 's', exp: 2e9 })).toString('base64url');
    expect(await refusalCode(tokens().verify(`${header}.${payload}.`))).toBe('invalid_session');
  });

  it('when a trusted issuer signed the token, then it verifies to that issuer and subject', async () => {
    const verified = await tokens().verify(await external({ email: 'Ada@Example.com' }));
    expect(verified).toMatchObject({ kind: 'external', issuer: ISSUER, subject: 'user-42', email: 'ada@example.com' });
  });

  it('when the trusted issuer token is for another audience, then invalid_session', async () => {
    expect(await refusalCode(tokens().verify(await external({}, { audience: 'another-app' })))).toBe('invalid_session');
  });

  it('when an issuer is not trusted, then invalid_session', async () => {
    expect(await refusalCode(tokens().verify(await external({}, { issuer: 'https://evil.example' })))).toBe('invalid_session');
    const noIdp = new SessionTokens(key, 3600, undefined, clock);
    expect(await refusalCode(noIdp.verify(await external({})))).toBe('invalid_session');
  });

  it('when a token claims the trusted issuer but is HS256-signed, then invalid_session', async () => {
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('user-42')
      .setExpirationTime('10m')
      .sign(randomBytes(32));
    expect(await refusalCode(tokens().verify(forged))).toBe('invalid_session');
  });

  it('when the trusted issuer token has expired, then session_expired', async () => {
    const token = await external({}, { exp: Math.floor(now.getTime() / 1000) - 10 });
    expect(await refusalCode(tokens().verify(token))).toBe('session_expired');
  });
});
