/*
 * The realm and the WWW-Authenticate challenges every service answers with:
 * one owner, so a 401 from the gateway, the oauth service, the data service
 * or the playground names the same realm in the same words (RFC 9110 11.6.1,
 * RFC 6750 3, RFC 7617 2, RFC 5849 3.2 and each scheme's own parameters).
 */

/** The realm of every credential a learner's app holds. */
export const REALM = 'training-sandbox';
/** The portal's own realm: a session token is not an app's credential. */
export const PORTAL_REALM = 'training-sandbox-portal';

/** Challenges without per-request parameters. */
export const CHALLENGE = {
  bearer: `Bearer realm="${REALM}"`,
  basic: `Basic realm="${REALM}", charset="UTF-8"`,
  hmac: `HMAC realm="${REALM}", algorithm="HMAC-SHA256", headers="x-app-id x-timestamp x-signature"`,
  oauth1: `OAuth realm="${REALM}"`,
  digest: `Digest realm="${REALM}"`,
  portal: `Bearer realm="${PORTAL_REALM}"`,
} as const;

/** RFC 6750 3.1: the token is valid but lacks the scope the resource needs. */
export const insufficientScopeChallenge = (scope: string) => `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"`;

/** The API key style's challenge: where the key goes, and whether the one sent was refused. */
export const apiKeyChallenge = (where: string, refused: boolean) => `ApiKey realm="${REALM}", ${where}${refused ? ', error="invalid_key"' : ''}`;

/** RFC 5849 3.2 with the OAuth Problem Reporting extension's oauth_problem. */
export const oauth1ProblemChallenge = (problem: string) => `OAuth realm="${REALM}", oauth_problem="${problem}"`;
