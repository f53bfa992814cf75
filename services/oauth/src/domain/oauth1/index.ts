export type { OAuth1Deps } from './deps';
export { requestToken } from './request-token';
export { authorize } from './authorize';
export { accessToken } from './access-token';
export { verify } from './verify';
export { ACCESS_TOKEN_LIFETIME_SECONDS, NONCE_MEMORY_MS, REQUEST_TOKEN_LIFETIME_MS, TIMESTAMP_WINDOW_SECONDS } from './state';
