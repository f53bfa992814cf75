import { createHash } from 'node:crypto';
import type { common, oauth } from '@sandbox/contracts';
import { invalidArgument, quoteInput } from '@sandbox/runtime';
import { storeTtl } from '../stored-records';
import { usable } from '../app-directory';
import type { PlaygroundAuthDeps } from './deps';
import { parseDigestAuthorization } from './digest-header';
import { mintNonce, NONCE_CLOCK_TOLERANCE_MS, NONCE_LIFETIME_MS, nonceKey, opaqueFor, openNonce } from './digest-nonce';
import { accepted, refused, sameText, sha256Hex, when } from './text';

/** The algorithms offered (SHA-256 first: curl --digest answers the first challenge) and accepted. */
export const DIGEST_CHALLENGE_ALGORITHMS = ['SHA-256', 'MD5'] as const;
export const DIGEST_ALGORITHMS = ['SHA-256', 'SHA-256-sess', 'MD5', 'MD5-sess'] as const;
export type DigestAlgorithm = (typeof DIGEST_ALGORITHMS)[number];
/** How long a nonce's last count is kept beyond the nonce's life (replicas whose clocks differ). */
export const NC_MARGIN_MS = 60_000;

/** The last accepted nonce count of one nonce (after the store's own prefix). */
export const digestNcKey = (nonce: string) => `playground:digest:nc:${sha256Hex(nonce)}`;

/** The values a Digest response is computed from (RFC 7616 3.4.1), as the client sent them. */
export interface DigestInputs {
  algorithm: DigestAlgorithm;
  username: string;
  realm: string;
  password: string;
  method: string;
  uri: string;
  nonce: string;
  nc: string;
  cnonce: string;
  qop: string;
}

/** RFC 7616 3.4.1: response = KD(H(A1), nonce:nc:cnonce:qop:H(A2)) with qop=auth; A1 gains nonce and cnonce for -sess. */
export function digestResponse(inputs: DigestInputs): string {
  const hash = inputs.algorithm.startsWith('SHA-256') ? 'sha256' : 'md5';
  const H = (text: string) => createHash(hash).update(text, 'utf8').digest('hex');
  const userHash = H(`${inputs.username}:${inputs.realm}:${inputs.password}`);
  const ha1 = inputs.algorithm.endsWith('-sess') ? H(`${userHash}:${inputs.nonce}:${inputs.cnonce}`) : userHash;
  const ha2 = H(`${inputs.method}:${inputs.uri}`);
  return H(`${ha1}:${inputs.nonce}:${inputs.nc}:${inputs.cnonce}:${inputs.qop}:${ha2}`);
}

/**
 * The WWW-Authenticate values for a new request: one nonce, offered with
 * SHA-256 and then MD5, realm identical in both (Python requests merges the
 * two headers into one). No charset (App IDs and API keys are ASCII) and no
 * userhash, so every client answers the same simple way.
 */
export function digestChallenge(deps: Pick<PlaygroundAuthDeps, 'clock' | 'signingKey'>, realm: string, stale = false): string[] {
  if (realm === '' || realm.length > 200 || /["\\\x00-\x1f\x7f]/.test(realm))
    throw invalidArgument('invalid_request', 'realm must be 1 to 200 characters without double quotes, backslashes or control characters.');
  const key = nonceKey(deps.signingKey.privateKey);
  const nonce = mintNonce(key, realm, deps.clock());
  const opaque = opaqueFor(key, nonce);
  return DIGEST_CHALLENGE_ALGORITHMS.map(
    (algorithm) => `Digest realm="${realm}", qop="auth", algorithm=${algorithm}, nonce="${nonce}", opaque="${opaque}"${stale ? ', stale=true' : ''}`,
  );
}

const FRESH = 'answer a fresh challenge (send the request without credentials to get one)';

/**
 * A Digest response (RFC 7616): username = App ID, password = API key,
 * qop=auth, algorithms MD5, MD5-sess, SHA-256, SHA-256-sess. Each refusal
 * names the part that differed; none reveals the expected response. A right
 * response to an expired nonce gets fresh challenges with stale=true. The
 * nonce count must rise with each use of a nonce: it advances with one atomic
 * compare-and-set in the store, so two replicas cannot both accept a count.
 */
export async function digestVerify(deps: PlaygroundAuthDeps, request: oauth.DigestVerifyRequest, requestId?: string): Promise<oauth.DigestVerifyResponse> {
  const answer = (check: common.CredentialCheck, wwwAuthenticate: string[] = []) => ({ check, wwwAuthenticate });
  if (request.authorization === '') return answer(refused(`No Digest credentials were sent: ${FRESH}.`));
  const params = parseDigestAuthorization(request.authorization);
  if (typeof params === 'string') return answer(refused(params));

  const problem = paramsProblem(params);
  if (problem) return answer(refused(problem));
  const param = (name: string) => params.get(name) ?? '';
  const algorithm = algorithmOf(param('algorithm') || 'MD5') as DigestAlgorithm;
  const [username, realm, nonce, uri, nc, cnonce, qop, response] = ['username', 'realm', 'nonce', 'uri', 'nc', 'cnonce', 'qop', 'response'].map(param);

  const key = nonceKey(deps.signingKey.privateKey);
  const opened = openNonce(key, nonce, realm);
  if (!opened.ok) return answer(refused(`nonce: it was not issued by this sandbox (altered, cut short, or from another deployment): ${FRESH}.`));
  const now = deps.clock();
  if (opened.issuedAt > now + NONCE_CLOCK_TOLERANCE_MS) return answer(refused(`nonce: its issue time lies ahead of server time (${when(now)}): ${FRESH}.`));
  if (!params.has('opaque')) return answer(refused('opaque is missing: return the opaque value of the challenge unchanged (RFC 7616 3.3).'));
  if (!sameText(opaqueFor(key, nonce), param('opaque'))) return answer(refused('opaque differs from the one sent with this nonce: return it unchanged.'));
  if (!opened.realmMatches)
    return answer(
      refused(
        `realm ${quoteInput(realm, { quotes: 'single' })} is not the realm of the challenge that issued this nonce: send realm exactly as the challenge gave it.`,
      ),
    );
  if (uri !== request.uri) {
    return answer(
      refused(
        `uri ${quoteInput(uri, { max: 200, quotes: 'single' })} differs from the request-target ${quoteInput(request.uri, { max: 200, quotes: 'single' })}: it must be the path and query exactly as on the request line.`,
      ),
    );
  }

  const hexLength = algorithm.startsWith('SHA-256') ? 64 : 32;
  const wellFormed = new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(response);
  const inputsWith = (password: string): DigestInputs => ({ algorithm, username, realm, password, method: request.method, uri, nonce, nc, cnonce, qop });
  // A remembered key the response does not match is read again first: the key may have been rotated a moment ago.
  const app = await deps.apps.signingKey(
    username,
    requestId,
    (key) => usable(key) && key.apiKey !== '' && (!wellFormed || sameText(digestResponse(inputsWith(key.apiKey)), response.toLowerCase())),
  );
  if (!app.found || !app.principal)
    return answer(
      refused(`username ${quoteInput(username, { quotes: 'single' })} is not the App ID of any app here (username is the App ID, password the API key).`),
    );
  if (!app.active || !app.apiKey) return answer(refused(`The app ${quoteInput(username, { quotes: 'single' })} is revoked: its credentials are refused.`));

  if (!wellFormed) {
    return answer(
      refused(`response must be ${hexLength} hex characters for algorithm=${algorithm}: check the algorithm you hashed with is the one you named.`),
    );
  }
  const inputs = inputsWith(app.apiKey);
  const right = sameText(digestResponse(inputs), response.toLowerCase());
  const expired = now >= opened.expiresAt;
  const expiredNote = `The nonce expired at ${when(opened.expiresAt)} (nonces last ${NONCE_LIFETIME_MS / 60_000} minutes); server time is ${when(now)}.`;
  if (!right) return answer(refused(`${mismatch(inputs, response.toLowerCase())}${expired ? ` ${expiredNote} Then ${FRESH}.` : ''}`));
  if (expired) {
    return answer(
      refused(`nonce: stale. ${expiredNote} Your credentials were right: answer the fresh challenge (stale=true) with them.`),
      digestChallenge(deps, realm, true),
    );
  }

  const count = parseInt(nc, 16);
  const ttlMs = storeTtl(opened.expiresAt - now + NC_MARGIN_MS);
  if (!(await deps.store.putIfGreater(digestNcKey(nonce), count, ttlMs))) {
    return answer(
      refused(
        `nc ${nc} does not increase: this nonce was already used with this count or a higher one. Count up (00000001, 00000002, ...) with each request that reuses a nonce, or ${FRESH}.`,
      ),
    );
  }
  return answer(accepted(app.principal));
}

/** The canonical name of an accepted algorithm, whatever its case. */
function algorithmOf(name: string): DigestAlgorithm | undefined {
  return DIGEST_ALGORITHMS.find((algorithm) => algorithm.toLowerCase() === name.toLowerCase());
}

/** What is missing or not offered, before any secret is looked at. */
function paramsProblem(params: Map<string, string>): string | undefined {
  if (params.has('username*')) return 'username* (RFC 8187 encoding) is not needed here: App IDs are ASCII; send username="<App ID>".';
  if ((params.get('userhash') ?? 'false').toLowerCase() !== 'false')
    return 'userhash is not offered here (the challenge has no userhash=true): send the App ID itself as username.';
  const missing = ['username', 'realm', 'nonce', 'uri', 'response'].filter((name) => !params.get(name));
  if (missing.length) return `The Digest header lacks ${missing.join(', ')}.`;
  const algorithm = params.get('algorithm');
  if (algorithm !== undefined && !algorithmOf(algorithm)) {
    return `algorithm ${quoteInput(algorithm, { quotes: 'single' })} is not offered: use SHA-256 or MD5 (or SHA-256-sess, MD5-sess), as the challenges say.`;
  }
  const qop = params.get('qop');
  if (qop === undefined) return 'qop is missing: this server requires qop=auth with nc and cnonce (the RFC 2069 form without qop is not accepted).';
  if (qop.toLowerCase() !== 'auth') return `qop ${quoteInput(qop, { quotes: 'single' })} is not offered: use qop=auth.`;
  const nc = params.get('nc');
  const cnonce = params.get('cnonce');
  if (!nc || !cnonce) return `qop=auth needs ${[!nc && 'nc', !cnonce && 'cnonce'].filter(Boolean).join(' and ')}.`;
  if (!/^[0-9a-fA-F]{8}$/.test(nc))
    return `nc ${quoteInput(nc, { quotes: 'single' })} must be 8 hex digits: 00000001 for the first use of a nonce, then 00000002, ...`;
  if (parseInt(nc, 16) === 0) return 'nc 00000000 is not a count: the first use of a nonce is 00000001.';
  return undefined;
}

/**
 * A wrong response, explained by the inputs the server used (never its
 * result), and by another algorithm when the response matches that one.
 */
function mismatch(inputs: DigestInputs, response: string): string {
  const other = DIGEST_ALGORITHMS.find((algorithm) => algorithm !== inputs.algorithm && sameText(digestResponse({ ...inputs, algorithm }), response));
  if (other)
    return `algorithm: the response was computed with ${other}, but the header says algorithm=${inputs.algorithm}: name the algorithm you hashed with.`;
  return (
    `response does not match. The server computed it with algorithm=${inputs.algorithm}, username=${quoteInput(inputs.username, { quotes: 'single' })}, realm=${quoteInput(inputs.realm, { quotes: 'single' })}, ` +
    `password = that app's API key (not the App Secret), method ${quoteInput(inputs.method, { quotes: 'single' })}, uri ${quoteInput(inputs.uri, { max: 200, quotes: 'single' })}, the nonce, nc=${inputs.nc}, ` +
    `cnonce ${quoteInput(inputs.cnonce, { quotes: 'single' })} and qop=${inputs.qop} (RFC 7616 3.4.1).`
  );
}
