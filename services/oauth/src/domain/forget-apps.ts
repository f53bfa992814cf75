import { invalidArgument, quoteInput } from '@sandbox/runtime';
import type { EphemeralStore } from '../stores/ephemeral-store';

/** An App ID as identity issues them: app_ and 22 random characters, which occur nowhere by chance. */
const APP_ID = /^app_[A-Za-z0-9_-]{22}$/;
const APP_ID_LENGTH = 26;

/**
 * Forgets what the store holds of these apps, for an operator deleting
 * their owner (docs/operators.md): every record whose key or value names
 * one of the App IDs. That is each record an app can still use or that says
 * whose it was: authorization codes and their redeemed-marks (oauth2:code*,
 * clientId), refresh tokens (oauth2:rt, clientId) and OAuth 1.0a request
 * tokens (oauth1:rt, app). Verifiers, OAuth 1.0a access tokens and OAuth
 * 2.0 access tokens are not stored (derived or signed).
 *
 * Left to expire on their own: the memories that only refuse and name no
 * app (a hash of the token, nonce or signature, with a time or a count):
 * used-marks of refresh and request tokens, revocations, OAuth 1.0a nonces,
 * HMAC replay records and Digest nonce counts. Forgetting them would gain
 * nothing (they hold nothing of the user) and, since this runs while the
 * apps still exist (the caller deletes them next), would reopen a replay
 * or revive a revoked token until identity has deleted the app.
 *
 * A value that is not an App ID is refused before anything is forgotten: an
 * empty or short one would match other apps' records, or all of them.
 * Returns how many records were forgotten, on every replica at once (they
 * share the store).
 */
export async function forgetApps(store: EphemeralStore, appIds: readonly string[]): Promise<number> {
  const wrong = appIds.find((appId) => !APP_ID.test(appId));
  if (wrong !== undefined) throw invalidArgument('invalid_app_id', `${quoteInput(wrong)} is not an App ID (app_ and 22 letters, digits, _ or -).`);
  if (!appIds.length) return 0;
  return store.forgetMatching(namesOneOf(new Set(appIds)));
}

/**
 * Whether a text contains one of the App IDs: each "app_" in it is looked
 * up with the 22 characters after it, so a purge of a whole class (thousands
 * of apps) costs one pass over each record, not one per app.
 */
export function namesOneOf(appIds: ReadonlySet<string>): (text: string) => boolean {
  return (text) => {
    for (let at = text.indexOf('app_'); at >= 0 && at + APP_ID_LENGTH <= text.length; at = text.indexOf('app_', at + 1)) {
      if (appIds.has(text.slice(at, at + APP_ID_LENGTH))) return true;
    }
    return false;
  };
}
