export type { PlaygroundAuthDeps } from './deps';
export { issueJwt, verifyJwt, PLAYGROUND_AUDIENCE, JWT_LIFETIME_SECONDS } from './jwt';
export { verifyHmac, hmacCanonicalString, HMAC_WINDOW_SECONDS } from './hmac';
export { digestChallenge, digestVerify, digestResponse } from './digest';
