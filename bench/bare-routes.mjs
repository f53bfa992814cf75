// The baselines of bench/hop.mjs, in one bare node:http process of their own
// (like the gateway): each path answers the bytes and content type the gateway
// answered for it (captured by the parent and sent over IPC), whatever the
// method; the signing path also signs a fresh RS256 access token per request,
// as the oauth service does, to show what RSA signing alone costs; the
// rendering path renders the data page per request with the data service's
// own renderPage (its build), to show what rendering alone costs.
//
// Parent → child: { port, routes: { [path]: { headers, bodyBase64 } }, signing: { path, headers, response }, rendering: { path, headers, request } }
// Child → parent: 'listening'.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createRequire } from 'node:module';
import http from 'node:http';

/** The size of the key the embedded sandbox generates (services/oauth/src/domain/signing-key.ts). */
const RSA_BITS = 2048;

const base64url = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Answers for `response` with its access_token replaced by a freshly signed one of the same header and claims. */
function tokenSigner({ response, headers }) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: RSA_BITS });
  const [header, payload] = response.access_token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  const lifetime = payload.exp - payload.iat;
  const protectedHeader = base64url(header);
  return (_req, res) => {
    const iat = Math.floor(Date.now() / 1000);
    const signingInput = `${protectedHeader}.${base64url({ ...payload, iat, exp: iat + lifetime, jti: randomUUID() })}`;
    const token = `${signingInput}.${sign('sha256', Buffer.from(signingInput), privateKey).toString('base64url')}`;
    const body = JSON.stringify({ ...response, access_token: token });
    res.writeHead(200, { ...headers, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
}

/** Renders `request` (a GetPageRequest) afresh for every request, as the data service does on a miss of the gateway's page cache. */
function pageRenderer({ request, headers }) {
  const { renderPage } = createRequire(import.meta.url)('../services/data/dist/domain/render-page.js');
  const key = Buffer.alloc(32, 7);
  return (_req, res) => {
    const page = renderPage(request, key);
    res.writeHead(200, { ...headers, ETag: page.etag, 'Content-Length': page.bodyJson.length });
    res.end(page.bodyJson);
  };
}

/** A handler that answers fixed bytes. */
function fixed({ headers, bodyBase64 }) {
  const body = Buffer.from(bodyBase64, 'base64');
  const all = { ...headers, 'Content-Length': body.length };
  return (_req, res) => {
    res.writeHead(200, all);
    res.end(body);
  };
}

process.once('message', ({ port, routes, signing, rendering }) => {
  const handlers = new Map(Object.entries(routes).map(([path, route]) => [path, fixed(route)]));
  // Either is absent when bench/hop.mjs measures a subset of routes without it.
  if (signing) handlers.set(signing.path, tokenSigner(signing));
  if (rendering) handlers.set(rendering.path, pageRenderer(rendering));
  const server = http.createServer((req, res) => {
    const q = req.url.indexOf('?');
    const handler = handlers.get(q < 0 ? req.url : req.url.slice(0, q));
    if (handler) return handler(req, res);
    res.writeHead(404).end();
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1', () => process.send('listening'));
});
