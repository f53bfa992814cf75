import type { common, oauth } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { usable, type AppSigningKey } from '../app-directory';
import { epochSeconds } from '../clock';
import { signatureBaseString, type NameValue } from './base-string';
import { oauth1Problem } from './errors';
import type { OAuth1Deps } from './deps';
import { parseSignedRequest, type ParsedRequest } from './signed-request';
import { isSignatureMethod, sameSecret, sign, SIGNATURE_METHODS, type SignatureMethod } from './signature';
import { OAuth1State, TIMESTAMP_WINDOW_SECONDS } from './state';

/** The token a signed request carries, as its leg resolves it: the secret to sign with, and what the leg needs later. */
export interface ResolvedToken<T> {
  secret: string;
  /** The token secret in words, for a failed signature's message ("the temporary token secret from leg 1"). */
  words: string;
  context: T;
}

export interface SignedRequestRules<T> {
  /** Protocol parameters this leg needs beyond the ones every signed request carries. */
  required: readonly string[];
  /** Checks that need no I/O (oauth_callback's form), before any lookup. */
  validate?(protocol: ReadonlyMap<string, string>): void;
  /** The token secret to verify with, or a refusal (token_rejected, token_expired, token_used). */
  token(protocol: ReadonlyMap<string, string>, consumerKey: string): Promise<ResolvedToken<T>>;
}

export interface CheckedRequest<T> {
  consumerKey: string;
  principal: common.AppPrincipal | undefined;
  protocol: ReadonlyMap<string, string>;
  token: ResolvedToken<T>;
}

/** The base string is quoted in full up to this many characters (a trailer must stay well under gRPC's header limits). */
const BASE_STRING_SHOWN = 4000;

/**
 * RFC 5849 3.2, in the order a learner can best act on: the request's form
 * (absent, repeated or unsupported parameters: 400), then the credentials
 * (timestamp, consumer key, token, signature, nonce: 401). The nonce is
 * remembered only once the signature has verified, so a request that could
 * not be signed with the app's API key writes nothing.
 */
export async function checkSignedRequest<T>(
  deps: OAuth1Deps,
  request: oauth.SignedRequest | undefined,
  rules: SignedRequestRules<T>,
  requestId?: string,
): Promise<CheckedRequest<T>> {
  const parsed = parseSignedRequest(request);
  const { protocol } = parsed;
  const method = protocol.get('oauth_signature_method');

  const required = [
    'oauth_consumer_key',
    'oauth_signature_method',
    'oauth_signature',
    ...(method === 'PLAINTEXT' ? [] : ['oauth_timestamp', 'oauth_nonce']),
    ...rules.required,
  ];
  const absent = required.filter((name) => !protocol.get(name));
  if (absent.length) throw absentParameters(absent, parsed);

  const version = protocol.get('oauth_version');
  if (version !== undefined && version !== '1.0') {
    throw oauth1Problem(
      'version_rejected',
      `oauth_version is ${quoteInput(version, { quotes: 'single' })}; this server speaks OAuth 1.0a, whose version is '1.0' (or leave the parameter out).`,
    );
  }
  if (!isSignatureMethod(method!)) {
    const rsa = method === 'RSA-SHA1' ? ' RSA-SHA1 needs an RSA public key registered for the consumer, which the sandbox does not take.' : '';
    throw oauth1Problem(
      'signature_method_rejected',
      `oauth_signature_method ${quoteInput(method!, { quotes: 'single' })} is not supported: use one of ${SIGNATURE_METHODS.join(', ')} (names are case-sensitive).${rsa}`,
    );
  }
  const timestamp = protocol.get('oauth_timestamp');
  if (timestamp !== undefined) checkTimestamp(deps, timestamp);
  rules.validate?.(protocol);

  const consumerKey = protocol.get('oauth_consumer_key')!;
  const consumer = (app: AppSigningKey) => {
    if (!app.found) {
      throw oauth1Problem(
        'consumer_key_unknown',
        `No app has the consumer key ${quoteInput(consumerKey, { quotes: 'single' })}: the consumer key is your App ID (app_...), and the consumer secret your API key (ak_...).`,
      );
    }
    if (!app.active) {
      throw oauth1Problem(
        'consumer_key_rejected',
        `The app with consumer key ${quoteInput(consumerKey, { quotes: 'single' })} is revoked: its credentials and tokens no longer work.`,
      );
    }
    return app;
  };
  let app = consumer(await deps.apps.signingKey(consumerKey, requestId));

  const token = await rules.token(protocol, consumerKey);
  const signedWith = (key: AppSigningKey) =>
    sameSecret(
      protocol.get('oauth_signature')!,
      sign(method as SignatureMethod, signatureBaseString(parsed.method, parsed.baseUri, parsed.params), key.apiKey, token.secret),
    );
  // A remembered key the signature does not match is read again first: the key may have been rotated a moment ago.
  if (!signedWith(app)) app = consumer(await deps.apps.signingKey(consumerKey, requestId, (key) => usable(key) && signedWith(key)));
  checkSignature(parsed, method as SignatureMethod, app.apiKey, token);

  const nonce = protocol.get('oauth_nonce');
  if (nonce !== undefined && !(await new OAuth1State(deps.store, deps.clock).rememberNonce(consumerKey, nonce, timestamp ?? ''))) {
    throw oauth1Problem(
      'nonce_used',
      `oauth_nonce ${quoteInput(nonce, { quotes: 'single' })} was already used with this consumer key in the last ${(2 * TIMESTAMP_WINDOW_SECONDS) / 60} minutes: a request cannot be replayed; send a fresh random nonce (and timestamp) with every request.`,
    );
  }
  return { consumerKey, principal: app.principal, protocol, token };
}

function absentParameters(absent: string[], parsed: ParsedRequest) {
  const header =
    parsed.header === 'other'
      ? ' The Authorization header is not of the OAuth scheme, so its contents were not read.'
      : parsed.header === 'none' && parsed.params.length === 0
        ? ' The request carried no OAuth parameters at all.'
        : '';
  return oauth1Problem(
    'parameter_absent',
    `Missing or empty protocol parameters: ${absent.join(', ')} (oauth_parameters_absent=${absent.join('&')}). Send them in the Authorization: OAuth header, the query or a form body (RFC 5849 3.5).${header}`,
  );
}

function checkTimestamp(deps: OAuth1Deps, timestamp: string): void {
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw oauth1Problem(
      'parameter_rejected',
      `oauth_timestamp ${quoteInput(timestamp, { quotes: 'single' })} is not a whole number of seconds since 1970-01-01T00:00:00Z (Unix time, e.g. 1700000000).`,
    );
  }
  const now = epochSeconds(deps.clock);
  const difference = Number(timestamp) - now;
  if (Math.abs(difference) <= TIMESTAMP_WINDOW_SECONDS) return;
  const millis = timestamp.length >= 13 ? ' It looks like milliseconds: send seconds.' : '';
  throw oauth1Problem(
    'timestamp_refused',
    `oauth_timestamp ${timestamp} is ${Math.abs(difference)} seconds ${difference > 0 ? 'ahead of' : 'behind'} the server's time, ${now} (${new Date(now * 1000).toISOString()}); it must be within ${TIMESTAMP_WINDOW_SECONDS} seconds either way (oauth_acceptable_timestamps=${now - TIMESTAMP_WINDOW_SECONDS}-${now + TIMESTAMP_WINDOW_SECONDS}). Check your clock, and sign each request when you send it.${millis}`,
  );
}

function checkSignature<T>(parsed: ParsedRequest, method: SignatureMethod, consumerSecret: string, token: ResolvedToken<T>): void {
  const received = parsed.protocol.get('oauth_signature')!;
  const baseString = signatureBaseString(parsed.method, parsed.baseUri, parsed.params);
  if (sameSecret(received, sign(method, baseString, consumerSecret, token.secret))) return;

  const key = `your API key (the consumer secret) and ${token.words}, each percent-encoded, joined by '&'`;
  if (method === 'PLAINTEXT') {
    throw oauth1Problem(
      'signature_invalid',
      `The PLAINTEXT oauth_signature must be ${key} (RFC 5849 3.4.4), then percent-encoded once more for transport. It is not.`,
    );
  }
  const hints = signatureHints(parsed, method, consumerSecret, token.secret, received);
  const shown =
    baseString.length > BASE_STRING_SHOWN
      ? `${baseString.slice(0, BASE_STRING_SHOWN)}... (${baseString.length - BASE_STRING_SHOWN} more characters)`
      : baseString;
  throw oauth1Problem(
    'signature_invalid',
    `The oauth_signature does not match the ${method} of the signature base string this server built, keyed with ${key}.${hints} Compare this base string with the one your client built (RFC 5849 3.4.1): ${shown}`,
  );
}

/**
 * Mistakes common enough to test for: each variant is signed with the same
 * secrets the client holds, so a match tells the learner only what they did,
 * never anything they did not already know.
 */
function signatureHints(parsed: ParsedRequest, method: SignatureMethod, consumerSecret: string, tokenSecret: string, received: string): string {
  const matches = (base: string, secret = tokenSecret) => sameSecret(received, sign(method, base, consumerSecret, secret));
  const base = (uri: string, params: readonly NameValue[]) => signatureBaseString(parsed.method, uri, params);
  if (tokenSecret !== '' && matches(base(parsed.baseUri, parsed.params), '')) {
    return ' Your signature matches one keyed without the token secret: the key must end with it after the "&".';
  }
  const oauthOnly = parsed.params.filter((p) => p.name.startsWith('oauth_'));
  if (oauthOnly.length < parsed.params.length && matches(base(parsed.baseUri, oauthOnly))) {
    return ' Your signature matches a base string without the query and form parameters: every one of them is signed too (RFC 5849 3.4.1.3.1).';
  }
  const raw = (parsed.rawBaseUrl.split(/[?#]/)[0] ?? '').trim();
  if (raw !== parsed.baseUri && matches(base(raw, parsed.params))) {
    return ` Your signature matches the URL as written, ${quoteInput(raw, { quotes: 'single' })}: the base string URI has its scheme and host in lowercase and no default port (RFC 5849 3.4.1.2).`;
  }
  return '';
}
