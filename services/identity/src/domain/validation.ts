import * as ipaddr from 'ipaddr.js';
import isEmail from 'validator/lib/isEmail';
import { invalidArgument, quoteInput } from '@sandbox/runtime';
import { PATTERN } from './credentials';
import { LIMITS, PACK_SCOPES, type PackScope } from './limits';
import { forbiddenCharacter } from './text-rules';

/**
 * Input rules. Each refusal is INVALID_ARGUMENT with a code and a message that
 * names the field, and every check runs before anything is written.
 */

const length = (text: string) => [...text].length;
const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * Options for the validator package's isEmail (the format check): UTF-8 local
 * parts allowed, a dotted domain with a top-level domain, no IP-literal domain,
 * no display name ("Ada <ada@example.com>"), no quoted local part ('"' refused:
 * "ada"@example.com and ada@example.com are one mailbox, so allowing both would
 * give one mailbox two accounts).
 */
const EMAIL_FORMAT = {
  allow_utf8_local_part: true,
  require_tld: true,
  allow_ip_domain: false,
  allow_display_name: false,
  allow_underscores: false,
  blacklisted_chars: '"',
} as const;

/**
 * The one canonical form of an email, which is also the account's identity
 * ("password:<canonical email>"), so no two spellings of one address make two
 * accounts and no two addresses share one (docs/security.md, "Account identity"):
 *
 * 1. refused if it holds a control character, a format character (Cf), U+FFFD
 *    or an unpaired surrogate (text-rules.ts), anywhere, ends included;
 * 2. surrounding white space removed (what is pasted often carries some);
 * 3. Unicode NFC: a composed and a decomposed "é" are the same address;
 * 4. the whole address lower-cased with Unicode's default, locale-independent
 *    mapping (String.prototype.toLowerCase): the domain because DNS ignores
 *    case, the local part because identity has always treated it so (RFC 5321
 *    lets a server tell "Ada" from "ada"; practically none does, and people do
 *    not expect it), then NFC again, since lower-casing can leave text that is
 *    not in NFC;
 * 5. refused unless the validator package's isEmail accepts it, and unless it
 *    has no white space inside, at most 254 characters, and at most 64 bytes
 *    before the "@".
 *
 * Nothing else is folded: no compatibility mapping (NFKC: a full-width "ａ" is
 * not "a"), no dots or "+tags" removed, no IDNA (a Unicode domain and its
 * "xn--" form are different accounts).
 */
export function normalizeEmail(input: string): string {
  const refuse = (rule: string) => invalidArgument('invalid_email', `email ${rule}.`);
  const bad = forbiddenCharacter(input);
  if (bad) throw refuse(`must not contain ${bad}`);
  const trimmed = input.trim();
  if (trimmed === '') throw refuse('is required');
  if (/\s/u.test(trimmed)) throw refuse('must not contain spaces');
  const email = trimmed.normalize('NFC').toLowerCase().normalize('NFC');
  if (length(email) > LIMITS.emailMax) throw refuse(`must be at most ${LIMITS.emailMax} characters`);
  const at = email.lastIndexOf('@');
  if (at > 0 && utf8Bytes(email.slice(0, at)) > LIMITS.emailLocalMaxBytes) {
    throw refuse(`must have at most ${LIMITS.emailLocalMaxBytes} bytes before the @`);
  }
  if (email.startsWith('"')) throw refuse('must not use a quoted local part ("…"@example.com)');
  if (!isEmail(email, EMAIL_FORMAT)) throw refuse('must be an address such as name@example.com');
  return email;
}

/** An email a trusted identity provider asserts, for display only: its canonical form, or empty when it breaks the rules. */
export function displayEmail(claim: unknown): string {
  if (typeof claim !== 'string') return '';
  try {
    return normalizeEmail(claim);
  } catch {
    return '';
  }
}

export function checkPassword(password: string): string {
  const n = length(password);
  if (n < LIMITS.passwordMin) throw invalidArgument('password_too_short', `password must be at least ${LIMITS.passwordMin} characters.`);
  if (n > LIMITS.passwordMax) throw invalidArgument('password_too_long', `password must be at most ${LIMITS.passwordMax} characters.`);
  return password;
}

/** Names and descriptions follow the same character rules as emails (text-rules.ts), then NFC, then trimming. */
export function appName(input: string): string {
  const bad = forbiddenCharacter(input);
  if (bad) throw invalidArgument('invalid_name', `name must not contain ${bad}.`);
  const name = input.normalize('NFC').trim();
  if (name === '') throw invalidArgument('name_required', 'name is required and must not be empty.');
  if (length(name) > LIMITS.nameMax) throw invalidArgument('name_too_long', `name must be at most ${LIMITS.nameMax} characters.`);
  return name;
}

export function appDescription(input: string): string {
  const bad = forbiddenCharacter(input, { allowLineBreaks: true });
  if (bad) throw invalidArgument('invalid_description', `description must not contain ${bad}.`);
  const description = input.normalize('NFC').trim();
  if (length(description) > LIMITS.descriptionMax) {
    throw invalidArgument('description_too_long', `description must be at most ${LIMITS.descriptionMax} characters.`);
  }
  return description;
}

/** Known pack scopes only, each once, in the canonical order. An empty list is allowed: it holds no pack. */
export function scopeList(input: readonly string[]): PackScope[] {
  for (const scope of input) {
    if (!(PACK_SCOPES as readonly string[]).includes(scope)) {
      throw invalidArgument('unknown_scope', `scopes: ${quoteInput(scope)} is not a pack scope; use ${PACK_SCOPES.join(', ')}.`);
    }
  }
  return PACK_SCOPES.filter((scope) => input.includes(scope));
}

/**
 * Redirect URIs, by allow-list (docs/security.md, "Redirect URIs"). OAuth
 * sends codes and tokens to them, so anything a parser could read two ways is
 * refused rather than repaired; each one is stored exactly as given and later
 * compared by exact string match (RFC 6749 3.1.2, RFC 8252 8.4 and the OAuth
 * 2.0 Security BCP, RFC 9700 4.1.3).
 */
export function redirectUriList(input: readonly string[]): string[] {
  if (input.length > LIMITS.redirectUrisMax) {
    throw invalidArgument('too_many_redirect_uris', `redirectUris may hold at most ${LIMITS.redirectUrisMax} URIs (got ${input.length}).`);
  }
  const result: string[] = [];
  input.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidArgument('invalid_redirect_uri', `redirectUris[${index}] ${quoteInput(uri)} is refused: ${problem}.`);
    if (!result.includes(uri)) result.push(uri);
  });
  return result;
}

/** Schemes refused with their own reason, so the message says why rather than only "not allowed". */
const REFUSED_SCHEMES: Record<string, string> = {
  javascript: 'the javascript: scheme runs script instead of navigating',
  vbscript: 'the vbscript: scheme runs script instead of navigating',
  data: 'the data: scheme carries its own content instead of naming a receiver',
  'view-source': 'the view-source: scheme shows a page instead of delivering to it',
  jar: 'the jar: scheme reads inside archives, not a receiver of redirects',
  file: 'the file: scheme reads local files, not a receiver of redirects',
  blob: 'the blob: scheme names data inside a browser, not a receiver of redirects',
  filesystem: 'the filesystem: scheme names data inside a browser, not a receiver of redirects',
  about: 'the about: scheme names browser pages, not a receiver of redirects',
  ftp: 'the ftp: scheme is not a web redirect target',
  ws: 'the ws: scheme is a WebSocket address, not a redirect target',
  wss: 'the wss: scheme is a WebSocket address, not a redirect target',
};

const ALLOWED_SCHEMES =
  'use https://host/…, http:// only with a loopback host (127.0.0.1, [::1] or localhost), ' +
  'or a private-use scheme in reverse-domain form such as com.example.app:/callback';
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** RFC 8252 7.1: a private-use scheme is a reversed domain name, so it holds at least one dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;

/** Why `uri` may not be a redirect URI (words that follow "is refused:"), or undefined when it may. */
export function redirectUriProblem(uri: string): string | undefined {
  if (length(uri) > LIMITS.redirectUriMaxLength) return `it is longer than ${LIMITS.redirectUriMaxLength} characters`;
  if (uri === '') return 'it is empty';
  const bad = forbiddenCharacter(uri);
  // The URL parser silently drops tabs and line breaks ("java\nscript:"), so they are refused before it runs.
  if (bad) return `it contains ${bad}`;
  if (/\s/u.test(uri)) return 'it contains white space';
  if (uri.includes('\\')) return 'it contains a backslash, which URL parsers disagree about (some read it as "/")';
  if (uri.includes('#')) return 'it has a fragment (#), which a redirect URI must not have (RFC 6749 3.1.2)';
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'it is not an absolute URI: it must start with a scheme such as https://';
  const named = REFUSED_SCHEMES[scheme];
  if (named) return named;
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'it is not a valid URL';
  }
  const afterScheme = uri.slice(scheme.length + 1);
  const authority = afterScheme.startsWith('//') ? afterScheme.slice(2).split(/[/?]/, 1)[0] : undefined;
  if (authority?.includes('@') || parsed.username !== '' || parsed.password !== '') {
    return 'it carries user information (user@ or user:password@ before the host), which can disguise the real host';
  }
  if (scheme === 'https' || scheme === 'http') {
    // "https:evil.com" and "https:/evil.com" parse as https://evil.com/ in WHATWG parsers but not in others.
    if (authority === undefined) return `it must be written with "//" after the scheme (${scheme}://host/…)`;
    if (authority === '' || parsed.hostname === '') return 'it names no host';
    if (scheme === 'http' && !isLoopbackHost(parsed.hostname)) {
      return 'http is allowed only for a loopback host (127.0.0.0/8, [::1] or localhost: native apps, RFC 8252 7.3); use https';
    }
    return undefined;
  }
  if (PRIVATE_USE_SCHEME.test(scheme)) return undefined;
  return `the scheme "${scheme}:" is not allowed: ${ALLOWED_SCHEMES}`;
}

/** The WHATWG parser has already canonicalised the host (127.1 and 0x7f.0.0.1 are 127.0.0.1; [0::1] is [::1]). */
function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (!ipaddr.IPv4.isValidFourPartDecimal(literal) && !(literal !== hostname && ipaddr.IPv6.isValid(literal))) return false;
  const address = ipaddr.parse(literal);
  // An IPv4-mapped IPv6 loopback ([::ffff:127.0.0.1]) is not one of RFC 8252's forms: its range is ipv4Mapped.
  return address.range() === 'loopback';
}

/**
 * Whether `id` has the form of an app id. Not a refusal of its own: an id of
 * another form names no app, so it gets exactly what an unknown id gets
 * (404 app_not_found), at the same point, and the form rule stays invisible.
 */
export const isAppResourceId = (id: string): boolean => PATTERN.resourceId.test(id);
