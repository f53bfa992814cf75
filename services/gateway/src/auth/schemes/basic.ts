import { challenges } from '@sandbox/contracts';
import type { BackendClients } from '../../clients';
import { authorizationValue, verdictOf, type AuthScheme } from '../scheme';

const BASIC_CHALLENGE = challenges.CHALLENGE.basic;

/** RFC 7617: base64 of "user:password", split at the first colon so a password may contain colons. */
export function decodeBasic(value: string): { user: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+=*$/.test(value)) return undefined;
  const text = Buffer.from(value, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** `Authorization: Basic` of App ID and App Secret. */
export function basicScheme(clients: BackendClients, cacheMs: number): AuthScheme {
  return {
    name: 'basic',
    words: 'Authorization: Basic with App ID and App Secret',
    cacheMs,
    detect(ctx) {
      const value = authorizationValue(ctx, 'basic');
      return value === undefined ? undefined : { value, sure: true };
    },
    async verify(value, ctx) {
      const decoded = decodeBasic(value);
      if (!decoded) return { ok: false, reason: 'The Basic credential is not base64 of "App ID:App Secret".' };
      ctx.logAs = { appId: decoded.user, style: 'basic' };
      return verdictOf('basic', (await clients.identity.verifyBasic({ appId: decoded.user, appSecret: decoded.password }, { requestId: ctx.requestId })).check);
    },
    challenge: () => BASIC_CHALLENGE,
  };
}
