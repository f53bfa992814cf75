import { createHash, timingSafeEqual } from 'node:crypto';
import type { common } from '@sandbox/contracts';

/** A refusal of a presented credential: an answer (the gateway renders 401 with the style's challenge), never an error. */
export const refused = (reason: string): common.CredentialCheck => ({ ok: false, reason, principal: undefined });

export const accepted = (principal: common.AppPrincipal): common.CredentialCheck => ({ ok: true, reason: '', principal });

/** A time for a reason: ISO 8601 in UTC, and the Unix seconds learners compare with. */
export const when = (ms: number) => `${new Date(ms).toISOString()} (${Math.floor(ms / 1000)})`;

/** Equality without an early exit on the first difference (signatures, digests, opaque values). */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Lengths of signatures and digests are public (they follow from the algorithm).
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Store keys name what they remember by its SHA-256, never the value itself. */
export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
