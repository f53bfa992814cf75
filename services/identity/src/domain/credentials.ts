import { randomBytes } from 'node:crypto';

/**
 * Credential formats. Every secret carries 256 random bits (the four-character
 * hint leaves well over 128 unknown), base64url so it survives URLs, headers
 * and form bodies unescaped, behind a prefix a person (or a secret scanner)
 * recognises.
 */
export const PREFIX = { appId: 'app_', appSecret: 'as_', apiKey: 'ak_', bearerToken: 'bt_' } as const;
export type SecretKind = 'appSecret' | 'apiKey' | 'bearerToken';
export const SECRET_KINDS: readonly SecretKind[] = ['appSecret', 'apiKey', 'bearerToken'];

const SECRET_BYTES = 32; // 43 base64url characters
const APP_ID_BYTES = 16; // 22 characters; not a secret, but unguessable all the same

export const PATTERN = {
  appId: /^app_[A-Za-z0-9_-]{22}$/,
  appSecret: /^as_[A-Za-z0-9_-]{43}$/,
  apiKey: /^ak_[A-Za-z0-9_-]{43}$/,
  bearerToken: /^bt_[A-Za-z0-9_-]{43}$/,
  /** Apps' and users' internal ids: 96 random bits as 24 lowercase hex digits. */
  resourceId: /^[0-9a-f]{24}$/,
} as const;

export const newAppId = (): string => PREFIX.appId + randomBytes(APP_ID_BYTES).toString('base64url');
export const newSecret = (kind: SecretKind): string => PREFIX[kind] + randomBytes(SECRET_BYTES).toString('base64url');
export const newResourceId = (): string => randomBytes(12).toString('hex');

/** The last four characters: enough to tell two keys apart, nowhere near enough to guess one. */
export const hintOf = (value: string): string => value.slice(-4);
