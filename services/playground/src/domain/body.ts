import { createHash } from 'node:crypto';
import { TextDecoder } from 'node:util';
import { invalidArgument, quoteInput } from '@sandbox/runtime';
import { isJson, parseMediaType, type MediaType } from './media-type';
import { parseForm } from './query';

export type BodyKind = 'none' | 'json' | 'form' | 'text' | 'bytes';

/** A body as the echo shows it: what kind it was read as, the value, its size in bytes, and why. */
export interface BodyReport {
  kind: BodyKind;
  /** none: null; json: the object; form: an object (repeated keys as arrays); text: the string; bytes: {size, sha256}. */
  value: unknown;
  size: number;
  notes: string[];
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const bytesReport = (body: Buffer, notes: string[]): BodyReport => ({
  kind: 'bytes',
  value: { size: body.length, sha256: sha256(body) },
  size: body.length,
  notes,
});

/** What a JSON value is, in words, for a refusal. */
function describeJsonValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function utf8(body: Buffer, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    throw invalidArgument('invalid_utf8', `The ${what} body is not valid UTF-8.`);
  }
}

function readJson(type: MediaType, body: Buffer): BodyReport {
  const notes: string[] = [];
  const charset = type.params.charset?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    notes.push(`JSON is always UTF-8 (RFC 8259 8.1); the declared charset ${quoteInput(type.params.charset)} was ignored.`);
  }
  let text = utf8(body, 'JSON');
  if (text.startsWith('\uFEFF')) {
    text = text.slice(1);
    notes.push('The body began with a byte order mark (EF BB BF), which was skipped; RFC 8259 8.1 says not to send one.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidArgument('malformed_body', `The body is not valid JSON (Content-Type ${type.essence}): ${(error as Error).message}.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument('invalid_body', `The JSON body is ${describeJsonValue(value)}; this endpoint takes a JSON object, e.g. {"name": "value"}.`);
  }
  return { kind: 'json', value, size: body.length, notes };
}

function readText(type: MediaType, body: Buffer): BodyReport {
  const label = type.params.charset ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    return bytesReport(body, [`The charset ${quoteInput(label)} is not one this service can decode, so the body is reported as bytes.`]);
  }
  try {
    const text = decoder.decode(body);
    const notes = type.params.charset === undefined ? ['No charset was given; the text was read as UTF-8.'] : [];
    return { kind: 'text', value: text, size: body.length, notes };
  } catch {
    return bytesReport(body, [
      `The body is not valid ${decoder.encoding} text (the charset ${type.params.charset ? 'declared' : 'assumed'}), so it is reported as bytes.`,
    ]);
  }
}

/**
 * A body read by its Content-Type: JSON (application/json and +json types)
 * must be an object; an urlencoded form becomes an object; text/* is text in
 * its charset; everything else, and a body without a Content-Type, is
 * reported as its size and sha256. An empty body is `none`, except where the
 * Content-Type promises JSON: an empty string is not JSON.
 */
export function readBody(contentType: string | undefined, body: Buffer): BodyReport {
  const type = parseMediaType(contentType);
  if (body.length === 0) {
    if (type && isJson(type))
      throw invalidArgument('invalid_body', `Content-Type is ${type.essence} but the body is empty; a JSON body must be an object, e.g. {}.`);
    return { kind: 'none', value: null, size: 0, notes: [] };
  }
  if (contentType === undefined) {
    return bytesReport(body, [
      'No Content-Type was sent, so the body is reported as its size and sha256; send application/json, application/x-www-form-urlencoded or text/plain to see it parsed.',
    ]);
  }
  if (!type) return bytesReport(body, [`The Content-Type ${quoteInput(contentType)} is not a media type (type/subtype), so the body is reported as bytes.`]);
  if (isJson(type)) return readJson(type, body);
  if (type.essence === 'application/x-www-form-urlencoded') {
    return { kind: 'form', value: parseForm(utf8(body, 'form')), size: body.length, notes: [] };
  }
  if (type.essence.startsWith('text/')) return readText(type, body);
  if (type.essence.startsWith('multipart/')) {
    return bytesReport(body, ['A multipart body is reported here as bytes; POST it to /playground/upload to see every part, with each file hashed.']);
  }
  return bytesReport(body, [`${type.essence} is reported as its size and sha256.`]);
}
