export type { OAuth2Deps } from './deps';
export { authorize } from './authorize';
export { token } from './token';
export { introspect } from './introspect';
export { revoke } from './revoke';
export { verifyAccessToken } from './verify-access-token';
export { audienceOf, ACCESS_TOKEN_TYP, type AccessTokenClaims } from './access-token';
