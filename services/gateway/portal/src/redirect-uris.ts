/*
 * The page's own check of redirect URIs, so a learner hears about a mistake
 * before saving. Identity's rule (services/identity/src/domain/validation.ts,
 * redirectUriProblem; docs/security.md "Redirect URIs") stays the one that
 * decides: the API's refusal is shown too. A unit test holds the two to the
 * same verdict on a corpus of URIs.
 */

export const REDIRECT_URIS_MAX = 10;
const REDIRECT_URI_MAX_LENGTH = 2000;

const REFUSED_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'view-source', 'jar', 'file', 'blob', 'filesystem', 'about', 'ftp', 'ws', 'wss']);
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;
/** Control (Cc) and format (Cf) characters, U+FFFD, and lone surrogates. */
const FORBIDDEN = /[\p{Cc}\p{Cf}\uFFFD]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;

const ALLOWED = 'use https://host/…, http:// only with 127.0.0.1, [::1] or localhost, or an app scheme such as com.example.app:/callback';

/** Why `uri` cannot be a redirect URI, in words for the page; undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri === '') return 'Enter a URI, or remove this field.';
  if ([...uri].length > REDIRECT_URI_MAX_LENGTH) return `It is longer than ${REDIRECT_URI_MAX_LENGTH} characters.`;
  if (FORBIDDEN.test(uri)) return 'It contains an invisible or control character.';
  if (/\s/u.test(uri)) return 'It contains white space.';
  if (uri.includes('\\')) return 'It contains a backslash.';
  if (uri.includes('#')) return 'It has a fragment (#): a redirect URI must not have one.';
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return `It is not absolute: ${ALLOWED}.`;
  if (REFUSED_SCHEMES.has(scheme)) return `The ${scheme}: scheme cannot receive a redirect: ${ALLOWED}.`;
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'It is not a valid URL.';
  }
  const afterScheme = uri.slice(scheme.length + 1);
  const authority = afterScheme.startsWith('//') ? afterScheme.slice(2).split(/[/?]/, 1)[0] : undefined;
  if (authority?.includes('@') || parsed.username !== '' || parsed.password !== '') return 'It carries user information (user@ before the host).';
  if (scheme === 'https' || scheme === 'http') {
    if (authority === undefined) return `Write "//" after the scheme (${scheme}://host/…).`;
    if (authority === '' || parsed.hostname === '') return 'It names no host.';
    if (scheme === 'http' && !isLoopback(parsed.hostname)) return 'http is allowed only for 127.0.0.1, [::1] or localhost; use https.';
    return undefined;
  }
  if (PRIVATE_USE_SCHEME.test(scheme)) return undefined;
  return `The scheme "${scheme}:" is not allowed: ${ALLOWED}.`;
}

/** After the WHATWG parser's canonicalisation (127.1 is 127.0.0.1, [0::1] is [::1]). */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Index of the field an API refusal names ("redirectUris[2] … is refused"), if any. */
export function fieldOfRefusal(message: string): number | undefined {
  const match = /redirectUris\[(\d+)\]/.exec(message);
  return match ? Number(match[1]) : undefined;
}
