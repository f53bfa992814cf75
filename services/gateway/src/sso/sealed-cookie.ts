import { EncryptJWT, errors, jwtDecrypt, type JWTPayload } from 'jose';

/** Milliseconds since the epoch; a test passes its own. */
export type Clock = () => number;

/**
 * What a sealed value says when it is opened: its payload, or why it cannot
 * be trusted. `expired` is told apart because a learner who took too long
 * should hear that, not that something was tampered with.
 */
export type Opened<T> = { ok: true; value: T } | { ok: false; reason: 'expired' | 'invalid' };

/**
 * Seals small values for the short-lived single sign-on cookies, so that the
 * gateway keeps no state between the redirect to the provider and its return
 * (any replica can finish a sign-in another started): an encrypted JWT (JWE,
 * `dir` + A256GCM, jose's EncryptJWT), so the value can be neither read nor
 * changed by the browser, with `exp`, and with an audience naming its purpose,
 * so that one cookie cannot be passed off as another.
 */
export class CookieSealer {
  constructor(
    private readonly key: Uint8Array,
    private readonly clock: Clock = Date.now,
  ) {
    if (key.byteLength !== 32) throw new Error('the cookie key must be 32 bytes (A256GCM)');
  }

  async seal(purpose: string, value: Record<string, unknown>, ttlSeconds: number): Promise<string> {
    const now = Math.floor(this.clock() / 1000);
    return new EncryptJWT(value as JWTPayload)
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setAudience(purpose)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .encrypt(this.key);
  }

  async open<T>(purpose: string, sealed: string): Promise<Opened<T>> {
    try {
      const { payload } = await jwtDecrypt(sealed, this.key, {
        audience: purpose,
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
        requiredClaims: ['exp', 'iat'],
        currentDate: new Date(this.clock()),
        // The gateway's replicas share a clock within a second; a sealed value is never accepted early or late beyond it.
        clockTolerance: 1,
      });
      return { ok: true, value: payload as T };
    } catch (error) {
      return { ok: false, reason: error instanceof errors.JWTExpired ? 'expired' : 'invalid' };
    }
  }
}
