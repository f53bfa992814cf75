import type { Answer, Header, Inbound } from '../../../src/domain/http';

/** A request as the gateway would hand it over; headers as [name, value] pairs in order. */
export function inbound(parts: Partial<Omit<Inbound, 'headers' | 'body'>> & { headers?: Array<[string, string]>; body?: string | Buffer } = {}): Inbound {
  return {
    method: parts.method ?? 'GET',
    path: parts.path ?? '/playground/echo',
    rawQuery: parts.rawQuery ?? '',
    headers: (parts.headers ?? []).map(([name, value]): Header => ({ name, value })),
    body: Buffer.isBuffer(parts.body) ? parts.body : Buffer.from(parts.body ?? '', 'utf8'),
    remoteAddress: parts.remoteAddress ?? '127.0.0.1',
    baseUrl: parts.baseUrl ?? 'http://127.0.0.1:8080',
    httpVersion: parts.httpVersion ?? '1.1',
  };
}

export interface Read {
  status: number;
  /** First value of each header, by lower-case name. */
  headers: Record<string, string>;
  /** Every header line, as answered. */
  lines: Header[];
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answer bodies freely
  json: any;
}

/** An answer as a client would read it. */
export function read(answer: Answer): Read {
  const headers: Record<string, string> = {};
  for (const { name, value } of answer.headers) headers[name.toLowerCase()] ??= value;
  const text = answer.body.toString('utf8');
  const json = headers['content-type']?.startsWith('application/json') ? JSON.parse(text) : undefined;
  return { status: answer.status, headers, lines: answer.headers, text, json };
}
