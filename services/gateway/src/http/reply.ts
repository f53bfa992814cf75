import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * What a handler answers: status, headers and a body (bytes or text) or a
 * stream. The dispatcher adds the headers every answer carries (request id,
 * CORS); the server writes it with one writeHead, a batch item keeps it as it is.
 */
export interface Reply {
  status: number;
  headers: OutgoingHttpHeaders;
  /** Omitted for 204 and 304; left out of HEAD answers by the server. */
  body?: Uint8Array | string;
  stream?: Readable;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A CSV download (RFC 4180 text): the one shape of the operators' exports, saved under `fileName`. */
export function csvAttachment(fileName: string, csv: string): Reply {
  const body = Buffer.from(csv);
  return {
    status: 200,
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Length': body.byteLength,
      'Content-Disposition': `attachment; filename="${fileName}"`,
    },
    body,
  };
}

/** A JSON answer; the one place a value becomes a JSON body. */
export function json(value: unknown, status = 200, headers: OutgoingHttpHeaders = {}): Reply {
  return jsonBytes(Buffer.from(JSON.stringify(value)), status, headers);
}

/** A JSON answer already rendered, e.g. by a service. */
export function jsonBytes(body: Uint8Array, status = 200, headers: OutgoingHttpHeaders = {}): Reply {
  headers['Content-Type'] = JSON_TYPE;
  headers['Content-Length'] = body.byteLength;
  return { status, headers, body };
}

/** An answer without a body. */
export function empty(status: number, headers: OutgoingHttpHeaders = {}): Reply {
  return { status, headers };
}
