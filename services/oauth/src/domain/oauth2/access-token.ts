import { errors, jwtVerify, type JWTPayload } from 'jose';
import { epochSeconds } from '../clock';
import type { OAuth2Deps } from './deps';
import { signCompactJws } from './jws';
import { newId } from './secrets';

/** RFC 9068 2.1: the media type of JWT access tokens, in the typ header. */
export const ACCESS_TOKEN_TYP = 'at+jwt';

/** The claims of an access token (RFC 9068 2.2), as issued and as read back after verification. */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  /** The grant (code redemption and its refresh-token family) it came from; absent for client credentials. */
  grant_id?: string;
}

/**
 * The resource the tokens are for (RFC 9068 aud): the sandbox's protected
 * endpoints, which all live under /playground of the same public base URL
 * (/playground/auth/oauth2, /playground/data/...).
 */
export const audienceOf = (issuer: string) => `${issuer.replace(/\/+$/, '')}/playground`;

export interface IssuedAccessToken {
  token: string;
  claims: AccessTokenClaims;
}

/**
 * Signs an RFC 9068 access token with the access-token key
 * (OAUTH_ACCESS_TOKEN_ALG: ES256 by default; docs/decisions.md has what each
 * costs). The header names the key by kid, as the JWKS does.
 */
export async function issueAccessToken(
  deps: Pick<OAuth2Deps, 'clock' | 'config' | 'signingKey'>,
  fields: { issuer: string; sub: string; clientId: string; scope: readonly string[]; grantId?: string },
): Promise<IssuedAccessToken> {
  const iat = epochSeconds(deps.clock);
  const claims: AccessTokenClaims = {
    iss: fields.issuer,
    sub: fields.sub,
    aud: audienceOf(fields.issuer),
    client_id: fields.clientId,
    scope: fields.scope.join(' '),
    jti: newId(),
    iat,
    exp: iat + deps.config.accessTokenTtlSeconds,
    ...(fields.grantId ? { grant_id: fields.grantId } : {}),
  };
  const token = signCompactJws(deps.signingKey.accessTokens.signing, ACCESS_TOKEN_TYP, claims);
  return { token, claims };
}

export type SignatureCheck = { ok: true; claims: AccessTokenClaims } | { ok: false; reason: string; expired?: AccessTokenClaims };

const NOT_OURS = 'The token is not an access token issued by this sandbox';

/**
 * Whether `token` is an access token this sandbox signed and, at the injected
 * clock's now, unexpired: typ at+jwt, every RFC 9068 claim present, and signed
 * by one of the keys of the JWKS with that key's own algorithm. The key is
 * chosen by the header's kid from that fixed list and its alg must be the
 * key's: so `none`, HS256 (a public key used as an HMAC secret) and a key
 * the token brings along are refused before any signature is checked, and a
 * replica signing ES256 still accepts the RS256 tokens of one not yet upgraded.
 * Revocations and the app's status are the caller's next steps.
 */
export async function verifySignedAccessToken(deps: Pick<OAuth2Deps, 'clock' | 'signingKey'>, token: string): Promise<SignatureCheck> {
  if (token.split('.').length !== 3) return { ok: false, reason: `${NOT_OURS}: an access token here is a JWT (three base64url parts separated by dots).` };
  const keys = deps.signingKey.accessTokens.verifying;
  const algorithms = [...new Set([...keys.values()].map((key) => key.alg))];
  try {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = typeof header.kid === 'string' ? keys.get(header.kid) : undefined;
        if (!key || key.alg !== header.alg) throw new errors.JWKSNoMatchingKey();
        return key.publicKey;
      },
      {
        algorithms,
        typ: ACCESS_TOKEN_TYP,
        currentDate: new Date(deps.clock()),
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id', 'scope'],
      },
    );
    const claims = asClaims(payload);
    return claims ? { ok: true, claims } : { ok: false, reason: `${NOT_OURS}: its claims are not those of one.` };
  } catch (error) {
    if (error instanceof errors.JWTExpired) {
      const exp = Number(error.payload.exp);
      return {
        ok: false,
        reason: `The access token expired at ${new Date(exp * 1000).toISOString()}; get a new one from the token endpoint.`,
        expired: asClaims(error.payload),
      };
    }
    if (error instanceof errors.JOSEAlgNotAllowed)
      return { ok: false, reason: `${NOT_OURS}: access tokens here are signed with ${algorithms.join(' or ')} and no other algorithm.` };
    if (error instanceof errors.JWKSNoMatchingKey) {
      return {
        ok: false,
        reason: `${NOT_OURS}: its header's kid and alg do not name one of the keys published at /.well-known/jwks.json.`,
      };
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      return {
        ok: false,
        reason: `${NOT_OURS}: its signature does not verify with the key published at /.well-known/jwks.json (altered, or signed elsewhere).`,
      };
    }
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'typ') {
      return {
        ok: false,
        reason: 'The token is a JWT but not an OAuth 2.0 access token (its typ header is not at+jwt, RFC 9068); get one from the token endpoint.',
      };
    }
    if (error instanceof errors.JWTClaimValidationFailed)
      return { ok: false, reason: `${NOT_OURS}: its ${error.claim} claim is ${error.reason === 'missing' ? 'missing' : 'not valid'}.` };
    if (error instanceof errors.JOSEError) return { ok: false, reason: `${NOT_OURS}: it is not a well-formed signed JWT.` };
    throw error;
  }
}

function asClaims(payload: JWTPayload): AccessTokenClaims | undefined {
  const { iss, sub, aud, client_id, scope, jti, iat, exp, grant_id } = payload as Record<string, unknown>;
  const strings = [iss, sub, aud, client_id, scope, jti].every((v) => typeof v === 'string');
  if (!strings || typeof iat !== 'number' || typeof exp !== 'number' || (grant_id !== undefined && typeof grant_id !== 'string')) return undefined;
  return { iss, sub, aud, client_id, scope, jti, iat, exp, ...(grant_id ? { grant_id } : {}) } as AccessTokenClaims;
}
