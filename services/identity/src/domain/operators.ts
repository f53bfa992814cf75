import type { JWTPayload } from 'jose';

/**
 * Who is an operator (OPERATOR_EMAILS, OPERATOR_GROUPS, OPERATOR_GROUPS_CLAIM;
 * docs/operators.md). A local account counts by its email; an identity
 * provider's user by a verified email or by one of the groups its token
 * carries. A local account's email is whatever was typed at sign-up (the
 * sandbox sends no mail), so with open sign-up whoever registers an
 * operator's email first holds it: docs/operators.md says how to avoid that.
 */
export interface OperatorRule {
  emails: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  groupsClaim: string;
}

export const NO_OPERATORS: OperatorRule = { emails: new Set(), groups: new Set(), groupsClaim: 'groups' };

/** `email` is canonical (validation.ts); `claims` are an external token's, absent for a local account. */
export function isOperator(rule: OperatorRule, email: string, claims?: JWTPayload): boolean {
  if (!claims) return email !== '' && rule.emails.has(email);
  if (email !== '' && claims.email_verified === true && rule.emails.has(email)) return true;
  const groups = claims[rule.groupsClaim];
  const list = typeof groups === 'string' ? [groups] : Array.isArray(groups) ? groups : [];
  return list.some((group) => typeof group === 'string' && rule.groups.has(group));
}

/** The most groups kept on a user, and the longest group name kept: a token's claim is the provider's words, stored on every user. */
export const GROUPS_KEPT_MAX = 50;
export const GROUP_NAME_MAX = 128;

/**
 * The groups an external token names (the same claim the operator rule
 * reads), as kept on the user for a class's SSO group (classes.ts): strings
 * only, names longer than GROUP_NAME_MAX dropped, at most GROUPS_KEPT_MAX,
 * sorted so an unchanged claim is not written again.
 */
export function groupsOf(rule: OperatorRule, claims: JWTPayload): string[] {
  const groups = claims[rule.groupsClaim];
  const list: unknown[] = typeof groups === 'string' ? [groups] : Array.isArray(groups) ? groups : [];
  const kept = list.filter((group): group is string => typeof group === 'string' && group !== '' && group.length <= GROUP_NAME_MAX);
  return [...new Set(kept)].slice(0, GROUPS_KEPT_MAX).sort();
}
