import type { OutgoingHttpHeaders } from 'node:http';

/**
 * One budget a request spent, as the IETF RateLimit fields carry it
 * (draft-ietf-httpapi-ratelimit-headers-11, May 2026, sections 3 and 4;
 * https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/):
 * both fields are Structured Field Lists (RFC 9651) of Items whose value is
 * the policy's name as a String, e.g.
 *   RateLimit-Policy: "app";q=100;w=2
 *   RateLimit: "app";r=42;t=1
 */
export interface LimitItem {
  /** The policy's name: app, address, app-slow, address-slow. */
  readonly name: string;
  /** Its RateLimit-Policy item. */
  readonly policy: string;
  /** Its RateLimit item. */
  readonly limit: string;
}

/** Writes the items of a request's budgets as its answer's two fields (one List each, items in the order spent). */
export function writeLimitFields(headers: OutgoingHttpHeaders, items: readonly LimitItem[]): void {
  let policy = items[0]!.policy;
  let limit = items[0]!.limit;
  for (let i = 1; i < items.length; i++) {
    policy += `, ${items[i]!.policy}`;
    limit += `, ${items[i]!.limit}`;
  }
  headers['RateLimit-Policy'] = policy;
  headers.RateLimit = limit;
}
