// What one OAuth 2.0 access token costs the oauth process to sign and to
// verify, per algorithm (OAUTH_ACCESS_TOKEN_ALG), through the service's own
// code (services/oauth/dist: jose, the key derivation, the allow-list). CPU
// time of the whole process (process.cpuUsage: jose signs through WebCrypto,
// which may run on libuv's threads), so a busy machine lengthens the wall
// clock but not the figure much. Rounds interleave the algorithms; quotes the
// median round.
//
//   npm run build && node bench/token-signing.mjs [--rounds 7] [--tokens 400]
import { generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { median, ROOT } from './lib.mjs';

const require = createRequire(import.meta.url);
const { loadSigningKey } = require(`${ROOT}/services/oauth/dist/domain/signing-key.js`);
const { issueAccessToken, verifySignedAccessToken } = require(`${ROOT}/services/oauth/dist/domain/oauth2/access-token.js`);

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('--rounds', 7);
const tokens = arg('--tokens', 400);

const pem = (bits) => generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const rsa2048 = pem(2048);
const rsa4096 = pem(4096);
const configs = {
  'ES256 (default)': await loadSigningKey(rsa2048, 'ES256'),
  EdDSA: await loadSigningKey(rsa2048, 'EdDSA'),
  'RS256, 2048-bit key': await loadSigningKey(rsa2048, 'RS256'),
  'RS256, 4096-bit key (the chart generates)': await loadSigningKey(rsa4096, 'RS256'),
};
const fields = {
  issuer: 'https://sandbox.example.org',
  sub: 'app_Xq3V0d5yH2kq8Jr1mT9bWg',
  clientId: 'app_Xq3V0d5yH2kq8Jr1mT9bWg',
  scope: ['hr:read', 'stocks:read'],
};
const config = { accessTokenTtlSeconds: 3600 };
const clock = () => Date.now();

/** CPU microseconds per call of `fn`, over `n` calls awaited one after another (as requests arrive). */
async function cpuPerCall(n, fn) {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / n;
}

const samples = Object.fromEntries(Object.keys(configs).map((name) => [name, { sign: [], verify: [] }]));
for (const signingKey of Object.values(configs)) {
  // Warm-up: jose's and OpenSSL's first calls set things up.
  const { token } = await issueAccessToken({ clock, config, signingKey }, fields);
  for (let i = 0; i < 50; i++) await verifySignedAccessToken({ clock, signingKey }, token);
}
for (let round = 0; round < rounds; round++) {
  for (const [name, signingKey] of Object.entries(configs)) {
    // The 4096-bit key is slow: fewer tokens, the same per-token figure.
    const n = name.includes('4096') ? Math.max(20, Math.round(tokens / 10)) : tokens;
    const deps = { clock, config, signingKey };
    samples[name].sign.push(await cpuPerCall(n, () => issueAccessToken(deps, fields)));
    const { token } = await issueAccessToken(deps, fields);
    samples[name].verify.push(
      await cpuPerCall(n, async () => {
        if (!(await verifySignedAccessToken(deps, token)).ok) throw new Error(`${name}: its own token did not verify`);
      }),
    );
  }
}
const round1 = (x) => Math.round(x * 10) / 10;
const report = {
  node: process.version,
  openssl: process.versions.openssl,
  rounds,
  tokensPerRound: tokens,
  microsecondsPerToken: Object.fromEntries(
    Object.entries(samples).map(([name, { sign, verify }]) => [name, { sign: round1(median(sign)), verify: round1(median(verify)) }]),
  ),
};
console.log(JSON.stringify(report, null, 2));
