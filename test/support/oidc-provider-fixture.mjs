// A real OpenID Connect provider for the single sign-on tests: oidc-provider
// (a certified OP library) in a process of its own, since it is ESM-only and
// jest's module loader is not. It listens on 127.0.0.1, port 0 (or
// FIXTURE_PORT), and prints one line, `OIDC_PROVIDER_READY <issuer>`, once it
// serves.
//
// - Clients: none at first. The test registers them once it knows the
//   gateway's callback URL: POST /__fixture/clients with the client's metadata
//   as JSON (a public client with token_endpoint_auth_method none, or one with
//   a client_secret). PKCE (S256) is required of every client.
// - Accounts: FIXTURE_ACCOUNTS, JSON {login: {password, email, groups, name}},
//   or the two below (grace is in a `sandbox-operators` group). Each has
//   email and email_verified: true (scope email) and name and groups (scope
//   profile), put in the ID token itself (conformIdTokenClaims: false), which
//   is what identity reads.
// - Sign-in and consent: small pages of its own (instead of devInteractions,
//   whose layout loads a web font from the internet): a login form (login,
//   password), a consent form (Allow), and a Cancel link that ends the
//   interaction with access_denied.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';

const DEFAULT_ACCOUNTS = {
  ada: { password: 'correct horse battery', email: 'ada@campus.example', name: 'Ada Lovelace', groups: ['learners'] },
  grace: { password: 'correct horse battery', email: 'grace@campus.example', name: 'Grace Hopper', groups: ['learners', 'sandbox-operators'] },
};
const accounts = process.env.FIXTURE_ACCOUNTS ? JSON.parse(process.env.FIXTURE_ACCOUNTS) : DEFAULT_ACCOUNTS;

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title, body) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

const server = http.createServer();
await new Promise((resolve) => server.listen(Number(process.env.FIXTURE_PORT ?? 0), '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const signingKey = { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'fixture-1', alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  findAccount: async (_ctx, sub) => {
    const account = accounts[sub];
    if (!account) return undefined;
    return {
      accountId: sub,
      claims: async () => ({ sub, email: account.email, email_verified: true, name: account.name, groups: account.groups ?? [] }),
    };
  },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
  scopes: ['openid', 'email', 'profile', 'offline_access'],
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  jwks: { keys: [signingKey] },
  ttl: { Interaction: 600, Session: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 600, IdToken: 3600 },
  renderError: async (ctx, out) => {
    ctx.type = 'html';
    ctx.body = page(
      'Sign-in error',
      Object.entries(out)
        .map(([k, v]) => `<p><strong>${escape(k)}</strong>: ${escape(v)}</p>`)
        .join(''),
    );
  },
});
const handle = provider.callback();

function loginForm(uid, error) {
  return page(
    'Sign in to the campus provider',
    `${error ? `<p role="alert">${escape(error)}</p>` : ''}<form method="post" action="/interaction/${uid}/login">` +
      '<p><label for="login">Username</label> <input id="login" name="login" autocomplete="username" required></p>' +
      '<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>' +
      `<p><button type="submit">Sign in</button> <a href="/interaction/${uid}/abort">Cancel</a></p></form>`,
  );
}

function consentForm(uid, clientId, scopes) {
  return page(
    'Allow access',
    `<p>${escape(clientId)} asks for: ${escape(scopes.join(', ') || 'your identity')}.</p>` +
      `<form method="post" action="/interaction/${uid}/confirm"><p><button type="submit">Allow</button> <a href="/interaction/${uid}/abort">Deny</a></p></form>`,
  );
}

async function interaction(req, res, url) {
  const [, uid, action] = url.pathname.match(/^\/interaction\/([^/]+)(?:\/(login|confirm|abort))?$/) ?? [];
  if (!uid) return send(res, 404, 'text/plain', 'not found');
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session, grantId } = details;
  if (req.method === 'GET' && !action) {
    if (prompt.name === 'login') return send(res, 200, 'text/html; charset=utf-8', loginForm(uid));
    return send(res, 200, 'text/html; charset=utf-8', consentForm(uid, params.client_id, prompt.details.missingOIDCScope ?? []));
  }
  if (req.method === 'GET' && action === 'abort') {
    return provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The person cancelled the sign-in.' },
      { mergeWithLastSubmission: false },
    );
  }
  if (req.method === 'POST' && action === 'login') {
    const form = new URLSearchParams(await readBody(req));
    const login = form.get('login') ?? '';
    const account = accounts[login];
    if (!account || account.password !== form.get('password')) return send(res, 200, 'text/html; charset=utf-8', loginForm(uid, 'Wrong username or password.'));
    return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  }
  if (req.method === 'POST' && action === 'confirm') {
    await readBody(req);
    const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
    if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
    if (prompt.details.missingResourceScopes) {
      for (const [indicator, scope] of Object.entries(prompt.details.missingResourceScopes)) grant.addResourceScope(indicator, scope.join(' '));
    }
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }
  return send(res, 405, 'text/plain', 'method not allowed');
}

server.on('request', (req, res) => {
  const url = new URL(req.url ?? '/', issuer);
  const fail = (error) => {
    console.error(`oidc-provider-fixture: ${error.stack ?? error}`);
    if (!res.headersSent) send(res, 500, 'text/plain', 'fixture error');
  };
  if (url.pathname === '/__fixture/clients' && req.method === 'POST') {
    readBody(req)
      .then(async (text) => {
        const metadata = JSON.parse(text);
        await provider.Client.adapter.upsert(metadata.client_id, metadata);
        // Validated as the provider will validate it: a mistake shows here, not as a refused sign-in.
        const client = await provider.Client.find(metadata.client_id);
        send(res, 200, 'application/json', JSON.stringify({ client_id: client.clientId }));
      })
      .catch((error) => send(res, 400, 'application/json', JSON.stringify({ error: String(error.message ?? error) })));
    return;
  }
  if (url.pathname.startsWith('/interaction/')) {
    interaction(req, res, url).catch(fail);
    return;
  }
  handle(req, res);
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
console.log(`OIDC_PROVIDER_READY ${issuer}`);
