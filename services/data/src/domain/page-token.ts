import { createHmac, timingSafeEqual, type BinaryLike, type KeyObject } from 'node:crypto';
import { invalidArgument } from './errors';

export type SigningKey = BinaryLike | KeyObject;

/**
 * Cursors (cursor and link styles) and page tokens (token style) carry the
 * same position; the kind is recorded so that one cannot stand in for the other.
 */
export type PositionKind = 'cursor' | 'token';

export interface Position {
  readonly kind: PositionKind;
  readonly datasetVersion: number;
  /** Index of the entity in the registry (ENTITIES). */
  readonly entity: number;
  /** Index of the shape in SHAPES. */
  readonly shape: number;
  readonly pageSize: number;
  /** First row of the page the value points at. */
  readonly offset: number;
}

// A compact binary layout rather than JSON: the value stays short in URLs and
// shows no readable page number or URL, as the token rules require.
//   0 format | 1 kind | 2-3 dataset version | 4 entity | 5 shape | 6-7 page size | 8-13 offset | 14-29 MAC
const FORMAT = 1;
const PAYLOAD_BYTES = 14;
/** HMAC-SHA256 cut to 128 bits: ample against forgery, and keeps the value at 40 characters. */
const MAC_BYTES = 16;
const ENCODED_LENGTH = ((PAYLOAD_BYTES + MAC_BYTES) * 4) / 3;
const ENCODED = new RegExp(`^[A-Za-z0-9_-]{${ENCODED_LENGTH}}$`);
const KIND_BYTE: Record<PositionKind, number> = { cursor: 1, token: 2 };

const PARAMETER: Record<PositionKind, string> = { cursor: 'cursor', token: 'pageToken' };
const ERROR_CODE: Record<PositionKind, string> = { cursor: 'invalid_cursor', token: 'invalid_page_token' };
const REMEDY: Record<PositionKind, string> = {
  cursor: 'Follow pagination.next unchanged, or start again without a cursor.',
  token: 'Send nextPageToken back unchanged as pageToken, or start again without one.',
};

function mac(key: SigningKey, payload: Buffer): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
}

export function sealPosition(position: Position, key: SigningKey): string {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload.writeUInt8(FORMAT, 0);
  payload.writeUInt8(KIND_BYTE[position.kind], 1);
  payload.writeUInt16BE(position.datasetVersion, 2);
  payload.writeUInt8(position.entity, 4);
  payload.writeUInt8(position.shape, 5);
  payload.writeUInt16BE(position.pageSize, 6);
  payload.writeUIntBE(position.offset, 8, 6);
  return Buffer.concat([payload, mac(key, payload)]).toString('base64url');
}

/** An error about a cursor or token, coded and worded for the parameter it came in. */
export function positionError(kind: PositionKind, problem: string): Error {
  return invalidArgument(ERROR_CODE[kind], `The ${PARAMETER[kind]} ${problem}. ${REMEDY[kind]}`);
}

/**
 * The position inside `value`, sent as `kind`. Anything not sealed by us with
 * this key, byte for byte, is rejected before any of its content is trusted.
 */
export function openPosition(value: string, kind: PositionKind, key: SigningKey): Position {
  // The exact length and alphabet leave no slack bits, so one position has exactly one encoding.
  if (!ENCODED.test(value)) throw positionError(kind, 'is malformed: it is not a value this service issued');
  const bytes = Buffer.from(value, 'base64url');
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), mac(key, payload))) {
    throw positionError(kind, 'is not valid: it was changed, cut short or issued by another server');
  }
  if (payload.readUInt8(0) !== FORMAT) throw positionError(kind, 'uses a format this service no longer reads');
  const sentAs = payload.readUInt8(1) === KIND_BYTE.token ? 'token' : 'cursor';
  if (sentAs !== kind) {
    throw kind === 'cursor'
      ? positionError(kind, 'is a page token: send it as pageToken (with paginate=token), not as cursor')
      : positionError(kind, 'is a cursor: send it as cursor (with paginate=cursor or link), not as pageToken');
  }
  return {
    kind,
    datasetVersion: payload.readUInt16BE(2),
    entity: payload.readUInt8(4),
    shape: payload.readUInt8(5),
    pageSize: payload.readUInt16BE(6),
    offset: payload.readUIntBE(8, 6),
  };
}
