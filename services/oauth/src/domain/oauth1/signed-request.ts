import type { oauth } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { baseStringUri, type NameValue } from './base-string';
import { percentDecode } from './encoding';
import { oauth1Problem } from './errors';

type Where = 'the Authorization header' | 'the query or form body';

/** A request as the rules read it: every signed parameter, and the protocol parameters found once each. */
export interface ParsedRequest {
  method: string;
  /** RFC 5849 3.4.1.2. */
  baseUri: string;
  /** The URL as the gateway gave it, for a hint when a client signed it unnormalised. */
  rawBaseUrl: string;
  /** What enters the base string (3.4.1.3.1): the header's parameters but realm, then the query's and the form body's, in order, duplicates kept. */
  params: NameValue[];
  /** The oauth_* parameters, each sent exactly once (a second one is refused). */
  protocol: ReadonlyMap<string, string>;
  /** What the Authorization header was, for a message about parameters that are missing. */
  header: 'oauth' | 'other' | 'none';
}

/**
 * Reads the gateway's SignedRequest: the `Authorization: OAuth` header parsed
 * per RFC 5849 3.5.1 (names and values percent-decoded, realm ignored), the
 * query and form parameters as the gateway decoded them. A protocol parameter
 * (a name starting oauth_, reserved by 3.1 and 3.4.1.3.1) given twice, in one
 * place or two, is refused: which one would be meant is ambiguous.
 */
export function parseSignedRequest(request: oauth.SignedRequest | undefined): ParsedRequest {
  const method = request?.method ?? '';
  const baseUri = baseStringUri(request?.baseUrl ?? '');
  if (!/^[A-Za-z]+$/.test(method) || baseUri === undefined) {
    // The gateway builds these; a client cannot cause it.
    throw oauth1Problem('parameter_rejected', 'The request method or URL could not be read, so no signature base string can be built.');
  }
  const authorization = request?.authorization ?? '';
  const isOAuth = /^\s*OAuth(?:\s|$)/i.test(authorization);
  const header = isOAuth ? parseAuthorizationHeader(authorization) : [];
  const located: Array<NameValue & { where: Where }> = [
    ...header.map((p) => ({ ...p, where: 'the Authorization header' as const })),
    ...(request?.params ?? []).map((p) => ({ name: p.name, value: p.value, where: 'the query or form body' as const })),
  ];

  const protocol = new Map<string, string>();
  const seen = new Map<string, Where[]>();
  for (const p of located) {
    if (!p.name.startsWith('oauth_')) continue;
    seen.set(p.name, [...(seen.get(p.name) ?? []), p.where]);
    protocol.set(p.name, p.value);
  }
  const repeated = [...seen].filter(([, wheres]) => wheres.length > 1);
  if (repeated.length) {
    const words = repeated.map(([name, wheres]) => `${name} ${wheres.length} times (${[...new Set(wheres)].join(' and ')})`).join('; ');
    throw oauth1Problem(
      'parameter_rejected',
      `A protocol parameter was sent more than once: ${words}. Each oauth_ parameter must appear exactly once per request (RFC 5849 3.1), in one place: the Authorization header, the query or the form body.`,
    );
  }
  return {
    method,
    baseUri,
    rawBaseUrl: request?.baseUrl ?? '',
    params: located.map(({ name, value }) => ({ name, value })),
    protocol,
    header: isOAuth ? 'oauth' : authorization.trim() === '' ? 'none' : 'other',
  };
}

const HEADER_SYNTAX =
  'The Authorization: OAuth header could not be read: it must be "OAuth " followed by name="value" pairs separated by commas, each name and value percent-encoded (RFC 5849 3.5.1)';

/** The header's parameters but realm, percent-decoded (RFC 5849 3.5.1; auth-param syntax of RFC 2617: quoted strings, or plain tokens for leniency). */
export function parseAuthorizationHeader(authorization: string): NameValue[] {
  const text = authorization.trim().replace(/^OAuth/i, '');
  const params: NameValue[] = [];
  let i = 0;
  const skip = (pattern: RegExp) => {
    while (i < text.length && pattern.test(text[i])) i++;
  };
  const fail = (what: string): never => {
    throw oauth1Problem('parameter_rejected', `${HEADER_SYNTAX}; ${what} at character ${i + 'OAuth'.length + 1}.`);
  };
  for (;;) {
    skip(/[\s,]/);
    if (i >= text.length) break;
    const nameStart = i;
    skip(/[^\s=,"]/);
    const rawName = text.slice(nameStart, i);
    if (rawName === '') fail('a parameter name was expected');
    skip(/\s/);
    if (text[i] !== '=') fail(`"=" was expected after ${quoteInput(rawName, { quotes: 'single' })}`);
    i++;
    skip(/\s/);
    let rawValue = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) fail(`the value of ${quoteInput(rawName, { quotes: 'single' })} has no closing quote`);
        const char = text[i++];
        if (char === '"') break;
        rawValue += char === '\\' && i < text.length ? text[i++] : char;
      }
    } else {
      const valueStart = i;
      skip(/[^\s,]/);
      rawValue = text.slice(valueStart, i);
    }
    skip(/\s/);
    if (i < text.length && text[i] !== ',') fail(`"," was expected after the value of ${quoteInput(rawName, { quotes: 'single' })}`);
    const name = percentDecode(rawName);
    const value = percentDecode(rawValue);
    if (name === undefined || value === undefined) {
      throw oauth1Problem(
        'parameter_rejected',
        `${HEADER_SYNTAX}; the parameter ${quoteInput(rawName, { quotes: 'single' })} is not valid percent-encoded UTF-8.`,
      );
    }
    if (name !== 'realm') params.push({ name, value });
  }
  return params;
}
