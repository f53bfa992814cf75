import { parse as parseContentType } from 'content-type';
import getRawBody from 'raw-body';
import { HttpRefusal } from '@sandbox/runtime';
import type { RouteContext } from './context';
import { badRequest } from './errors';
import type { BodyMode } from './route';

/** A form body (mode form): its pairs in the order sent, duplicates kept, and its text as sent. */
export interface FormBody {
  pairs: [string, string][];
  text: string;
}

/**
 * Reads the request body as the route's mode says, and sets ctx.body. Only
 * what the mode declares is accepted: a body of another type is refused
 * (400 invalid_body, naming the type expected) before a byte is read, as is
 * a compressed one or one in another charset (415); a declared length over the limit
 * is 413 at once, and the connection is closed rather than drained.
 * raw-body (express's own reader) enforces the limit and the declared length;
 * content-type (express's own parser) reads the media type and charset.
 */
export async function readBody(ctx: RouteContext, mode: Exclude<BodyMode, 'none'>, optional: boolean): Promise<void> {
  const headers = ctx.headers;
  if (mode === 'stream') {
    // The handler reads it as it arrives; a declared length over the limit is refused before it does.
    if (headers['content-length'] !== undefined && Number(headers['content-length']) > ctx.bodyLimit) throw tooLarge(ctx.bodyLimit);
    ctx.body = ctx.request;
    return;
  }
  if (!hasBody(ctx)) {
    if (mode === 'json' && !optional) throw badRequest('invalid_body', 'Send a JSON object body with Content-Type: application/json.');
    ctx.body = mode === 'json' ? {} : mode === 'form' ? { pairs: [], text: '' } : Buffer.alloc(0);
    return;
  }
  // A declared length over the limit is refused first: nothing else about a body that will not be read matters.
  const declared = headers['content-length'];
  if (declared !== undefined && Number(declared) > ctx.bodyLimit) throw tooLarge(ctx.bodyLimit);
  const encoding = headers['content-encoding'];
  if (encoding && encoding.toLowerCase() !== 'identity') {
    throw new HttpRefusal(415, 'unsupported_encoding', `Content-Encoding ${encoding} is not accepted; send the body uncompressed.`, {
      'Accept-Encoding': 'identity',
    });
  }
  if (mode !== 'raw') expectType(headers['content-type'], mode);
  const bytes = await read(ctx);
  if (mode === 'raw') {
    ctx.body = bytes;
    return;
  }
  const text = utf8(bytes);
  ctx.body = mode === 'json' ? jsonObject(text) : form(text);
}

/**
 * URLSearchParams (the WHATWG form parser) keeps order and duplicates, but
 * turns a percent-encoded byte that is not UTF-8 into U+FFFD: such a field is
 * refused instead, like raw bytes that are not UTF-8.
 */
function form(text: string): FormBody {
  try {
    // Only runs of %XX are checked: a lone % is kept as it is by the parser, and is no encoding error.
    text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => decodeURIComponent(run));
  } catch {
    throw badRequest('invalid_utf8', 'A form field is not valid percent-encoded UTF-8.');
  }
  return { pairs: [...new URLSearchParams(text)], text };
}

function hasBody(ctx: RouteContext): boolean {
  const { headers } = ctx;
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

const EXPECTED: Record<'json' | 'form', { name: string; accepts: (type: string) => boolean }> = {
  json: { name: 'application/json', accepts: (type) => type === 'application/json' || /^application\/[^/]+\+json$/.test(type) },
  form: { name: 'application/x-www-form-urlencoded', accepts: (type) => type === 'application/x-www-form-urlencoded' },
};

function expectType(header: string | undefined, mode: 'json' | 'form'): void {
  const expected = EXPECTED[mode];
  let type: string;
  let charset: string | undefined;
  try {
    const parsed = parseContentType(header ?? '');
    type = parsed.type;
    charset = parsed.parameters.charset?.toLowerCase();
  } catch {
    throw badRequest('invalid_body', `This endpoint reads ${expected.name}; send Content-Type: ${expected.name}.`);
  }
  if (!expected.accepts(type)) throw badRequest('invalid_body', `This endpoint reads ${expected.name}, not ${type}; send Content-Type: ${expected.name}.`);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new HttpRefusal(415, 'unsupported_charset', `This endpoint reads UTF-8 text, not charset ${charset}.`);
  }
}

/** 413, closing the connection: the rest of a body too large to read is not drained. */
const tooLarge = (limit: number) =>
  new HttpRefusal(413, 'body_too_large', `The request body is larger than this endpoint accepts (${limit} bytes).`, { Connection: 'close' });

async function read(ctx: RouteContext): Promise<Buffer> {
  const limit = ctx.bodyLimit;
  try {
    return await getRawBody(ctx.request, { length: ctx.headers['content-length'], limit });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw tooLarge(limit);
    if (type === 'request.size.invalid') throw badRequest('malformed_body', 'The request body is shorter or longer than its Content-Length.');
    if (type === 'request.aborted') throw badRequest('request_aborted', 'The client stopped sending the body.');
    throw error;
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Text bodies must be valid UTF-8: bytes that are not would otherwise be replaced by U+FFFD and stored as something else. */
function utf8(bytes: Buffer): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw badRequest('invalid_utf8', 'The request body is not valid UTF-8.');
  }
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest('malformed_body', `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('invalid_body', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}
