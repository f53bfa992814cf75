import { challenges } from '@sandbox/contracts';
import type { BackendClients } from '../../clients';
import { verdictOf, type AuthScheme } from '../scheme';

const HEADERS = ['x-app-id', 'x-timestamp', 'x-signature'] as const;
const HMAC_CHALLENGE = challenges.CHALLENGE.hmac;

/**
 * The HMAC style: x-app-id, x-timestamp and x-signature, the signature being
 * lowercase hex HMAC-SHA256 keyed with the API key over
 * "timestamp.METHOD.path", the path as the client sent it (behind a
 * prefix-stripping proxy, with the prefix). Never remembered: each signature
 * may be used once.
 */
export function hmacScheme(clients: BackendClients): AuthScheme {
  return {
    name: 'hmac',
    words: 'the headers x-app-id, x-timestamp and x-signature (HMAC-SHA256 of "timestamp.METHOD.path" keyed with the API key)',
    cacheMs: 0,
    detect(ctx) {
      return HEADERS.some((name) => ctx.headers[name] !== undefined) ? { value: 'headers', sure: true } : undefined;
    },
    async verify(_where, ctx) {
      const values = HEADERS.map((name) => ctx.headers[name]);
      const missing = HEADERS.filter((_name, i) => typeof values[i] !== 'string' || values[i] === '');
      if (missing.length)
        return { ok: false, reason: `All three headers are required: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing or empty.` };
      const [appId, timestamp, signature] = values as string[];
      ctx.logAs = { appId, style: 'hmac' };
      const { check } = await clients.oauth.verifyHmac(
        { appId, timestamp, signature, method: ctx.method, path: ctx.asSent(ctx.path), rawQuery: ctx.rawQuery },
        { requestId: ctx.requestId },
      );
      return verdictOf('hmac', check);
    },
    challenge: () => HMAC_CHALLENGE,
  };
}
