import { execFile, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import OAuth from 'oauth-1.0a';
import { parseAllDocuments } from 'yaml';
import {
  apiRequest,
  clientCredentialsToken,
  type CreatedApp,
  isolatedMongoUrl,
  rawRequest,
  type RawResponse,
  requireStoreUrls,
  type RunningSystem,
  startSystem,
} from '@sandbox/testing';

jest.setTimeout(300_000);
const run = promisify(execFile);

/**
 * The restore drill (docs/operations.md, "Backups and restore"): accounts and
 * apps made through the API are dumped with the official MongoDB Database
 * Tools (mongodump, the tool the chart's backup CronJob runs), the database is
 * dropped, mongorestore brings it back, and a system
 * started on it with the same CREDENTIAL_ENCRYPTION_KEY and
 * SESSION_SIGNING_KEY serves every account, app and credential as before. With
 * a different CREDENTIAL_ENCRYPTION_KEY the encrypted API keys are unreadable,
 * and every use of one is refused with a 401 that says so, not a 500.
 *
 * The tools are built by scripts/lib/mongo-tools.sh (ensure_mongo_tools), which
 * exports MONGODUMP_BIN and MONGORESTORE_BIN; the store is the test command's
 * FerretDB. The dump is made by the chart's backup CronJob script itself, as
 * helm renders it, retention included.
 */
const PASSWORD = 'correct horse battery';
const ROOT = join(__dirname, '..', '..', '..', '..');

interface Account {
  email: string;
  session: string;
  apps: CreatedApp[];
}

/**
 * The backup CronJob's script and plain variables as the chart renders them
 * (deploy/helm/training-sandbox/templates/backup.yaml), by the helm the chart
 * tests use (scripts/lib/helm.sh).
 */
function renderedBackupJob(values: string[]): { script: string; env: Record<string, string> } {
  const helm = join(ROOT, '.tools', 'helm');
  if (!existsSync(helm)) throw new Error(`${helm} is missing: run \`source scripts/lib/helm.sh; ensure_helm\` (npm test does)`);
  const rendered = spawnSync(
    helm,
    [
      'template',
      'ts',
      join(ROOT, 'deploy', 'helm', 'training-sandbox'),
      '-f',
      join(ROOT, 'deploy', 'test', 'fixtures', 'image-values.yaml'),
      '--set',
      'backup.enabled=true',
      ...values,
    ],
    { encoding: 'utf8' },
  );
  if (rendered.status !== 0) throw new Error(`helm template failed: ${rendered.stderr}`);
  const cronJob = parseAllDocuments(rendered.stdout)
    .map((document) => document.toJS())
    .find((manifest) => manifest?.kind === 'CronJob');
  const container = cronJob.spec.jobTemplate.spec.template.spec.containers[0];
  expect(container.command.slice(0, 2)).toEqual(['sh', '-c']);
  const env = Object.fromEntries(
    (container.env as { name: string; value?: string }[])
      .filter((variable) => variable.value !== undefined)
      .map((variable) => [variable.name, variable.value!]),
  );
  return { script: container.command[2], env };
}

function toolPaths(): { mongodump: string; mongorestore: string } {
  let { MONGODUMP_BIN: mongodump, MONGORESTORE_BIN: mongorestore } = process.env;
  if (!mongodump || !mongorestore) {
    // Run alone, outside npm test: build them (about a minute with an empty Go cache; afterwards a no-op).
    const built = spawnSync('bash', ['-c', 'source scripts/lib/mongo-tools.sh && ensure_mongo_tools && echo "$MONGODUMP_BIN" && echo "$MONGORESTORE_BIN"'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`could not build the MongoDB Database Tools: ${built.stderr}`);
    [mongodump, mongorestore] = built.stdout.trim().split('\n');
  }
  return { mongodump: mongodump!, mongorestore: mongorestore! };
}

/** The database a MongoDB URL names, and the same URL without it (the server). */
function splitUrl(url: string): { server: string; database: string } {
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.slice(1));
  parsed.pathname = '/';
  return { server: parsed.toString(), database };
}

let lastHmacTimestamp = 0;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** Every way each credential of an app is used, each at its playground (or OAuth) endpoint. */
function credentialUses(baseUrl: string, app: CreatedApp): Record<string, () => Promise<RawResponse>> {
  const oauth1 = new OAuth({
    consumer: { key: app.appId, secret: app.apiKey },
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
  });
  const requestTokenUrl = `${baseUrl}/oauth1/request_token`;
  return {
    // App Secret: the Basic password and the OAuth 2.0 client secret.
    basic: () => rawRequest(`${baseUrl}/playground/auth/basic`, { headers: { Authorization: basic(app.appId, app.appSecret) } }),
    'oauth2 client secret': () => clientCredentialsToken(baseUrl, app),
    bearer: () => rawRequest(`${baseUrl}/playground/auth/bearer`, { headers: { Authorization: `Bearer ${app.bearerToken}` } }),
    // API key: the key itself, the HMAC secret, the Digest password and the OAuth 1.0a consumer secret.
    'api key': () => rawRequest(`${baseUrl}/playground/auth/api-key`, { headers: { 'x-api-key': app.apiKey } }),
    hmac: () => {
      // A timestamp of its own per call: the replay memory is in the shared Redis, so a signature sent to an earlier system counts too.
      lastHmacTimestamp = Math.max(Math.floor(Date.now() / 1000), lastHmacTimestamp + 1);
      const timestamp = String(lastHmacTimestamp);
      const signature = createHmac('sha256', app.apiKey).update(`${timestamp}.GET./playground/auth/hmac`).digest('hex');
      return rawRequest(`${baseUrl}/playground/auth/hmac`, { headers: { 'x-app-id': app.appId, 'x-timestamp': timestamp, 'x-signature': signature } });
    },
    digest: async () => {
      // curl's own Digest client: the challenge, then the answer computed with the password.
      const { stdout } = await run('curl', ['-s', '--digest', '-u', `${app.appId}:${app.apiKey}`, '-w', '\n%{http_code}', `${baseUrl}/playground/auth/digest`]);
      const cut = stdout.lastIndexOf('\n');
      const body = stdout.slice(0, cut);
      return { status: Number(stdout.slice(cut + 1)), headers: {}, body, json: () => JSON.parse(body) } as RawResponse;
    },
    'oauth1 consumer secret': () => {
      const data = { oauth_callback: 'oob' };
      const authorization = oauth1.toHeader(oauth1.authorize({ url: requestTokenUrl, method: 'POST', data })).Authorization;
      return rawRequest(requestTokenUrl, { method: 'POST', headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' } });
    },
  };
}

describe('restore drill: the backup CronJob dumps, the database is lost, mongorestore brings it back', () => {
  const { redisUrl } = requireStoreUrls();
  const keys = { CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url'), SESSION_SIGNING_KEY: randomBytes(32).toString('base64url') };
  const originalUrl = isolatedMongoUrl('backup_drill');
  const { server, database } = splitUrl(originalUrl);
  const workDir = mkdtempSync(join(tmpdir(), 'backup-drill-'));
  const archive = join(workDir, `${database}.archive.gz`);
  const accounts: Account[] = [];
  let system: RunningSystem | undefined;
  let mongo: MongoClient;

  const startOn = async (mongoUrl: string, env: Record<string, string>) => {
    system = await startSystem({ MONGO_URL: mongoUrl, REDIS_URL: redisUrl, ...env });
    return system;
  };
  const stop = async () => {
    await system?.stop();
    system = undefined;
  };

  beforeAll(async () => {
    mongo = await MongoClient.connect(server);
    const before = await startOn(originalUrl, keys);
    // Two accounts, the first with two apps (one with redirect URIs, narrowed scopes), the second with one.
    for (const appsWanted of [2, 1]) {
      const email = `drill-${randomBytes(5).toString('hex')}@example.org`;
      const registered = await apiRequest(before.baseUrl, 'POST', '/api/auth/register', { body: { email, password: PASSWORD } });
      expect(registered.status).toBe(201);
      const account: Account = { email, session: registered.json().token, apps: [] };
      for (let i = 0; i < appsWanted; i++) {
        const body = i === 0 ? { name: `drill app ${i}` } : { name: `drill app ${i}`, scopes: ['hr:read'], redirectUris: ['https://client.example/cb'] };
        const created = await apiRequest(before.baseUrl, 'POST', '/api/apps', { token: account.session, body });
        expect(created.status).toBe(201);
        account.apps.push(created.json());
      }
      accounts.push(account);
    }
    // Every credential works before the backup: the drill compares like with like.
    for (const app of accounts.flatMap((a) => a.apps)) {
      for (const [name, use] of Object.entries(credentialUses(before.baseUrl, app))) {
        expect([name, (await use()).status]).toEqual([name, 200]);
      }
    }
    // Stopped before the dump, as the CronJob's dump of a quiet database would see it.
    await stop();

    const { mongodump, mongorestore } = toolPaths();
    // The dump is the chart's own: its CronJob's script as helm renders it, with mongodump on the PATH.
    const { script, env } = renderedBackupJob(['--set', 'backup.retention.count=3', '--set', 'backup.retention.days=30']);
    const prefix = env.BACKUP_PREFIX;
    const backupDir = join(workDir, 'backup');
    mkdirSync(backupDir);
    // What earlier runs left: a dump past the age limit, three recent ones (older names) and a half-written one.
    const day = 24 * 3600;
    const now = Date.now() / 1000;
    const aged = `${prefix}-20000101T000000Z.archive.gz`;
    const recent = ['20000102T000000Z', '20000103T000000Z', '20000104T000000Z'].map((stamp) => `${prefix}-${stamp}.archive.gz`);
    for (const [name, ageDays] of [[aged, 40], ...recent.map((name) => [name, 1] as const), [`${prefix}-20000105T000000Z.archive.gz.partial`, 0]] as const) {
      writeFileSync(join(backupDir, name), 'an earlier dump');
      utimesSync(join(backupDir, name), now - ageDays * day, now - ageDays * day);
    }
    // The script calls `mongodump`, as in the mongo image; here it is the pinned build.
    const bin = join(workDir, 'bin');
    mkdirSync(bin);
    symlinkSync(mongodump, join(bin, 'mongodump'));
    const ran = await run('sh', ['-c', script], {
      env: { PATH: `${bin}:${process.env.PATH}`, ...env, BACKUP_DIR: backupDir, TMPDIR: workDir, MONGO_URL: originalUrl },
    });
    const kept = readdirSync(backupDir).sort();
    const written = kept.filter((name) => !name.startsWith(`${prefix}-2000`));
    expect(written).toHaveLength(1);
    // Retention: the 40-day-old dump and the half-written file are gone; of the rest, the newest three stay.
    expect(kept).toEqual([recent[1], recent[2], written[0]]);
    expect(ran.stdout).toMatch(new RegExp(`deleted .*${aged}`));
    expect(ran.stdout).toMatch(new RegExp(`deleted .*${recent[0]}`));
    copyFileSync(join(backupDir, written[0]), archive);
    expect(statSync(archive).size).toBeGreaterThan(0);
    await mongo.db(database).dropDatabase();
    expect(await mongo.db(database).listCollections().toArray()).toEqual([]);
    // Back as docs/operations.md restores it: the URL (the database's own) in a --config file, --drop. Without
    // the indexes here: mongorestore sends every index with the legacy "ns" option, which MongoDB ignores
    // and FerretDB 1.24 refuses ('Index option "ns" is unknown'). Identity creates every index it needs when
    // it starts, so nothing is lost (checked below); against MongoDB the procedure restores them as well.
    const config = join(workDir, 'mongorestore.yaml');
    writeFileSync(config, `uri: "${originalUrl}"\n`);
    await run(mongorestore, [`--config=${config}`, `--archive=${archive}`, '--gzip', '--drop', '--noIndexRestore', '--quiet']);
  });

  afterAll(async () => {
    await stop();
    await mongo?.db(database).dropDatabase();
    await mongo?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  describe('with the same CREDENTIAL_ENCRYPTION_KEY and SESSION_SIGNING_KEY', () => {
    let after: RunningSystem;
    beforeAll(async () => {
      after = await startOn(originalUrl, keys);
    });
    afterAll(stop);

    it('restored the collections the accounts and apps live in', async () => {
      const names = (await mongo.db(database).listCollections().toArray()).map((c) => c.name);
      expect(names).toEqual(expect.arrayContaining(['users', 'apps', 'sessions']));
      expect(await mongo.db(database).collection('apps').countDocuments()).toBe(3);
      // Identity made its indexes again at start: an App ID and an API key stay unique.
      const unique = (await mongo.db(database).collection('apps').indexes()).filter((index) => index.unique).map((index) => Object.keys(index.key));
      expect(unique).toEqual(expect.arrayContaining([['appId'], ['credentials.apiKey.lookup']]));
    });

    it('every account signs in, and a session issued before the backup still works', async () => {
      for (const account of accounts) {
        const login = await apiRequest(after.baseUrl, 'POST', '/api/auth/login', { body: { email: account.email, password: PASSWORD } });
        expect(login.status).toBe(200);
        const me = await apiRequest(after.baseUrl, 'GET', '/api/me', { token: login.json().token });
        expect(me.json().email).toBe(account.email);
        expect((await apiRequest(after.baseUrl, 'GET', '/api/me', { token: account.session })).status).toBe(200);
      }
    });

    it('every app is listed with its App ID, scopes and redirect URIs', async () => {
      for (const account of accounts) {
        const listed = (await apiRequest(after.baseUrl, 'GET', '/api/apps', { token: account.session })).json().apps as CreatedApp[];
        expect(listed.map(({ id, appId, scopes }) => ({ id, appId, scopes }))).toEqual(account.apps.map(({ id, appId, scopes }) => ({ id, appId, scopes })));
      }
      const narrowed = accounts[0].apps[1];
      expect((await apiRequest(after.baseUrl, 'GET', `/api/apps/${narrowed.id}`, { token: accounts[0].session })).json().redirectUris).toEqual([
        'https://client.example/cb',
      ]);
    });

    it('every credential of every app authenticates: App Secret, bearer token, API key (as HMAC, Digest and OAuth 1.0a secret too)', async () => {
      for (const app of accounts.flatMap((a) => a.apps)) {
        for (const [name, use] of Object.entries(credentialUses(after.baseUrl, app))) {
          const res = await use();
          expect([app.appId, name, res.status]).toEqual([app.appId, name, 200]);
          if (name !== 'oauth2 client secret' && name !== 'oauth1 consumer secret')
            expect(res.json()).toMatchObject({ authenticated: true, app: { appId: app.appId } });
        }
      }
    });
  });

  describe('with a different CREDENTIAL_ENCRYPTION_KEY', () => {
    let wrongKey: RunningSystem;
    beforeAll(async () => {
      wrongKey = await startOn(originalUrl, { ...keys, CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url') });
    });
    afterAll(stop);

    it('accounts, apps and the hashed credentials (App Secret, bearer token) still work: they use no key', async () => {
      const [account] = accounts;
      expect((await apiRequest(wrongKey.baseUrl, 'POST', '/api/auth/login', { body: { email: account.email, password: PASSWORD } })).status).toBe(200);
      expect((await apiRequest(wrongKey.baseUrl, 'GET', '/api/apps', { token: account.session })).json().apps).toHaveLength(2);
      const uses = credentialUses(wrongKey.baseUrl, account.apps[0]);
      expect((await uses.basic()).status).toBe(200);
      expect((await uses.bearer()).status).toBe(200);
    });

    it('every use of an API key is refused with 401 and a reason, never a 500', async () => {
      for (const app of accounts.flatMap((a) => a.apps)) {
        const uses = credentialUses(wrongKey.baseUrl, app);
        for (const name of ['api key', 'hmac', 'digest', 'oauth1 consumer secret']) {
          const res = await uses[name]();
          expect([app.appId, name, res.status]).toEqual([app.appId, name, 401]);
        }
      }
      const apiKey = await credentialUses(wrongKey.baseUrl, accounts[0].apps[0])['api key']();
      expect(apiKey.json().error.message).toMatch(/API key is not valid/);
      const hmac = await credentialUses(wrongKey.baseUrl, accounts[0].apps[0]).hmac();
      expect(hmac.json().error).toMatchObject({ code: 'api_key_unreadable', message: expect.stringMatching(/different server key .* Rotate the API key/) });
    });

    it('a rotated API key is sealed with the current key and works everywhere again', async () => {
      const [account] = accounts;
      const app = account.apps[0];
      const rotated = await apiRequest(wrongKey.baseUrl, 'POST', `/api/apps/${app.id}/rotate`, { token: account.session, body: { apiKey: true } });
      expect(rotated.status).toBe(200);
      const uses = credentialUses(wrongKey.baseUrl, { ...app, apiKey: rotated.json().apiKey });
      for (const name of ['api key', 'hmac', 'digest', 'oauth1 consumer secret']) expect([name, (await uses[name]()).status]).toEqual([name, 200]);
    });
  });
});
