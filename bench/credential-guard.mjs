// Micro-benchmark of the production-credential guard (services/gateway/src/guard):
// nanoseconds per scan of what a request typically carries. The guard runs on
// every request, the data hot route included, whose budget for it is 5% of its
// throughput; this shows where the time goes without the noise of a load test.
//
//   npm run build && node bench/credential-guard.mjs [--from DIR] [--rounds 7]
//
// --from: a directory holding the compiled credential-guard.js (default: the
// gateway's dist/guard). Medians of interleaved rounds; the machine is noisy.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const from = resolve(arg('from', join(ROOT, 'services/gateway/dist/guard')));
const rounds = Number(arg('rounds', 7));
const { CredentialGuard } = createRequire(import.meta.url)(join(from, 'credential-guard.js'));

const guard = new CredentialGuard({ allowedIssuerHosts: ['https://sandbox.example.org/api'] });
const b64url = (bytes) => randomBytes(bytes).toString('base64url');
const json64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

// What curl, Power Query or a script sends to /playground/data/... with an API key.
const apiKeyHeaders = [
  ['host', '127.0.0.1:8080'],
  ['x-api-key', `ak_${b64url(32)}`],
  ['accept', '*/*'],
  ['user-agent', 'curl/8.5.0'],
];
const query = 'page=1&page_size=50';
// A browser's request: longer headers.
const browserHeaders = [
  ['host', 'sandbox.example.org'],
  ['x-api-key', `ak_${b64url(32)}`],
  ['accept', 'application/json, text/plain, */*'],
  ['accept-language', 'en-GB,en;q=0.9,de;q=0.8'],
  ['accept-encoding', 'gzip, deflate, br, zstd'],
  ['user-agent', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'],
  ['referer', 'https://sandbox.example.org/portal/apps'],
];
// An OAuth 2.0 access token of this sandbox (RS256, https issuer = its own host): the JWT path.
const now = Math.floor(Date.now() / 1000);
const accessToken = [
  json64({ alg: 'RS256', typ: 'at+jwt', kid: b64url(32) }),
  json64({
    iss: 'https://sandbox.example.org/api',
    sub: randomBytes(12).toString('hex'),
    aud: 'https://sandbox.example.org/api/playground',
    client_id: `app_${b64url(16)}`,
    scope: 'data:read',
    jti: b64url(16),
    iat: now,
    exp: now + 3600,
  }),
  b64url(256),
].join('.');
const bearerHeaders = [
  ['host', 'sandbox.example.org'],
  ['authorization', `Bearer ${accessToken}`],
  ['accept', '*/*'],
  ['user-agent', 'python-requests/2.32.3'],
];
const basicHeaders = [
  ['host', '127.0.0.1:8080'],
  ['authorization', `Basic ${Buffer.from(`app_${b64url(16)}:as_${b64url(32)}`).toString('base64')}`],
  ['accept', '*/*'],
  ['user-agent', 'curl/8.5.0'],
];
// A 1 KB JSON body of the kind the playground echoes and the portal receives.
const rows = [];
for (let i = 0; rows.length < 40; i++)
  rows.push({ id: i, name: `Customer ${i}`, email: `c${i}@example.org`, city: 'Springfield', balance: 123.45 + i, active: i % 2 === 0 });
let body = JSON.stringify({ items: rows });
body = JSON.stringify({ items: rows.slice(0, Math.floor((rows.length * 1024) / body.length)) });
const parsedBody = JSON.parse(body);

const cases = {
  'api-key header set + query': () => guard.scanFields(apiKeyHeaders) ?? guard.find(query),
  'browser header set + query': () => guard.scanFields(browserHeaders) ?? guard.find(query),
  'Basic header set (sandbox App ID/Secret)': () => guard.scanFields(basicHeaders) ?? guard.find(query),
  "Bearer: sandbox's OAuth access token (JWT path)": () => guard.scanFields(bearerHeaders) ?? guard.find(query),
  [`JSON body as text (${body.length} B)`]: () => guard.find(body),
  [`JSON body parsed, walked (${body.length} B)`]: () => guard.scanJson(parsedBody),
};

for (const [name, scan] of Object.entries(cases)) {
  if (scan() !== undefined) throw new Error(`${name}: the guard refused the sandbox's own request`);
}

function measure(scan) {
  let n = 1000;
  let sink = 0;
  for (;;) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += scan() === undefined ? 0 : 1;
    const ns = Number(process.hrtime.bigint() - started);
    if (ns > 200e6) return { nsPerScan: ns / n, sink };
    n *= 4;
  }
}

const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (const scan of Object.values(cases)) measure(scan); // warm-up: let the JIT settle first
for (let round = 0; round < rounds; round++) {
  for (const [name, scan] of Object.entries(cases)) samples[name].push(measure(scan).nsPerScan);
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`credential guard, node ${process.version}, ${rounds} interleaved rounds, median ns per scan (min–max)`);
for (const [name, values] of Object.entries(samples)) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(`  ${name.padEnd(50)} ${median(values).toFixed(0).padStart(7)} ns   (${sorted[0].toFixed(0)}–${sorted.at(-1).toFixed(0)})`);
}
