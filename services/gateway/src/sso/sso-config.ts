import { hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { decodeKey, env, needApplies, REPLICA_NEEDS, replicaCount, replicaNeedMessage } from '@sandbox/runtime';

/*
 * Single sign-on's variables (docs/identity.md, "Single sign-on"), spread into
 * the gateway's one config schema (config.ts). The provider is the one
 * identity already trusts for sessions (EXTERNAL_IDP_ISSUER); SSO_CLIENT_ID
 * turns the portal's "Sign in with …" on.
 */

const DEFAULT_SCOPES = 'openid email profile';
/** RFC 6749 3.3: a scope token is printable ASCII without space, " and \. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/** RFC 6749 2.2 leaves a client id's characters open; these keep it safe in a URL, a log line and a cookie. */
const CLIENT_ID = /^[\x21-\x7e]{1,255}$/;

const optionalText = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export function ssoVariables() {
  return {
    /** The client id registered at the provider: turns single sign-on on. The ID token's aud, so identity's EXTERNAL_IDP_AUDIENCE must equal it. */
    SSO_CLIENT_ID: optionalText().refine((v) => v === undefined || CLIENT_ID.test(v), {
      message: 'must be 1 to 255 printable ASCII characters without spaces',
    }),
    /** Unset: a public client (token_endpoint_auth_method none, PKCE all the same); set: client_secret_basic. */
    SSO_CLIENT_SECRET: optionalText(),
    /** Shown on the button, "Sign in with <name>"; unset: the issuer's host. */
    SSO_PROVIDER_NAME: optionalText().refine((v) => v === undefined || (v.length <= 60 && !/[\u0000-\u001f\u007f]/.test(v)), {
      message: 'must be at most 60 characters, without control characters',
    }),
    SSO_SCOPES: z
      .string()
      .optional()
      .transform((v) => (v === undefined || v.trim() === '' ? DEFAULT_SCOPES : v.trim()))
      .refine((v) => v.split(/\s+/).every((s) => SCOPE_TOKEN.test(s)), { message: 'must be scope names separated by spaces' })
      .refine((v) => v.split(/\s+/).includes('openid'), { message: 'must include openid (the ID token is the session)' }),
    /** Seals the short-lived sign-in cookies: 32 bytes or more, base64url or hex. Unset: random per process (one replica only). */
    SSO_COOKIE_KEY: env.optionalKey(),
    /** Identity's variable, read only to refuse a mismatch: the audience identity expects of the provider's tokens. */
    EXTERNAL_IDP_AUDIENCE: optionalText(),
  };
}

type SsoVariables = {
  EXTERNAL_IDP_ISSUER?: string;
  EXTERNAL_IDP_AUDIENCE?: string;
  SSO_CLIENT_ID?: string;
  SSO_CLIENT_SECRET?: string;
  SSO_PROVIDER_NAME?: string;
  SSO_SCOPES: string;
  SSO_COOKIE_KEY?: string;
};

/** Hosts an http:// issuer may have: this machine only (a test's provider), never a network. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || /^127(?:\.\d{1,3}){3}$/.test(name) || name === '::1';
}

/** The superRefine of the gateway's schema: each problem one line naming its variable. */
export function checkSso(v: SsoVariables & Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (!v.SSO_CLIENT_ID) {
    for (const name of ['SSO_CLIENT_SECRET', 'SSO_PROVIDER_NAME'] as const) {
      if (v[name]) ctx.addIssue({ code: 'custom', path: ['SSO_CLIENT_ID'], message: `is required with ${name}: it turns single sign-on on` });
    }
    return;
  }
  if (!v.EXTERNAL_IDP_ISSUER) {
    ctx.addIssue({
      code: 'custom',
      path: ['EXTERNAL_IDP_ISSUER'],
      message: 'is required with SSO_CLIENT_ID: the OpenID Connect provider to sign in through (identity trusts its tokens through the same variable)',
    });
    return;
  }
  if (v.EXTERNAL_IDP_AUDIENCE && v.EXTERNAL_IDP_AUDIENCE !== v.SSO_CLIENT_ID) {
    ctx.addIssue({
      code: 'custom',
      path: ['EXTERNAL_IDP_AUDIENCE'],
      message: `must equal SSO_CLIENT_ID (${v.SSO_CLIENT_ID}): an ID token's audience is the client it was issued to, so identity would refuse every sign-in`,
    });
  }
  let issuer: URL;
  try {
    issuer = new URL(v.EXTERNAL_IDP_ISSUER);
  } catch {
    ctx.addIssue({ code: 'custom', path: ['EXTERNAL_IDP_ISSUER'], message: 'must be a URL' });
    return;
  }
  if (issuer.search || issuer.hash || issuer.username || issuer.password) {
    ctx.addIssue({
      code: 'custom',
      path: ['EXTERNAL_IDP_ISSUER'],
      message: 'must be an issuer identifier: no query, fragment or user information (OpenID Connect Discovery 1.0, section 2)',
    });
  } else if (issuer.protocol === 'http:' && !isLoopbackHost(issuer.hostname)) {
    ctx.addIssue({
      code: 'custom',
      path: ['EXTERNAL_IDP_ISSUER'],
      message: 'must be an https URL for single sign-on (http only on a loopback host such as 127.0.0.1, for a provider on this machine)',
    });
  }
  for (const need of REPLICA_NEEDS.gateway) {
    const replicas = replicaCount(v, 'gateway');
    if (replicas.count > 1 && needApplies(need, v) && !v[need.variable])
      ctx.addIssue({ code: 'custom', path: [need.variable], message: replicaNeedMessage(need, 'gateway', replicas) });
  }
}

export interface SsoSettings {
  /** The issuer identifier exactly as configured (what discovery must answer, and what identity compares `iss` with). */
  issuer: string;
  clientId: string;
  clientSecret?: string;
  providerName: string;
  scopes: string;
  /** The A256GCM key of the sealed cookies (32 bytes). */
  cookieKey: Uint8Array;
  /** True when SSO_COOKIE_KEY was unset and this process made its own (composition.ts warns). */
  cookieKeyIsRandom: boolean;
  /** An http:// issuer on loopback: openid-client's allowInsecureRequests. */
  insecureIssuer: boolean;
}

/**
 * The settings the sso/ module reads, or undefined when SSO is off. The
 * cookie key is derived with HKDF from SSO_COOKIE_KEY (which may be longer
 * than 32 bytes, and is thus kept to this one purpose).
 */
export function ssoSettings(v: SsoVariables): SsoSettings | undefined {
  if (!v.SSO_CLIENT_ID || !v.EXTERNAL_IDP_ISSUER) return undefined;
  const issuer = new URL(v.EXTERNAL_IDP_ISSUER);
  const material = v.SSO_COOKIE_KEY ? decodeKey(v.SSO_COOKIE_KEY) : randomBytes(32);
  return {
    issuer: v.EXTERNAL_IDP_ISSUER,
    clientId: v.SSO_CLIENT_ID,
    clientSecret: v.SSO_CLIENT_SECRET,
    providerName: v.SSO_PROVIDER_NAME ?? issuer.host,
    scopes: v.SSO_SCOPES.split(/\s+/).join(' '),
    cookieKey: new Uint8Array(hkdfSync('sha256', material, Buffer.alloc(0), 'training-sandbox sso cookies', 32)),
    cookieKeyIsRandom: !v.SSO_COOKIE_KEY,
    insecureIssuer: issuer.protocol === 'http:',
  };
}
