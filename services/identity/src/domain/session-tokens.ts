import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt, errors, jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { unauthenticated, unavailable } from '@sandbox/runtime';
import { displayEmail } from './validation';

/** Claims of our own session JWTs; fixed values, documented in docs/identity.md. */
export const SESSION_ISSUER = 'urn:training-sandbox:identity';
export const SESSION_AUDIENCE = 'urn:training-sandbox:portal';

export interface ExternalIdp {
  issuer: string;
  audience: string;
  /** The issuer's JWKS (jose's createRemoteJWKSet in production). */
  keys: JWTVerifyGetKey;
}

export type VerifiedSessionToken =
  | { kind: 'local'; userId: string; sessionId: string; expiresAt: Date }
  | {
      kind: 'external';
      issuer: string;
      subject: string;
      email: string;
      expiresAt: Date;
      /** Its iat, when it has one. */
      issuedAt?: Date;
      tokenDigest: string;
      /** Every claim, for the operator rule (operators.ts): email_verified, groups. */
      claims: JWTPayload;
    };

// An external issuer signs with its private key; a shared-secret algorithm
// would let anyone holding the JWKS forge sessions, and "none" anyone at all.
const EXTERNAL_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const invalidSession = () => unauthenticated('invalid_session', 'The session token is not valid; sign in again.');
const expiredSession = () => unauthenticated('session_expired', 'The session has expired; sign in again.');

/** Issues our session JWTs (HS256) and verifies ours and a trusted issuer's. */
export class SessionTokens {
  constructor(
    private readonly key: Uint8Array,
    private readonly ttlSeconds: number,
    private readonly external: ExternalIdp | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  static newSessionId(): string {
    return randomBytes(16).toString('base64url');
  }

  async issue(userId: string, sessionId: string): Promise<{ token: string; expiresAt: Date }> {
    const issuedAt = Math.floor(this.now().getTime() / 1000);
    const exp = issuedAt + this.ttlSeconds;
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setSubject(userId)
      .setJti(sessionId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(exp)
      .sign(this.key);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  async verify(token: string): Promise<VerifiedSessionToken> {
    let issuer: string | undefined;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw invalidSession();
    }
    if (issuer === SESSION_ISSUER) return this.verifyLocal(token);
    if (this.external && issuer === this.external.issuer) return this.verifyExternal(token, this.external);
    throw invalidSession();
  }

  private async verifyLocal(token: string): Promise<VerifiedSessionToken> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: SESSION_ISSUER,
        audience: SESSION_AUDIENCE,
        algorithms: ['HS256'],
        requiredClaims: ['sub', 'jti', 'exp'],
        currentDate: this.now(),
      });
      return { kind: 'local', userId: payload.sub!, sessionId: payload.jti!, expiresAt: new Date(payload.exp! * 1000) };
    } catch (error) {
      throw error instanceof errors.JWTExpired ? expiredSession() : invalidSession();
    }
  }

  private async verifyExternal(token: string, idp: ExternalIdp): Promise<VerifiedSessionToken> {
    try {
      const { payload } = await jwtVerify(token, idp.keys, {
        issuer: idp.issuer,
        audience: idp.audience,
        algorithms: EXTERNAL_ALGORITHMS,
        requiredClaims: ['sub', 'exp'],
        currentDate: this.now(),
      });
      return {
        kind: 'external',
        issuer: idp.issuer,
        subject: payload.sub!,
        // Shown by /api/me: the same canonical form and character rules as our own accounts' emails, or nothing.
        email: displayEmail(payload.email),
        expiresAt: new Date(payload.exp! * 1000),
        issuedAt: payload.iat === undefined ? undefined : new Date(payload.iat * 1000),
        claims: payload,
        tokenDigest: createHash('sha256').update(token).digest('base64url'),
      };
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw expiredSession();
      if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout)) throw invalidSession();
      // The issuer's key set could not be fetched: their outage, not a bad token.
      throw unavailable('identity_provider_unavailable', 'The external identity provider could not be reached; try again shortly.');
    }
  }
}
