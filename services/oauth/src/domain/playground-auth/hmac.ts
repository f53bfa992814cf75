import { createHmac } from 'node:crypto';
import type { common, oauth } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { usable } from '../app-directory';
import type { PlaygroundAuthDeps } from './deps';
import { accepted, refused, sameText, sha256Hex, when } from './text';

/** How far x-timestamp may lie from server time, either way, in seconds. */
export const HMAC_WINDOW_SECONDS = 300;
/**
 * How much longer than the rest of the window a signature is remembered:
 * covers replicas whose clocks differ by up to a minute, so a signature one
 * replica accepted near the window's end is still remembered when another,
 * whose clock is behind, would still accept its timestamp.
 */
export const HMAC_REPLAY_MARGIN_MS = 60_000;

/** The replay memory of one accepted signature (after the store's own prefix). */
export const hmacSeenKey = (appId: string, signature: string) => `playground:hmac:seen:${sha256Hex(`${appId}\n${signature}`)}`;

/** What is signed: "timestamp.METHOD.path", the path as sent on the request line, without "?" and the query. */
export const hmacCanonicalString = (timestamp: string, method: string, path: string) => `${timestamp}.${method.toUpperCase()}.${path}`;

const hmacHex = (key: string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest('hex');

/**
 * The HMAC style: x-signature = lowercase hex HMAC-SHA256, keyed with the
 * app's API key, over "timestamp.METHOD.path". Rules, in the order checked:
 * all three values present; x-timestamp in whole Unix seconds; the app
 * exists and is active; the timestamp within 300 s of the injected clock;
 * the signature; and the signature not accepted before (one SET NX in the
 * store, so two replicas cannot both accept it).
 */
export async function verifyHmac(deps: PlaygroundAuthDeps, request: oauth.VerifyHmacRequest, requestId?: string): Promise<common.CredentialCheck> {
  const { appId, timestamp, signature, method, path } = request;
  const missing = [
    ['x-app-id', appId],
    ['x-timestamp', timestamp],
    ['x-signature', signature],
  ]
    .filter(([, value]) => value === '')
    .map(([name]) => name);
  if (missing.length) return refused(`All three headers are required: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing or empty.`);

  const now = deps.clock();
  const serverTime = `Server time is ${when(now)}.`;
  const timestampProblem = checkTimestampFormat(timestamp);
  if (timestampProblem) return refused(`${timestampProblem} ${serverTime}`);

  const canonical = hmacCanonicalString(timestamp, method, path);
  // A remembered key the signature does not match is read again first: the key may have been rotated a moment ago.
  const app = await deps.apps.signingKey(appId, requestId, (key) => usable(key) && key.apiKey !== '' && sameText(hmacHex(key.apiKey, canonical), signature));
  if (!app.found || !app.principal) return refused(`x-app-id ${quoteInput(appId, { quotes: 'single' })} is not the App ID of any app here.`);
  if (!app.active || !app.apiKey) return refused(`The app ${quoteInput(appId, { quotes: 'single' })} is revoked: its signatures are refused.`);

  const signed = `The server signed ${JSON.stringify(canonical)}.`;
  const expected = hmacHex(app.apiKey, canonical);
  const matches = sameText(expected, signature);

  const seconds = Number(timestamp);
  const offset = seconds - Math.floor(now / 1000);
  if (Math.abs(offset) > HMAC_WINDOW_SECONDS) {
    const direction = offset > 0 ? 'ahead of' : 'behind';
    const signatureNote = matches ? ' The signature itself is right: only the time is off.' : '';
    return refused(
      `x-timestamp ${timestamp} is ${Math.abs(offset)} s ${direction} server time; it must be within ${HMAC_WINDOW_SECONDS} s either way: check your clock and sign a fresh timestamp. ${serverTime}${signatureNote}`,
    );
  }

  if (!matches) return refused(`The signature does not match. ${signatureHint(app.apiKey, request, expected)}${signed} ${serverTime}`);

  // Remembered until the timestamp leaves the window (the end of its last accepted second) on any replica, whose clocks may differ by the margin.
  const ttlMs = (seconds + HMAC_WINDOW_SECONDS + 1) * 1000 - now + HMAC_REPLAY_MARGIN_MS;
  const first = await deps.store.put(hmacSeenKey(appId, signature), '1', Math.max(HMAC_REPLAY_MARGIN_MS, ttlMs), { onlyIfAbsent: true });
  if (!first) {
    return refused(
      `Replayed: this exact signature (of ${JSON.stringify(canonical)}) was already used, and each signature is accepted once. A new x-timestamp makes a new signature: sign again with the current time. Sent twice within the same second, a request carries the same timestamp and so the same signature: wait for the next second, then sign. ${serverTime}`,
    );
  }
  return accepted(app.principal);
}

/** Whole Unix seconds; a millisecond timestamp (13 digits) gets its own hint. */
function checkTimestampFormat(timestamp: string): string | undefined {
  const hint = 'x-timestamp must be Unix time in whole seconds, e.g. Math.floor(Date.now() / 1000) or int(time.time()).';
  if (/^\d{13}$/.test(timestamp)) return `x-timestamp ${timestamp} looks like milliseconds (13 digits): send seconds (10 digits). ${hint}`;
  if (/^\d+\.\d*$/.test(timestamp)) return `x-timestamp ${quoteInput(timestamp, { quotes: 'single' })} has a fraction: send whole seconds. ${hint}`;
  if (!/^\d{1,12}$/.test(timestamp)) return `x-timestamp ${quoteInput(timestamp, { quotes: 'single' })} is not a number of seconds. ${hint}`;
  return undefined;
}

/**
 * Why a signature that does not match may have been made: which other form
 * of the same request it would have matched. Only the forms are named; the
 * expected signature never is.
 */
function signatureHint(apiKey: string, request: oauth.VerifyHmacRequest, expected: string): string {
  const { timestamp, signature, method, path, rawQuery } = request;
  if (signature !== signature.toLowerCase() && sameText(expected, signature.toLowerCase())) return 'It is right but in uppercase hex: send lowercase hex. ';
  const base64 = /^[A-Za-z0-9+/_-]{43}=?$/.test(signature) ? Buffer.from(signature, 'base64') : undefined;
  if (base64?.length === 32 && sameText(expected, base64.toString('hex'))) return 'It is right but base64-encoded: send lowercase hex (64 characters). ';
  if (rawQuery !== '' && sameText(hmacHex(apiKey, `${timestamp}.${method.toUpperCase()}.${path}?${rawQuery}`), signature)) {
    return 'You signed the path with its query string; sign the path only (without "?" and what follows). ';
  }
  if (method !== method.toLowerCase() && sameText(hmacHex(apiKey, `${timestamp}.${method.toLowerCase()}.${path}`), signature)) {
    return `You signed the method in lowercase; sign it as sent, in uppercase (${method.toUpperCase()}). `;
  }
  if (!/^[0-9a-f]{64}$/.test(signature.toLowerCase())) return 'x-signature must be 64 lowercase hex characters (HMAC-SHA256, hex-encoded). ';
  return 'Check the key (your API key, not the App Secret), the text signed (below) and the hex encoding. ';
}
