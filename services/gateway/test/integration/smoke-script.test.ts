import { spawn } from 'node:child_process';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { compileCache, isolatedMongoUrl, requireStoreUrls, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(60_000);

/*
 * deploy/docker/smoke-test.cjs, the script `helm test` runs in the image, run
 * the same way (a child `node` process, nothing but a URL) against the whole
 * sandbox with real MongoDB and Redis. The tests share one system and run in
 * order: the last one stops the data service.
 */
const SCRIPT = join(__dirname, '..', '..', '..', '..', 'deploy', 'docker', 'smoke-test.cjs');

interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runScript(baseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, baseUrl], { env: { PATH: process.env.PATH, ...compileCache(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the smoke-test script against the running sandbox', () => {
  let system: RunningSystem;
  let mongoUrl: string;

  const countIn = async (collection: string, filter: Record<string, unknown> = {}) => {
    const connection = await mongoose.createConnection(mongoUrl).asPromise();
    try {
      return await connection.collection(collection).countDocuments(filter);
    } finally {
      await connection.close();
    }
  };

  beforeAll(async () => {
    mongoUrl = isolatedMongoUrl('smoke_script');
    system = await startSystem({ MONGO_URL: mongoUrl, REDIS_URL: requireStoreUrls().redisUrl });
  });

  afterAll(async () => {
    await system?.stop();
    const connection = await mongoose.createConnection(mongoUrl).asPromise();
    await connection.db?.dropDatabase();
    await connection.close();
  });

  it('when everything is up, then every step passes, it exits 0 and leaves no app or session behind', async () => {
    const run = await runScript(system.baseUrl);

    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const results = run.stdout.split('\n').filter((line) => /^(not )?ok - /.test(line));
    expect(results).toEqual(['ok - ready', 'ok - register account', 'ok - create app', 'ok - data page with api key', 'ok - delete app', 'ok - sign out']);
    // The API cannot delete an account, so exactly the script's account stays, empty.
    const email = /^# account (\S+@example\.org) stays/m.exec(run.stdout)?.[1];
    expect(email).toMatch(/^smoke-test-/);
    expect(await countIn('users')).toBe(1);
    expect(await countIn('users', { email })).toBe(1);
    expect(await countIn('apps')).toBe(0);
    expect(await countIn('sessions')).toBe(0);
  });

  it('when it runs, then it prints no password, token or key: nothing long and random outside the account name', async () => {
    const run = await runScript(system.baseUrl);

    expect(run.code).toBe(0);
    const email = /^# account (\S+) stays/m.exec(run.stdout)?.[1] ?? '';
    const printed = run.stdout.replace(email, '<email>');
    for (const line of printed.trim().split('\n')) expect(line).toMatch(/^(ok - |not ok - |# )/);
    expect(printed).not.toMatch(/[A-Za-z0-9_+/=-]{20,}/);
    expect(printed).not.toMatch(/bt_|Bearer|eyJ/);
  });

  it('when the data service is stopped, then it exits non-zero on a "not ok - ready" line naming data, and creates nothing', async () => {
    const usersBefore = await countIn('users');
    await system.stopService('data');

    const run = await runScript(system.baseUrl, { SMOKE_READY_SECONDS: '3' });

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^not ok - ready: not ready within 3 s: 503 \(down: data\)$/m);
    expect(run.stdout).not.toMatch(/register account/);
    expect(await countIn('users')).toBe(usersBefore);
  });
});
