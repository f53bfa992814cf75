import { createHmac, createSecretKey, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { invalidArgument } from '@sandbox/runtime';
import type { LogCursor } from '../stores/request-log-store';

// Layout, base64url as a whole:
//   0 format | 1-6 time (ms since epoch) | 7-18 log entry id (12 bytes = 24 hex) | 19-50 HMAC-SHA256
// The MAC covers the list's name too (not carried: the caller names the list
// beside the token): an app's id for its request log, or an operator's list
// (admin.ts), so a token works only for the list that issued it.
const FORMAT = 1;
const PAYLOAD_BYTES = 19;
const MAC_BYTES = 32;
const ENCODED_LENGTH = Math.ceil(((PAYLOAD_BYTES + MAC_BYTES) * 4) / 3);
// The exact length and alphabet leave one encoding per token (51 bytes = 68 characters, no slack bits).
const ENCODED = new RegExp(`^[A-Za-z0-9_-]{${ENCODED_LENGTH}}$`);
const LOG_ID = /^[0-9a-f]{24}$/;
const MAX_TIME = 2 ** 48 - 1;

/** HKDF "info": this key signs request-log page tokens and nothing else. */
export const PAGE_TOKEN_KEY_INFO = 'sandbox/identity/request-log-page-token/v1';
/** HKDF "info" of the operators' lists' page tokens (admin.ts): a key of their own, one derivation per purpose. */
export const OPERATOR_PAGE_TOKEN_KEY_INFO = 'sandbox/identity/operator-list-page-token/v1';

const refusal = (problem: string) =>
  invalidArgument('invalid_page_token', `pageToken ${problem}: send nextPageToken back unchanged, or start again without one.`);

/**
 * Page tokens of the request logs and the operators' lists (users, audit
 * log): the position after the last item shown (a time and a 24-hex id), signed
 * with HMAC-SHA256 so a made-up or altered token is refused before any of it
 * is trusted. The key derives (HKDF-SHA256) from the session signing key:
 * configured, and so shared by every replica, wherever identity keeps data;
 * random per process in memory mode, like the data there.
 */
export class PageTokens {
  /** A KeyObject, not a Buffer: node takes it faster (credential-crypto.ts says how much). */
  private readonly key: KeyObject;

  constructor(masterKey: Buffer, info = PAGE_TOKEN_KEY_INFO) {
    if (masterKey.length < 32) throw new Error('the page token key must derive from at least 32 bytes');
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32)));
  }

  /** `list`: what the token pages, an app's id or an operator's list (admin.ts). */
  seal(list: string, cursor: LogCursor): string {
    if (!LOG_ID.test(cursor.id)) throw new Error('a log entry id is 24 lowercase hex characters');
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    payload.writeUInt8(FORMAT, 0);
    payload.writeUIntBE(Math.max(0, Math.min(cursor.time.getTime(), MAX_TIME)), 1, 6);
    Buffer.from(cursor.id, 'hex').copy(payload, 7);
    return Buffer.concat([payload, this.mac(list, payload)]).toString('base64url');
  }

  /** The position in `token`, issued for this list; INVALID_ARGUMENT invalid_page_token otherwise. */
  open(list: string, token: string): LogCursor {
    if (!ENCODED.test(token)) throw refusal('is not a token this endpoint issued');
    const bytes = Buffer.from(token, 'base64url');
    const payload = bytes.subarray(0, PAYLOAD_BYTES);
    if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), this.mac(list, payload))) {
      throw refusal('is not valid here: it was changed, made up, issued for another app or list, or by a server with another key');
    }
    if (payload.readUInt8(0) !== FORMAT) throw refusal('uses a format this service no longer reads');
    return { time: new Date(payload.readUIntBE(1, 6)), id: payload.subarray(7).toString('hex') };
  }

  private mac(list: string, payload: Buffer): Buffer {
    // Length-prefixed, so no (list, payload) pair can be read as another.
    const name = Buffer.from(list, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(name.length);
    return createHmac('sha256', this.key).update(length).update(name).update(payload).digest();
  }
}
