import { crc32 } from 'node:zlib';
import { SECRET_PATTERNS, type SecretPattern } from './secret-patterns';

/**
 * The production-credential guard: finds strings shaped like well-known live
 * secrets (secret-patterns.ts) so the gateway can refuse the request before
 * anything is logged, stored or forwarded.
 *
 * A match carries the kind and the rotation advice, never the matched value:
 * nothing here returns, logs or keeps it.
 *
 * Cost: most strings a request carries are short or contain none of the
 * patterns' literal triggers. Strings shorter than the shortest pattern are
 * skipped; the rest go through one pre-compiled alternation of the triggers
 * (`RegExp.prototype.test`, no allocation); only text that contains a trigger
 * runs the patterns that trigger belongs to.
 */

/**
 * The host a request was addressed to, or a function that works it out: only
 * a JWT with an https issuer needs it, so the common request never pays for it.
 */
export type RequestHost = string | (() => string);

export interface CredentialMatch {
  /** The pattern's id in secret-patterns.ts. */
  readonly id: string;
  /** Completes "This looks like <kind>." */
  readonly kind: string;
  /** What to do about it, one sentence. */
  readonly advice: string;
}

export interface CredentialGuardOptions {
  /**
   * Hosts whose https JWTs are not a foreign identity provider's: the
   * gateway's own public host (PUBLIC_BASE_URL) and the identity provider
   * configured for portal sessions. Each entry is a host (`sandbox.example.org`,
   * `sandbox.example.org:8443`) or a URL (`https://sandbox.example.org/api`);
   * compared with the issuer URL's host, port included (443 implied).
   */
  readonly allowedIssuerHosts?: Iterable<string>;
}

/** The sentence of the 400 `production_credential_refused`; the advice may follow it. */
export function refusalMessage(match: CredentialMatch): string {
  return `This looks like ${match.kind}. The sandbox must never receive production credentials: rotate that credential now, and use the sandbox's own.`;
}

interface CompiledPattern {
  readonly source: SecretPattern;
  /** Prebuilt, so that a match allocates nothing (except a JWT's, which names its issuer). */
  readonly match: CredentialMatch;
  /** For confirmed patterns: the global twin, to try each candidate in turn. */
  readonly all?: RegExp;
}

const COMPILED: readonly CompiledPattern[] = SECRET_PATTERNS.map((source) => ({
  source,
  match: Object.freeze({ id: source.id, kind: source.kind, advice: source.advice }),
  ...(source.confirm ? { all: new RegExp(source.pattern.source, `${source.pattern.flags}g`) } : {}),
}));
const FIELD_PATTERNS = COMPILED.filter((p) => p.source.field);

/** Shorter strings cannot hold any pattern. */
export const SHORTEST_MATCH = Math.min(...SECRET_PATTERNS.map((p) => p.minLength));

const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Trigger → the patterns it belongs to, including those of any trigger it starts with (the regex reports one per position). */
const TRIGGER_OWNERS = new Map<string, readonly number[]>();
for (const trigger of new Set(SECRET_PATTERNS.flatMap((p) => p.triggers))) {
  const owners = COMPILED.flatMap((pattern, index) => (pattern.source.triggers.some((t) => trigger.startsWith(t)) ? [index] : []));
  TRIGGER_OWNERS.set(trigger, owners);
}
const TRIGGER_ALTERNATION = [...TRIGGER_OWNERS.keys()]
  .sort((a, b) => b.length - a.length)
  .map(escapeRegExp)
  .join('|');
/** Every trigger of every pattern; no flags, so `test` keeps no state. */
const PREFILTER = new RegExp(TRIGGER_ALTERNATION);
/** The same, to list which triggers a text holds once the pre-filter has fired. */
const TRIGGERS_IN_TEXT = new RegExp(TRIGGER_ALTERNATION, 'g');

export class CredentialGuard {
  private readonly allowedHosts: ReadonlySet<string>;

  constructor(options: CredentialGuardOptions = {}) {
    // A malformed entry is a configuration mistake: fail at start-up, not per request.
    this.allowedHosts = new Set(
      [...(options.allowedIssuerHosts ?? [])].map((entry) => {
        const host = normalizeHost(entry);
        if (host === undefined) throw new Error(`allowedIssuerHosts: not a host or URL: ${JSON.stringify(entry)}`);
        return host;
      }),
    );
  }

  /** Whether `text` might hold a secret at all: one regex test, no allocation (the common request's whole cost). */
  mayHold(text: string): boolean {
    return text.length >= SHORTEST_MATCH && PREFILTER.test(text);
  }

  /**
   * The first live-secret shape in `text`, if any. `requestHost` is the host
   * this request was addressed to, when the gateway derives its public base
   * URL from the request (its OAuth and playground JWTs name it as `iss`).
   */
  find(text: string, requestHost?: RequestHost): CredentialMatch | undefined {
    if (text.length < SHORTEST_MATCH) return undefined;
    if (PREFILTER.test(text)) {
      const found = this.inspect(text, requestHost);
      if (found) return found;
    }
    // A Basic credential hides its password in base64: look at it decoded too.
    if ((text.charCodeAt(0) | 0x20) === 0x62 && BASIC.test(text)) {
      const decoded = Buffer.from(text.slice(text.indexOf(' ') + 1).trim(), 'base64').toString('utf8');
      if (decoded.length >= SHORTEST_MATCH && PREFILTER.test(decoded)) return this.inspect(decoded, requestHost);
    }
    return undefined;
  }

  /**
   * A named value: the value alone, or the name and value together (an AWS
   * secret access key is recognised by its field's name). The name itself is
   * not scanned here (`scanFields` and `scanJson` do).
   */
  findInField(name: string, value: string, requestHost?: RequestHost): CredentialMatch | undefined {
    const found = this.find(value, requestHost);
    if (found) return found;
    for (const pattern of FIELD_PATTERNS) {
      const field = pattern.source.field!;
      // The value test first: anchored, it fails on the first character of almost any other value.
      if (field.value.test(value) && field.name.test(name)) return pattern.match;
    }
    return undefined;
  }

  scanValues(values: Iterable<string>, requestHost?: RequestHost): CredentialMatch | undefined {
    for (const value of values) {
      const found = this.find(value, requestHost);
      if (found) return found;
    }
    return undefined;
  }

  /** Name-value pairs (headers, query parameters, form fields): names and values both. */
  scanFields(fields: Iterable<readonly [name: string, value: string]>, requestHost?: RequestHost): CredentialMatch | undefined {
    for (const [name, value] of fields) {
      const found = this.find(name, requestHost) ?? this.findInField(name, value, requestHost);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * A parsed JSON body: every string, every key, and each key with its string
   * value. Walks with its own stack, so nesting as deep as JSON.parse accepts
   * cannot overflow the call stack.
   */
  scanJson(value: unknown, requestHost?: RequestHost): CredentialMatch | undefined {
    if (typeof value === 'string') return this.find(value, requestHost);
    if (value === null || typeof value !== 'object') return undefined;
    const pending: object[] = [value];
    while (pending.length > 0) {
      const node = pending.pop()!;
      if (Array.isArray(node)) {
        for (const item of node) {
          if (typeof item === 'string') {
            const found = this.find(item, requestHost);
            if (found) return found;
          } else if (item !== null && typeof item === 'object') pending.push(item);
        }
        continue;
      }
      for (const [key, item] of Object.entries(node)) {
        const found = this.find(key, requestHost) ?? (typeof item === 'string' ? this.findInField(key, item, requestHost) : undefined);
        if (found) return found;
        if (item !== null && typeof item === 'object') pending.push(item);
      }
    }
    return undefined;
  }

  /**
   * A body as it was sent, read the way its Content-Type says a server reads
   * it (the routes that forward bodies raw: echo, response, redirect). First
   * the bytes as text, one character per byte, so every ASCII pattern matches
   * whatever the rest of the body is (binary, another charset); then, for JSON
   * and form bodies, what they decode to, exactly as a route that reads JSON or
   * a form is scanned: JSON escapes (`\u0041`, `\/`) and percent-encoding can
   * hide a secret from the text, and a named value (an AWS secret key) is
   * recognised by its field. A body that does not parse is scanned as text
   * only (whoever reads it refuses it).
   */
  scanBody(bytes: Uint8Array, contentType: string | undefined, requestHost?: RequestHost): CredentialMatch | undefined {
    if (bytes.byteLength < SHORTEST_MATCH) return undefined;
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const text = buffer.toString('latin1');
    const found = this.find(text, requestHost);
    if (found) return found;
    const type = mediaTypeOf(contentType);
    if (type === 'application/json' || /^application\/[^/]+\+json$/.test(type)) {
      let value: unknown;
      try {
        value = JSON.parse(buffer.toString('utf8'));
      } catch {
        return undefined;
      }
      return this.scanJson(value, requestHost);
    }
    if (type === 'application/x-www-form-urlencoded') return this.scanFields(new URLSearchParams(buffer.toString('utf8')), requestHost);
    return undefined;
  }

  private inspect(text: string, requestHost: RequestHost | undefined): CredentialMatch | undefined {
    // Which patterns' triggers occur (overlapping occurrences too), then those
    // patterns only, in the list's order.
    const present = new Uint8Array(COMPILED.length);
    const triggers = TRIGGERS_IN_TEXT;
    triggers.lastIndex = 0;
    for (let m = triggers.exec(text); m !== null; m = triggers.exec(text)) {
      for (const index of TRIGGER_OWNERS.get(m[0])!) present[index] = 1;
      triggers.lastIndex = m.index + 1;
    }
    triggers.lastIndex = 0;
    for (let index = 0; index < COMPILED.length; index++) {
      if (present[index] === 0) continue;
      const pattern = COMPILED[index]!;
      if (!pattern.all) {
        if (pattern.source.pattern.test(text)) return pattern.match;
        continue;
      }
      const candidates = pattern.all;
      candidates.lastIndex = 0;
      try {
        for (let m = candidates.exec(text); m !== null; m = candidates.exec(text)) {
          const found = this.confirm(pattern, m[0], requestHost);
          if (found) return found;
        }
      } finally {
        candidates.lastIndex = 0;
      }
    }
    return undefined;
  }

  private confirm(pattern: CompiledPattern, candidate: string, requestHost: RequestHost | undefined): CredentialMatch | undefined {
    switch (pattern.source.confirm) {
      case 'crc32-base62-checksum':
        return hasValidChecksum(candidate) ? pattern.match : undefined;
      case 'foreign-jwt-issuer': {
        const issuer = httpsIssuerHost(candidate);
        if (issuer === undefined || this.allowedHosts.has(issuer)) return undefined;
        const host = typeof requestHost === 'function' ? requestHost() : requestHost;
        if (host !== undefined && normalizeHost(host) === issuer) return undefined;
        // The header last: the sandbox's own tokens never pay for its decoding.
        if (!hasHeaderWithAlg(candidate)) return undefined;
        return { id: pattern.source.id, kind: `a JWT issued by ${issuer}`, advice: pattern.source.advice };
      }
      default:
        return undefined;
    }
  }
}

const BASIC = /^basic +[A-Za-z0-9+/=]/i;

/** `type/subtype` of a Content-Type value, lower case, without parameters; '' when absent. */
function mediaTypeOf(contentType: string | undefined): string {
  if (!contentType) return '';
  const end = contentType.indexOf(';');
  return (end < 0 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * GitHub's and npm's token format: prefix, `_`, random base62, and six base62
 * characters of CRC-32 over the random part. The checksum is what tells a real
 * token from one of the sandbox's 40-character page tokens that happens to
 * start with `ghp_` (about one in ten million would).
 */
function hasValidChecksum(token: string): boolean {
  const body = token.slice(token.indexOf('_') + 1);
  if (body.length <= 6) return false;
  let sum = crc32(body.slice(0, -6));
  let encoded = '';
  for (let i = 0; i < 6; i++) {
    encoded = BASE62[sum % 62] + encoded;
    sum = Math.floor(sum / 62);
  }
  return sum === 0 && encoded === body.slice(-6);
}

/**
 * The host of a JWT's `iss` when it is an https URL, unless that host is a
 * reserved name (RFC 2606 and RFC 6761: example.com/net/org, .example, .test,
 * .invalid, localhost, .localhost) or a loopback address: no real identity
 * provider issues from those, and learners put them in the tokens they make
 * up. Undefined too for a payload that is not JSON, has no `iss`, or has a
 * non-URL or http one. `headerAndPayload` is the pattern's match: `h.p.`.
 */
function httpsIssuerHost(headerAndPayload: string): string | undefined {
  const firstDot = headerAndPayload.indexOf('.');
  const payload = decodeJsonSegment(headerAndPayload.slice(firstDot + 1, headerAndPayload.indexOf('.', firstDot + 1)));
  return payload !== undefined && typeof payload.iss === 'string' ? issuerHost(payload.iss) : undefined;
}

/** A JWS header: a JSON object with an `alg`. */
function hasHeaderWithAlg(headerAndPayload: string): boolean {
  const header = decodeJsonSegment(headerAndPayload.slice(0, headerAndPayload.indexOf('.')));
  return header !== undefined && typeof header.alg === 'string';
}

function decodeJsonSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// Issuers repeat (every OAuth token of this sandbox names the same one) and
// are public: remember the verdict for a few, so a JWT on a hot route costs no
// URL parse. Bounded in entries and in the length of what it keeps.
const ISSUER_CACHE = new Map<string, string | null>();
const ISSUER_CACHE_SIZE = 256;
const CACHED_ISSUER_LENGTH = 256;

function issuerHost(iss: string): string | undefined {
  let host = ISSUER_CACHE.get(iss);
  if (host === undefined) {
    host = parseIssuerHost(iss);
    if (iss.length <= CACHED_ISSUER_LENGTH) {
      if (ISSUER_CACHE.size >= ISSUER_CACHE_SIZE) ISSUER_CACHE.clear();
      ISSUER_CACHE.set(iss, host);
    }
  }
  return host ?? undefined;
}

function parseIssuerHost(iss: string): string | null {
  let url: URL;
  try {
    url = new URL(iss);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.hostname === '' || isReservedHostname(url.hostname)) return null;
  return url.host;
}

function isReservedHostname(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return /(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost)$/.test(name) || /^127(?:\.\d{1,3}){3}$/.test(name) || name === '[::1]';
}

/** `host`, `host:port` or a URL, as a URL's `host` (lower case, https default port dropped); undefined if malformed. */
function normalizeHost(entry: string): string | undefined {
  try {
    const url = new URL(entry.includes('://') ? entry : `https://${entry}`);
    return url.hostname === '' ? undefined : url.host;
  } catch {
    return undefined;
  }
}

const DEFAULT_GUARD = new CredentialGuard();

/** One string, with no allowed issuer hosts unless given (the gateway keeps one `CredentialGuard` instead). */
export function findProductionCredential(text: string, options?: CredentialGuardOptions): CredentialMatch | undefined {
  return (options ? new CredentialGuard(options) : DEFAULT_GUARD).find(text);
}

export function scanValues(values: Iterable<string>, options?: CredentialGuardOptions): CredentialMatch | undefined {
  return (options ? new CredentialGuard(options) : DEFAULT_GUARD).scanValues(values);
}
