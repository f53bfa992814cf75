import type { BackendClients } from '../../clients';
import { authorizationValue, verdictOf, type AuthScheme } from '../scheme';
import { APP_BEARER_PREFIX, bearerChallenge } from './app-bearer';

/** The JOSE header of a compact JWT, or undefined when the value is not one. */
export function jwtHeader(token: string): { typ?: unknown; alg?: unknown } | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.indexOf('.', dot + 1) < 0) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, dot), 'base64url').toString('utf8'));
    return header && typeof header === 'object' ? (header as { typ?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/** The `sub` claim, unverified: which app the token names, for its request log only. */
function jwtSubject(token: string): string | undefined {
  try {
    const sub: unknown = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 9068 access tokens say so in their header; the playground's JWTs say "JWT". */
export const isAccessTokenJwt = (token: string) => jwtHeader(token)?.typ === 'at+jwt';

/**
 * A JWT from POST /playground/auth/jwt/issue (`Authorization: Bearer …`),
 * HS256 (keyed with the app's API key) or RS256 (the sandbox's key), checked
 * by the oauth service: signature, exp, aud, and the app still active.
 */
export function jwtScheme(clients: BackendClients, cacheMs: number): AuthScheme {
  return {
    name: 'jwt',
    words: 'Authorization: Bearer with a JWT from POST /playground/auth/jwt/issue',
    cacheMs,
    detect(ctx) {
      const value = authorizationValue(ctx, 'bearer');
      if (value === undefined || value.startsWith(APP_BEARER_PREFIX)) return undefined;
      // An RFC 9068 access token is the oauth2 scheme's; anything else that is a JWT is surely ours.
      const header = jwtHeader(value);
      const ours = header !== undefined && header.typ !== 'at+jwt';
      // Which of the playground's algorithms, for the exercises (docs/exercises.md): noted here, since a verdict may come from the cache.
      if (ours && (header.alg === 'HS256' || header.alg === 'RS256')) ctx.fact('jwt_alg', header.alg);
      return { value, sure: ours };
    },
    async verify(token, ctx) {
      const sub = jwtSubject(token);
      if (sub) ctx.logAs = { appId: sub, style: 'jwt' };
      return verdictOf('jwt', (await clients.oauth.verifyJwt({ token }, { requestId: ctx.requestId })).check);
    },
    challenge: bearerChallenge,
  };
}
