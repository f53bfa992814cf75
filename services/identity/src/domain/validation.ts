import { invalidArgument } from '@sandbox/runtime';
import { PATTERN } from './credentials';
import { LIMITS, PACK_SCOPES, type PackScope } from './limits';

/**
 * Input rules. Each refusal is INVALID_ARGUMENT with a code and a message that
 * names the field, and every check runs before anything is written.
 */

// C0/C1 control characters; descriptions may still hold line breaks and tabs.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const length = (text: string) => [...text].length;

export function normalizeEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (email === '') throw invalidArgument('invalid_email', 'email is required.');
  if (length(email) > LIMITS.emailMax) throw invalidArgument('invalid_email', `email must be at most ${LIMITS.emailMax} characters.`);
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (at < 1 || local.length > 64 || !/^[^\s@]+$/.test(local) || !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) {
    throw invalidArgument('invalid_email', 'email must be an address such as name@example.com.');
  }
  return email;
}

export function checkPassword(password: string): string {
  const n = length(password);
  if (n < LIMITS.passwordMin) throw invalidArgument('password_too_short', `password must be at least ${LIMITS.passwordMin} characters.`);
  if (n > LIMITS.passwordMax) throw invalidArgument('password_too_long', `password must be at most ${LIMITS.passwordMax} characters.`);
  return password;
}

export function appName(input: string): string {
  const name = input.trim();
  if (name === '') throw invalidArgument('name_required', 'name is required and must not be empty.');
  if (length(name) > LIMITS.nameMax) throw invalidArgument('name_too_long', `name must be at most ${LIMITS.nameMax} characters.`);
  if (CONTROL.test(name)) throw invalidArgument('invalid_name', 'name must not contain control characters.');
  return name;
}

export function appDescription(input: string): string {
  const description = input.trim();
  if (length(description) > LIMITS.descriptionMax) {
    throw invalidArgument('description_too_long', `description must be at most ${LIMITS.descriptionMax} characters.`);
  }
  if (CONTROL_EXCEPT_WHITESPACE.test(description)) {
    throw invalidArgument('invalid_description', 'description must not contain control characters other than line breaks and tabs.');
  }
  return description;
}

/** Known pack scopes only, each once, in the canonical order. An empty list is allowed: it holds no pack. */
export function scopeList(input: readonly string[]): PackScope[] {
  for (const scope of input) {
    if (!(PACK_SCOPES as readonly string[]).includes(scope)) {
      throw invalidArgument('unknown_scope', `scopes: ${JSON.stringify(scope.slice(0, 40))} is not a pack scope; use ${PACK_SCOPES.join(', ')}.`);
    }
  }
  return PACK_SCOPES.filter((scope) => input.includes(scope));
}

// Schemes a browser would run or read locally instead of navigating to.
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/** At most ten absolute URIs, no fragment (RFC 6749 3.1.2); duplicates collapse. */
export function redirectUriList(input: readonly string[]): string[] {
  if (input.length > LIMITS.redirectUrisMax) {
    throw invalidArgument('too_many_redirect_uris', `redirectUris may hold at most ${LIMITS.redirectUrisMax} URIs (got ${input.length}).`);
  }
  const result: string[] = [];
  input.forEach((uri, index) => {
    const field = `redirectUris[${index}]`;
    if (uri.length > LIMITS.redirectUriMaxLength) {
      throw invalidArgument('invalid_redirect_uri', `${field} must be at most ${LIMITS.redirectUriMaxLength} characters.`);
    }
    if (uri.includes('#')) throw invalidArgument('invalid_redirect_uri', `${field} must not contain a fragment (#).`);
    if (/\s/.test(uri) || CONTROL.test(uri)) throw invalidArgument('invalid_redirect_uri', `${field} must not contain spaces or control characters.`);
    let parsed: URL;
    try {
      parsed = new URL(uri);
    } catch {
      throw invalidArgument('invalid_redirect_uri', `${field} must be an absolute URI such as https://example.com/callback.`);
    }
    if (!/^[a-z][a-z0-9+.-]*:/i.test(uri) || FORBIDDEN_SCHEMES.has(parsed.protocol)) {
      throw invalidArgument('invalid_redirect_uri', `${field} must use a scheme a client can be redirected to (for example https).`);
    }
    if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname === '') {
      throw invalidArgument('invalid_redirect_uri', `${field} must name a host.`);
    }
    if (!result.includes(uri)) result.push(uri);
  });
  return result;
}

export function appResourceId(id: string): string {
  if (!PATTERN.resourceId.test(id)) throw invalidArgument('invalid_app_id', 'The app id must be 24 lowercase hexadecimal characters.');
  return id;
}
