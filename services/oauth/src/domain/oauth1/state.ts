import { createHash } from 'node:crypto';
import type { EphemeralStore } from '../../stores/ephemeral-store';
import type { Clock } from '../clock';
import { putRecord, readRecord } from '../stored-records';

/**
 * Everything OAuth 1.0a keeps, and for how long. Token secrets, verifiers and
 * access tokens are not here: they are derived from the sandbox's key
 * (credentials.ts), so nothing in the store lets anyone sign a request.
 *
 * | key (after the store's own prefix)          | value               | lives                                         | bound                                                                   |
 * |---------------------------------------------|---------------------|-----------------------------------------------|-------------------------------------------------------------------------|
 * | oauth1:rt:<sha256 of request token>         | RequestTokenRecord  | 10 min + LATE_GRACE (11 min)                  | one per leg 1 signed with a live app's API key, in the last 11 minutes  |
 * | oauth1:rt-used:<sha256 of request token>    | RequestTokenUse     | the rest of that token's record (<= 11 min)   | one per successful leg 3, in the last 11 minutes                        |
 * | oauth1:nonce:<sha256 of [consumer key, nonce]> | the oauth_timestamp | NONCE_MEMORY (11 min)                      | one per accepted signed request (legs 1 and 3, playground), last 11 min |
 *
 * Only a request signed with a live app's API key writes (leg 2 writes
 * nothing; a bad signature writes nothing), so what a stranger can add is nil
 * and what an app can add is its own accepted request rate times 11 minutes.
 * Expiry is decided by the injected clock from the times inside each record;
 * the store's TTL only returns the memory afterwards (a little later, so a
 * late attempt hears "expired" rather than "unknown"). A flush of Redis loses
 * pending flows (start again at leg 1) and the nonce memory: a request
 * captured in the last 11 minutes could then be replayed once, which is why
 * Redis runs with noeviction.
 */
export const REQUEST_TOKEN_LIFETIME_MS = 10 * 60_000;
/** RFC 5849 3.3 leaves the window to the server; the spec's HMAC style uses 5 minutes either way, and so does this. */
export const TIMESTAMP_WINDOW_SECONDS = 300;
/**
 * A timestamp passes for 2 x 300 s of server time (from 300 s before it to
 * 300 s after), so its nonce is remembered that long plus a minute for
 * replicas whose clocks differ.
 */
export const NONCE_MEMORY_MS = (2 * TIMESTAMP_WINDOW_SECONDS + 60) * 1000;
/** How long an access token (leg 3) works. Kept nowhere: its expiry is inside it. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;
const LATE_GRACE_MS = 60_000;

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

const KEY = {
  requestToken: (token: string) => `oauth1:rt:${sha256(token)}`,
  requestTokenUsed: (token: string) => `oauth1:rt-used:${sha256(token)}`,
  nonce: (consumerKey: string, nonce: string) => `oauth1:nonce:${sha256(JSON.stringify([consumerKey, nonce]))}`,
};

/** What a temporary token (leg 1) stands for. */
export interface RequestTokenRecord {
  /** The App ID (consumer key) that asked for it: leg 3 must be signed by the same one. */
  app: string;
  /** "oob" or the absolute URL given at leg 1. */
  callback: string;
  issuedAt: number;
  expiresAt: number;
}

export interface RequestTokenUse {
  usedAt: number;
}

/** The OAuth 1.0a records in the ephemeral store (Redis shared by replicas, or memory). */
export class OAuth1State {
  constructor(
    private readonly store: EphemeralStore,
    private readonly clock: Clock,
  ) {}

  async saveRequestToken(token: string, record: RequestTokenRecord): Promise<void> {
    await putRecord(this.store, KEY.requestToken(token), record, record.expiresAt - this.clock() + LATE_GRACE_MS);
  }

  findRequestToken(token: string): Promise<RequestTokenRecord | undefined> {
    return readRecord(this.store, KEY.requestToken(token));
  }

  requestTokenUse(token: string): Promise<RequestTokenUse | undefined> {
    return readRecord(this.store, KEY.requestTokenUsed(token));
  }

  /**
   * Exchanges the temporary token, once: SET NX on its used-mark, so of two
   * replicas (or two requests) exchanging it at once exactly one wins; the
   * mark outlives the record, so a late second attempt hears "used". False:
   * it was used already.
   */
  async claimRequestToken(token: string, record: RequestTokenRecord, use: RequestTokenUse): Promise<boolean> {
    const won = await putRecord(this.store, KEY.requestTokenUsed(token), use, record.expiresAt - this.clock() + LATE_GRACE_MS, { onlyIfAbsent: true });
    if (won) await this.store.delete(KEY.requestToken(token));
    return won;
  }

  /** Remembers a nonce of this consumer key (SET NX): false when it was used within the window, at any replica. */
  rememberNonce(consumerKey: string, nonce: string, timestamp: string): Promise<boolean> {
    return this.store.put(KEY.nonce(consumerKey, nonce), timestamp, NONCE_MEMORY_MS, { onlyIfAbsent: true });
  }
}
