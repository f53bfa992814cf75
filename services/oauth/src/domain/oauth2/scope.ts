import { quoteInput } from '@sandbox/runtime';
import { oauthError } from './errors';

/** RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The scopes a request asked for, each once, or undefined when it asked for
 * none. An empty or blank `scope` counts as none (several tools send `scope=`
 * when nothing is configured); runs of spaces are read as one separator.
 */
export function requestedScopes(raw: string): string[] | undefined {
  const tokens = raw.split(' ').filter((token) => token !== '');
  if (tokens.length === 0) return undefined;
  for (const token of tokens) {
    if (!SCOPE_TOKEN.test(token)) {
      throw oauthError(
        'invalid_scope',
        `scope ${quoteInput(raw, { quotes: 'single' })} is malformed: scopes are separated by single spaces and hold only printable ASCII other than double quote and backslash (RFC 6749 3.3).`,
      );
    }
  }
  return [...new Set(tokens)];
}

/**
 * Refuses (invalid_scope) a request for anything outside `allowed`; `what`
 * says whose scopes those are ("the app holds", "the grant was given").
 */
export function requireSubset(requested: readonly string[], allowed: readonly string[], what: string, advice: string): void {
  const outside = requested.filter((scope) => !allowed.includes(scope));
  if (outside.length === 0) return;
  const comma = outside.find((scope) => scope.includes(','));
  const hint = comma ? ` Scopes are separated by spaces, not commas: ${quoteInput(comma, { quotes: 'single' })} reads as one scope.` : '';
  const held = allowed.length ? allowed.join(' ') : 'none';
  throw oauthError(
    'invalid_scope',
    `${outside.map((scope) => quoteInput(scope, { quotes: 'single' })).join(', ')} ${outside.length === 1 ? 'is' : 'are'} not among the scopes ${what} (${held}).${hint} ${advice}`,
  );
}

/** `scopes` in the order of `reference` (the app's own order), so answers read the same whatever order a request used. */
export function inOrderOf(scopes: readonly string[], reference: readonly string[]): string[] {
  const known = reference.filter((scope) => scopes.includes(scope));
  return [...known, ...scopes.filter((scope) => !reference.includes(scope))];
}

/** The scopes of `scopes` the app still holds: what a token can do today. */
export const stillHeld = (scopes: readonly string[], appScopes: readonly string[]) => appScopes.filter((scope) => scopes.includes(scope));

/** RFC 6749 3.3's wire form. */
export const scopeString = (scopes: readonly string[]) => scopes.join(' ');
