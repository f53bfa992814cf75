import { createHmac, randomBytes } from 'node:crypto';
import type { common, oauth } from '@sandbox/contracts';
import { invalidArgument, quoteInput, unauthenticated } from '@sandbox/runtime';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { usable, type DirectoryApp } from '../app-directory';
import { epochSeconds } from '../clock';
import type { PlaygroundAuthDeps } from './deps';
import { accepted, refused, sameText, when } from './text';

/**
 * The audience of every playground JWT. Fixed rather than derived from the
 * public base URL: one value learners can type, the same behind any proxy.
 */
export const PLAYGROUND_AUDIENCE = 'urn:training-sandbox:playground';
/** How long an issued token lasts. */
export const JWT_LIFETIME_SECONDS = 3600;
/** The only algorithms accepted, each with the one key it is checked with. */
export const JWT_ALGORITHMS = ['HS256', 'RS256'] as const;
type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** The claims of a playground JWT (docs/auth-playground.md). */
export interface PlaygroundJwtClaims {
  iss: string;
  /** The App ID. */
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  /** The app's scopes when issued, space-separated (RFC 8693 4.2 style). */
  scope: string;
}

const ISSUE_AGAIN = 'get a new one from POST /playground/auth/jwt/issue';
const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * Two tokens with the same claims: HS256 keyed with the app's API key (its
 * UTF-8 bytes, as the learner holds it) and RS256 signed with the sandbox's
 * key (header kid = its RFC 7638 thumbprint). The gateway has already checked
 * the App ID and App Secret; an app revoked or deleted since is refused here.
 */
export async function issueJwt(deps: PlaygroundAuthDeps, request: oauth.IssueJwtRequest, requestId?: string): Promise<oauth.IssueJwtResponse> {
  if (!request.issuer) throw invalidArgument('invalid_request', 'issuer is required.');
  const app = await deps.apps.signingKey(request.appId, requestId);
  if (!app.found || !app.principal) throw unauthenticated('app_not_found', `No app has the App ID ${quoteInput(request.appId, { quotes: 'single' })}.`);
  if (!app.active || !app.apiKey)
    throw unauthenticated('app_revoked', `The app ${quoteInput(request.appId, { quotes: 'single' })} is revoked: it gets no tokens.`);
  const iat = epochSeconds(deps.clock);
  const claims: PlaygroundJwtClaims = {
    iss: request.issuer,
    sub: request.appId,
    aud: PLAYGROUND_AUDIENCE,
    iat,
    exp: iat + JWT_LIFETIME_SECONDS,
    jti: randomBytes(16).toString('base64url'),
    scope: app.principal.scopes.join(' '),
  };
  const [hs256, rs256] = await Promise.all([
    new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(utf8(app.apiKey)),
    new SignJWT({ ...claims }).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: deps.signingKey.kid }).sign(deps.signingKey.privateKey),
  ]);
  return { hs256, rs256, expiresIn: JWT_LIFETIME_SECONDS, audience: PLAYGROUND_AUDIENCE, issuer: request.issuer };
}

/** The parts of a compact JWS, decoded but not verified: only to learn which key to verify with. */
interface Unverified {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

function decodeUnverified(token: string): Unverified | string {
  const parts = token.split('.');
  if (parts.length === 5)
    return 'The token is an encrypted JWT (JWE, five parts); this endpoint takes a signed JWT (JWS, three parts) from POST /playground/auth/jwt/issue.';
  if (parts.length !== 3)
    return `The token is not a JWT: a JWT is three base64url parts separated by dots (header.payload.signature); this has ${parts.length}.`;
  const decode = (part: string, name: string): Record<string, unknown> | string => {
    if (!/^[A-Za-z0-9_-]+$/.test(part)) return `The token's ${name} is not base64url (A-Z a-z 0-9 - _, no padding).`;
    try {
      const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // reported below
    }
    return `The token's ${name} is not a base64url-encoded JSON object.`;
  };
  const header = decode(parts[0], 'header');
  if (typeof header === 'string') return header;
  const payload = decode(parts[1], 'payload');
  if (typeof payload === 'string') return payload;
  return { header, payload };
}

function algorithmProblem(alg: unknown): string | undefined {
  if (typeof alg !== 'string') return 'The token\'s header has no alg: it must say "HS256" or "RS256".';
  if (alg.toLowerCase() === 'none') {
    return 'alg "none" is refused: an unsigned token proves nothing. Use HS256 (keyed with your API key) or RS256 (from POST /playground/auth/jwt/issue).';
  }
  if ((JWT_ALGORITHMS as readonly string[]).includes(alg)) return undefined;
  const hint = (JWT_ALGORITHMS as readonly string[]).includes(alg.toUpperCase()) ? ` alg names are case-sensitive: write "${alg.toUpperCase()}".` : '';
  return `alg ${quoteInput(alg, { quotes: 'single' })} is not supported: this endpoint accepts HS256 (keyed with your API key) and RS256 (the sandbox's key) only.${hint}`;
}

/**
 * Whether an HS256 token was signed with the sandbox's public key as its
 * HMAC secret: the algorithm-confusion attack. Only to name it in the refusal;
 * such a token is never accepted (HS256 is checked with the app's API key only).
 */
function signedWithPublicKey(token: string, publicPem: string): boolean {
  const dot = token.lastIndexOf('.');
  const input = token.slice(0, dot);
  const signature = token.slice(dot + 1);
  const variants = new Set([publicPem, publicPem.trimEnd(), `${publicPem.trimEnd()}\n`]);
  return [...variants].some((pem) => sameText(createHmac('sha256', pem).update(input).digest('base64url'), signature));
}

/**
 * A bearer JWT from POST /playground/auth/jwt/issue (or one a learner signed
 * with their API key). The unverified `sub` names the app; the header's alg
 * picks the one key that alg is checked with (HS256: the app's API key;
 * RS256: the sandbox's public key; nothing else, never the other way round).
 * Then exp (by the injected clock), aud, and the app still active. The
 * principal's scopes are the token's `scope` within what the app holds now.
 */
export async function verifyJwt(deps: PlaygroundAuthDeps, token: string, requestId?: string): Promise<oauth.VerifyJwtResponse> {
  const answer = (check: common.CredentialCheck, algorithm = '') => ({ check, algorithm });
  if (token === '') return answer(refused('No token was given: send Authorization: Bearer <a JWT from POST /playground/auth/jwt/issue>.'));
  const unverified = decodeUnverified(token);
  if (typeof unverified === 'string') return answer(refused(unverified));
  const { header, payload } = unverified;
  const problem = algorithmProblem(header.alg);
  if (problem) return answer(refused(problem), typeof header.alg === 'string' ? header.alg : '');
  const alg = header.alg as JwtAlgorithm;
  if (header.typ === 'at+jwt') {
    return answer(
      refused(
        'This is an OAuth 2.0 access token (typ at+jwt), not a playground JWT: use it at /playground/auth/oauth2, or get a playground JWT from POST /playground/auth/jwt/issue.',
      ),
      alg,
    );
  }
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub === '')
    return answer(refused('The token has no sub claim: sub must be your App ID (it says which app the token is for).'), alg);

  if (alg === 'HS256') {
    // A remembered key the token was not signed with, or an app without the token's scopes, is read again first (a rotation or a scope given a moment ago).
    const app = await deps.apps.signingKey(sub, requestId, (key) => holdsScopeOf(key, payload) && key.apiKey !== '' && hs256SignedWith(token, key.apiKey));
    if (!app.found || !app.principal) return answer(refused(`sub ${quoteInput(sub, { quotes: 'single' })} is not the App ID of any app here.`), alg);
    if (!app.active || !app.apiKey) return answer(refused(`The app ${quoteInput(sub, { quotes: 'single' })} is revoked: its tokens are refused.`), alg);
    const verified = await verifySignature(deps, token, 'HS256', utf8(app.apiKey));
    if (!verified.ok) {
      const reason =
        verified.signature && signedWithPublicKey(token, deps.signingKey.publicPem)
          ? "The signature does not match: this token is HS256 signed with the sandbox's RS256 public key as the HMAC secret (the algorithm-confusion attack). HS256 tokens are checked with your API key only, never with the public key."
          : verified.reason;
      return answer(refused(reason), alg);
    }
    return answer(withScope(app.principal, verified.payload), alg);
  }

  const verified = await verifySignature(deps, token, 'RS256', deps.signingKey.publicKey, header.kid);
  if (!verified.ok) return answer(refused(verified.reason), alg);
  const app = await deps.apps.lookup(sub, requestId, (view) => holdsScopeOf(view, verified.payload));
  if (!app.found || !app.principal)
    return answer(refused(`sub ${quoteInput(sub, { quotes: 'single' })} is not the App ID of any app here (deleted since the token was issued?).`), alg);
  if (!app.active) return answer(refused(`The app ${quoteInput(sub, { quotes: 'single' })} is revoked: its tokens are refused.`), alg);
  return answer(withScope(app.principal, verified.payload), alg);
}

/** The app is usable and holds every scope the token names: what the directory answers from memory without reading it again. */
function holdsScopeOf(app: Pick<DirectoryApp, 'found' | 'active' | 'principal'>, payload: Record<string, unknown>): boolean {
  const scope = typeof payload.scope === 'string' ? payload.scope.split(' ').filter((name) => name !== '') : [];
  return usable(app) && scope.every((name) => app.principal!.scopes.includes(name));
}

/** Whether an HS256 token's signature is the key's: only to choose the key (jose checks the token itself, below). */
function hs256SignedWith(token: string, key: string): boolean {
  const dot = token.lastIndexOf('.');
  return sameText(createHmac('sha256', key).update(token.slice(0, dot)).digest('base64url'), token.slice(dot + 1));
}

/** The token may do what its scope says, within what the app holds today (the scope claim decides 403 on the data endpoint). */
function withScope(principal: common.AppPrincipal, payload: JWTPayload): common.CredentialCheck {
  const scope = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
  return accepted({ ...principal, scopes: principal.scopes.filter((held) => scope.includes(held)) });
}

type SignatureCheck = { ok: true; payload: JWTPayload } | { ok: false; reason: string; signature?: true };

async function verifySignature(
  deps: PlaygroundAuthDeps,
  token: string,
  alg: JwtAlgorithm,
  key: Uint8Array | PlaygroundAuthDeps['signingKey']['publicKey'],
  kid?: unknown,
): Promise<SignatureCheck> {
  const now = deps.clock();
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [alg],
      audience: PLAYGROUND_AUDIENCE,
      currentDate: new Date(now),
      requiredClaims: ['sub', 'aud', 'exp'],
    });
    if (payload.scope !== undefined && typeof payload.scope !== 'string') {
      return { ok: false, reason: "The token's scope claim must be a string of scopes separated by spaces." };
    }
    return { ok: true, payload };
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      if (alg === 'HS256') {
        return {
          ok: false,
          signature: true,
          reason:
            "The signature does not match: HS256 tokens are checked with your app's API key (its text as UTF-8 bytes, not base64-decoded, not the App Secret). The token was altered, or signed with another key.",
        };
      }
      const otherKid =
        typeof kid === 'string' && kid !== deps.signingKey.kid
          ? ` Its kid ${quoteInput(kid, { quotes: 'single' })} is not the sandbox's key (kid ${deps.signingKey.kid}).`
          : '';
      return {
        ok: false,
        signature: true,
        reason: `The signature does not match the sandbox's RS256 public key (GET /playground/auth/jwt/public-key): the token was altered, or signed elsewhere.${otherKid}`,
      };
    }
    if (error instanceof errors.JWTExpired) {
      const exp = Number(error.payload.exp);
      return {
        ok: false,
        reason: `The token expired at ${when(exp * 1000)}; server time is ${when(now)}. Tokens last ${JWT_LIFETIME_SECONDS / 3600} hour: ${ISSUE_AGAIN}.`,
      };
    }
    if (error instanceof errors.JWTClaimValidationFailed) return { ok: false, reason: claimProblem(error, now) };
    if (error instanceof errors.JOSENotSupported)
      return { ok: false, reason: 'The token uses a JOSE header feature this endpoint does not support (crit, b64 or similar): sign a plain JWT.' };
    if (error instanceof errors.JOSEError)
      return { ok: false, reason: 'The token is not a well-formed signed JWT (its header, payload or signature could not be read).' };
    throw error;
  }
}

function claimProblem(error: InstanceType<typeof errors.JWTClaimValidationFailed>, now: number): string {
  const { claim, reason, payload } = error;
  if (reason === 'missing') {
    const why = { sub: 'your App ID', aud: `"${PLAYGROUND_AUDIENCE}"`, exp: 'when it expires, in Unix seconds' }[claim] ?? 'required';
    return `The token has no ${claim} claim (${why}).`;
  }
  if (claim === 'aud') {
    // In JSON's notation, as the claim is written: a string quoted, an array as an array.
    return `Wrong aud: expected "${PLAYGROUND_AUDIENCE}", received ${quoteInput(payload.aud, { max: 120 })}.`;
  }
  if (claim === 'nbf' && typeof payload.nbf === 'number')
    return `The token is not valid before ${when(payload.nbf * 1000)} (its nbf); server time is ${when(now)}.`;
  return `The token's ${claim} claim is not valid (${claim === 'exp' || claim === 'iat' || claim === 'nbf' ? 'it must be a number of Unix seconds' : reason}).`;
}
