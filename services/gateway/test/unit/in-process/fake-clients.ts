import { createHmac } from 'node:crypto';
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { challenges, type common, type identity, type playground } from '@sandbox/contracts';
import { fromServiceError, notFound, permissionDenied, toServiceError, unauthenticated, type AppError, type GrpcStatus } from '@sandbox/runtime';
import type { BackendClients } from '../../../src/clients';

/*
 * The four service clients, faked at their interface (PromiseClient: one
 * async method per gRPC method). Each fake answers, for the few inputs the
 * tests use, what the real service answers (identity's CredentialVerifier,
 * oauth's playground-auth and OAuth 2.0 domains, data's renderPage, the
 * playground's HTTP answers); a refusal travels as it does over the wire
 * (toServiceError, then the adapter's fromServiceError). A method a test did
 * not arrange rejects loudly and is written down, so no test can pass
 * through a path it did not plan.
 */

export type Peer = keyof BackendClients;
type Methods<P extends Peer> = Omit<BackendClients[P], 'close' | 'peer'>;
/** The methods a test arranges for one peer (clientStream too, for the upload); each must answer as the real service would. */
export type Arranged<P extends Peer> = { [K in keyof Methods<P>]?: Methods<P>[K] };
export type Arrangement = { [P in Peer]?: Arranged<P> };

export interface Call {
  peer: Peer;
  method: string;
  request: unknown;
  options: unknown;
}

export interface FakeBackend {
  clients: BackendClients;
  /** Every call made, arranged or not, in order. */
  calls: Call[];
  /** Calls of methods no test arranged ("identity.deleteApp"). */
  unexpected: string[];
  /** The calls of one method, e.g. calledWith('data', 'getPage'). */
  callsOf(peer: Peer, method: string): Call[];
}

/** Names a Promise-aware caller probes for, which must read as absent (a client is not a thenable). */
const NOT_METHODS = new Set<string | symbol>(['then', 'catch', 'finally', 'toJSON', 'asymmetricMatch', 'nodeType', '$$typeof']);

export function fakeBackend(arrangement: Arrangement = {}): FakeBackend {
  const calls: Call[] = [];
  const unexpected: string[] = [];
  const client = <P extends Peer>(peer: P): BackendClients[P] => {
    const arranged = (arrangement[peer] ?? {}) as Record<string, (request: unknown, options?: unknown) => Promise<unknown>>;
    // What the gateway put in place of a method (caches/changes.ts wraps the changing calls).
    const replaced = new Map<string | symbol, unknown>();
    const target = {} as BackendClients[P];
    return new Proxy(target, {
      get(_target, name) {
        if (replaced.has(name)) return replaced.get(name);
        if (name === 'peer') return peer;
        if (name === 'close') return () => undefined;
        if (typeof name === 'symbol' || NOT_METHODS.has(name)) return undefined;
        const answer = arranged[name];
        return (request: unknown, options?: unknown) => {
          calls.push({ peer, method: name, request, options });
          if (!answer) {
            unexpected.push(`${peer}.${name}`);
            return Promise.reject(new Error(`unexpected call ${peer}.${name}: no test arranged it`));
          }
          return answer(request, options);
        };
      },
      set(_target, name, value) {
        replaced.set(name, value);
        return true;
      },
    });
  };
  return {
    clients: { identity: client('identity'), oauth: client('oauth'), data: client('data'), playground: client('playground') },
    calls,
    unexpected,
    callsOf: (peer, method) => calls.filter((call) => call.peer === peer && call.method === method),
  };
}

// ---- failures as the adapter delivers them --------------------------------------

/** A service's own refusal (an AppError it threw), as the caller receives it after the wire. */
export function refusedBy(peer: Peer, error: AppError): AppError {
  return fromServiceError(toServiceError(error) as ServiceError, peer);
}

/** A failure without the service's error code (the transport's, or a crash), as the adapter turns it into an AppError. */
export function transportFailure(peer: Peer, status: GrpcStatus, details = 'failed'): AppError {
  const error = Object.assign(new Error(details), { code: status, details, metadata: new Metadata() }) as ServiceError;
  return fromServiceError(error, peer);
}

// ---- the fixtures: one app and its credentials -----------------------------------

const pad = (prefix: string, seed: string, length: number) => (prefix + seed.repeat(length)).slice(0, prefix.length + length);

/** An app as identity issues it (credentials in identity's formats: credentials.ts PATTERN). */
export const APP = {
  id: '66f1c0a95e2b4d7a9c3e1f20',
  appId: 'app_Xq3V0d5yH2kq8Jr1mT9bWg',
  ownerId: '66f1c0a95e2b4d7a9c3e1f21',
  apiKey: pad('ak_', 'Kp3x9Qv2', 43),
  bearerToken: pad('bt_', 'Zr8w1Ny6', 43),
  appSecret: pad('as_', 'Hm4t7Lc5', 43),
};
/** A key of the right form that no app holds. */
export const UNKNOWN_API_KEY = pad('ak_', 'Wrong000', 43);
export const UNKNOWN_BEARER = pad('bt_', 'Wrong000', 43);

export const principal = (scopes: string[] = ['hr:read']): common.AppPrincipal => ({ id: APP.id, appId: APP.appId, ownerId: APP.ownerId, scopes });
const accepted = (scopes: string[]): common.CredentialCheck => ({ ok: true, reason: '', principal: principal(scopes) });
const refused = (reason: string): common.CredentialCheck => ({ ok: false, reason, principal: undefined });

/** Portal users: a learner and an operator (identity names operators by its configuration). */
export const LEARNER: identity.User = { id: APP.ownerId, email: 'learner@example.org', createdAt: '2026-01-05T10:00:00.000Z', provider: 'password' };
export const OPERATOR: identity.User = {
  id: '66f1c0a95e2b4d7a9c3e1f22',
  email: 'operator@example.org',
  createdAt: '2026-01-05T10:00:00.000Z',
  provider: 'password',
};
export const LEARNER_SESSION = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsZWFybmVyIn0.bGVhcm5lci1zZXNzaW9u';
export const OPERATOR_SESSION = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcGVyYXRvciJ9.b3BlcmF0b3Itc2Vzc2lvbg';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A playground JWT as POST /playground/auth/jwt/issue makes them (typ JWT): only its header and sub are read by the gateway. */
export const PLAYGROUND_JWT = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: APP.appId, aud: 'urn:training-sandbox:playground', scope: 'hr:read' })}.c2lnbmF0dXJl`;
/** An RFC 9068 access token from POST /oauth/token (typ at+jwt). */
export const ACCESS_TOKEN = `${b64url({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' })}.${b64url({ sub: APP.appId, client_id: APP.appId, scope: 'hr:read' })}.c2lnbmF0dXJl`;

export const basicOf = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
export const hmacOf = (key: string, timestamp: string, method: string, path: string) =>
  createHmac('sha256', key).update(`${timestamp}.${method}.${path}`).digest('hex');

// ---- the services' answers for those fixtures -------------------------------------

/** Identity's credential checks and session verification (identity verification.ts, accounts.ts). */
export function identityAnswers(scopes: string[] = ['hr:read']): Arranged<'identity'> {
  return {
    verifyApiKey: async ({ apiKey }) => {
      if (apiKey === '') return { check: refused('No API key was given.') };
      if (!/^ak_[A-Za-z0-9_-]{43}$/.test(apiKey)) return { check: refused('The API key is not in the expected format (ak_ followed by 43 characters).') };
      return { check: apiKey === APP.apiKey ? accepted(scopes) : refused('The API key is not valid.') };
    },
    verifyBearerToken: async ({ bearerToken }) => {
      if (!/^bt_[A-Za-z0-9_-]{43}$/.test(bearerToken))
        return { check: refused('The bearer token is not an app bearer token (bt_ followed by 43 characters).') };
      return { check: bearerToken === APP.bearerToken ? accepted(scopes) : refused('The bearer token is not valid.') };
    },
    verifyBasic: async ({ appId, appSecret }) => ({
      check: appId === APP.appId && appSecret === APP.appSecret ? accepted(scopes) : refused('The App ID or App Secret is not valid.'),
    }),
    verifySession: async ({ token }) => {
      if (token === LEARNER_SESSION) return { user: LEARNER, operator: false };
      if (token === OPERATOR_SESSION) return { user: OPERATOR, operator: true };
      throw refusedBy('identity', unauthenticated('invalid_session', 'The session token is not valid; sign in again.'));
    },
    // The request log and the operators' limits, which the gateway sends and polls on its own.
    recordRequests: async () => ({}),
    listAppLimits: async () => ({ limits: [] }),
  };
}

const DIGEST_NONCE = 'bm9uY2UtMQ';
/** The two challenges oauth's digestChallenge makes for one nonce: SHA-256 first, then MD5. */
export const digestChallenges = (stale = false) =>
  ['SHA-256', 'MD5'].map(
    (algorithm) =>
      `Digest realm="${challenges.REALM}", qop="auth", algorithm=${algorithm}, nonce="${DIGEST_NONCE}", opaque="b3BhcXVl"${stale ? ', stale=true' : ''}`,
  );
/** A Digest answer the fake oauth service takes as right (username App ID; the response itself is oauth's to check). */
export const digestAuthorization = (uri: string, response = 'a'.repeat(64)) =>
  `Digest username="${APP.appId}", realm="${challenges.REALM}", nonce="${DIGEST_NONCE}", uri="${uri}", algorithm=SHA-256, qop=auth, nc=00000001, cnonce="c1", response="${response}", opaque="b3BhcXVl"`;
export const DIGEST_STALE_RESPONSE = 'b'.repeat(64);

/** OAuth 1.0a: the Authorization header of a request signed with the three legs' access token. */
export const oauth1Authorization = (signature: string) =>
  `OAuth oauth_consumer_key="${APP.appId}", oauth_token="ot_access", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1767225600", oauth_nonce="n1", oauth_version="1.0", oauth_signature="${signature}"`;

/** The oauth service's checks of the playground styles and its OAuth 2.0 token endpoint. */
export function oauthAnswers(scopes: string[] = ['hr:read']): Arranged<'oauth'> {
  return {
    verifyJwt: async ({ token }) => ({
      check: token === PLAYGROUND_JWT ? accepted(scopes) : refused('The token is not a JWT: expected three base64url parts (header.payload.signature).'),
      algorithm: 'HS256',
    }),
    verifyAccessToken: async ({ token }) => ({
      check: token === ACCESS_TOKEN ? accepted(scopes) : refused('The access token is not one this sandbox issued.'),
    }),
    verifyHmac: async ({ appId, timestamp, signature, method, path }) => {
      if (appId !== APP.appId) return { check: refused(`x-app-id '${appId}' is not the App ID of any app here.`) };
      const canonical = `${timestamp}.${method}.${path}`;
      if (signature !== hmacOf(APP.apiKey, timestamp, method, path))
        return { check: refused(`The signature does not match. The server signed ${JSON.stringify(canonical)}.`) };
      return { check: accepted(scopes) };
    },
    digestChallenge: async () => ({ wwwAuthenticate: digestChallenges() }),
    digestVerify: async ({ uri, authorization }) => {
      if (authorization.includes(`response="${DIGEST_STALE_RESPONSE}"`))
        return {
          check: refused('nonce: stale. Your credentials were right: answer the fresh challenge (stale=true) with them.'),
          wwwAuthenticate: digestChallenges(true),
        };
      return authorization === digestAuthorization(uri)
        ? { check: accepted(scopes), wwwAuthenticate: [] }
        : { check: refused('The response does not match: check the password (the API key).'), wwwAuthenticate: [] };
    },
    oAuth1Verify: async ({ request }) => {
      if (request?.authorization === oauth1Authorization('good')) return { check: accepted(scopes) };
      if (request?.authorization === oauth1Authorization('replayed'))
        return { check: refused('oauth_problem=nonce_used: This nonce was already used with this timestamp; make a new one for each request.') };
      return { check: refused('oauth_problem=signature_invalid: The signature does not match.') };
    },
    issueJwt: async ({ issuer }) => ({ hs256: PLAYGROUND_JWT, rs256: PLAYGROUND_JWT, expiresIn: 3600, audience: 'urn:training-sandbox:playground', issuer }),
    getJwtPublicKey: async () => ({
      pem: '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n',
      kid: 'k1',
      jwkJson: JSON.stringify({ kty: 'RSA', n: 'AQAB', e: 'AQAB', kid: 'k1', alg: 'RS256', use: 'sig' }),
      // Empty, as from an oauth service older than jwks_json: the gateway then publishes jwk_json alone.
      jwksJson: '',
    }),
  };
}

/** The data service: packs hr (scope hr:read) and stocks (stocks:read), as renderPage answers and refuses. */
export function dataAnswers(): Arranged<'data'> {
  const packs: Record<string, { scope: string; entities: string[] }> = {
    hr: { scope: 'hr:read', entities: ['employees'] },
    stocks: { scope: 'stocks:read', entities: ['tickers'] },
  };
  return {
    getCatalog: async ({ rootUrl }) => ({
      bodyJson: Buffer.from(JSON.stringify({ dataset_version: 1, packs: Object.keys(packs).map((name) => ({ name, url: `${rootUrl}/${name}` })) })),
    }),
    getPage: async ({ pack, entity, rawQuery, grantedScopes, rootUrl }) => {
      const found = packs[pack];
      if (!found) throw refusedBy('data', notFound('unknown_pack', `There is no pack '${pack}'. Packs: ${Object.keys(packs).join(', ')}.`));
      if (!found.entities.includes(entity)) throw refusedBy('data', notFound('unknown_entity', `Pack '${pack}' has no entity '${entity}'.`));
      if (!grantedScopes.includes(found.scope))
        throw refusedBy(
          'data',
          permissionDenied('missing_scope', `Reading the ${pack} pack needs the scope ${found.scope}, which this app does not hold.`).withChallenge(
            challenges.insufficientScopeChallenge(found.scope),
          ),
        );
      const body = Buffer.from(JSON.stringify({ pack, entity, query: rawQuery, nextLink: `${rootUrl}/${pack}/${entity}?cursor=next`, data: [{ id: 1 }] }));
      return {
        bodyJson: body,
        etag: `"${pack}-${entity}-${rawQuery.length}"`,
        link: '',
        scope: found.scope,
        paginationStyle: 'cursor',
        lastPage: false,
        entityRows: 1,
      };
    },
  };
}

/** An HTTP answer as the playground service sends it inside its message: a string as text, anything else as JSON. */
export function httpAnswer(status: number, body: unknown, headers: playground.Header[] = []): { http: playground.HttpResponse } {
  const text = typeof body === 'string';
  const bytes = Buffer.from(text ? body : JSON.stringify(body));
  const type = text ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  return { http: { status, headers: [{ name: 'Content-Type', value: type }, ...headers], body: bytes } };
}

/** The playground's echo: what arrived, as the service reads the HttpRequest the gateway built. */
export function playgroundAnswers(): Arranged<'playground'> {
  return {
    echo: async ({ http }) =>
      httpAnswer(200, {
        method: http?.method,
        path: http?.path,
        query: http?.rawQuery,
        body: http?.body.length ? Buffer.from(http.body).toString('utf8') : null,
        remoteAddress: http?.remoteAddress,
      }),
  };
}

/** Everything above, for a gateway whose tests need every service to answer its fixtures. */
export const everyService = (scopes?: string[]): Arrangement => ({
  identity: identityAnswers(scopes),
  oauth: oauthAnswers(scopes),
  data: dataAnswers(),
  playground: playgroundAnswers(),
});
