import { createHash } from 'node:crypto';
import { quoteInput } from '@sandbox/runtime';

/** RFC 7636 4.1: code_verifier = 43*128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 7636 4.2: an S256 challenge is BASE64URL(SHA256(verifier)): 43 characters, no padding. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** BASE64URL-ENCODE(SHA256(ASCII(code_verifier))), RFC 7636 4.2. */
export const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** Why a code_challenge cannot be an S256 challenge, or undefined when it can. */
export function challengeProblem(challenge: string): string | undefined {
  if (S256_CHALLENGE.test(challenge)) return undefined;
  if (/[+/=]/.test(challenge)) {
    return 'code_challenge must be base64url without padding (RFC 7636 4.2): use - and _ instead of + and /, and drop any trailing =.';
  }
  return `code_challenge must be the 43-character base64url SHA-256 of the code_verifier (RFC 7636 4.2); it has ${[...challenge].length} characters.`;
}

/** Why a code_verifier is not one (RFC 7636 4.1), or undefined when it is. */
export function verifierProblem(verifier: string): string | undefined {
  if (VERIFIER.test(verifier)) return undefined;
  const length = [...verifier].length;
  if (length < 43 || length > 128) return `code_verifier must be 43 to 128 characters long (RFC 7636 4.1); it has ${length}.`;
  const bad = [...verifier].find((char) => !/[A-Za-z0-9\-._~]/.test(char))!;
  return `code_verifier may hold only A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1); it holds ${quoteInput(bad, { quotes: 'single' })}.`;
}
