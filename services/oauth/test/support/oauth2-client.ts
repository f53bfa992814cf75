import { createHash, randomBytes } from 'node:crypto';
import type { oauth } from '@sandbox/contracts';

/** A PKCE code_verifier: 256 random bits, base64url (43 characters). */
export const newVerifier = () => randomBytes(32).toString('base64url');
/** Its S256 code_challenge (RFC 7636 4.2), computed here rather than by the service's code. */
export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * A TokenRequest as the gateway hands it over: what `fields` gives, every
 * other field empty; hasScope and hasCodeVerifier say whether `fields` sent
 * scope and code_verifier.
 */
export const tokenRequestOf = (fields: Partial<oauth.TokenRequest>): oauth.TokenRequest => ({
  grantType: '',
  client: undefined,
  scope: '',
  code: '',
  redirectUri: '',
  codeVerifier: '',
  refreshToken: '',
  issuer: '',
  repeated: [],
  hasScope: fields.scope !== undefined,
  hasCodeVerifier: fields.codeVerifier !== undefined,
  ...fields,
});
