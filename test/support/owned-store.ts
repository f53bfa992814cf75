import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './ports';

const ROOT = join(__dirname, '..', '..');
const START_TIMEOUT_MS = 20_000;

/**
 * A store process a test owns, so that it can crash it (an outage) and start
 * it again on the same port with the same data. The shared stores of
 * MONGO_URL and REDIS_URL are never stopped: other test files use them.
 */
export interface OwnedStore {
  url: string;
  /** kill -9, resolved once it has exited. */
  kill(): Promise<void>;
  /** Starts it again; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Kills it and removes its data. */
  remove(): Promise<void>;
}

/**
 * A redis-server (REDIS_SERVER_BIN, else the one on PATH) whose every
 * acknowledged write is in its append-only file, fsynced, before it answers:
 * what it said it stored is there after a kill.
 */
export async function ownRedis(): Promise<OwnedStore> {
  const port = await freePort();
  return owned(
    process.env.REDIS_SERVER_BIN ?? 'redis-server',
    (dir) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir],
    port,
    `redis://127.0.0.1:${port}`,
  );
}

/** FerretDB on SQLite (FERRETDB_BIN, else the one scripts/lib/provision.sh built into .tools). */
export async function ownFerretDb(): Promise<OwnedStore> {
  const port = await freePort();
  return owned(
    process.env.FERRETDB_BIN ?? provisionedFerretDb(),
    (dir) => [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${dir}`,
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=error',
    ],
    port,
    `mongodb://127.0.0.1:${port}`,
  );
}

function provisionedFerretDb(): string {
  const name = readdirSync(join(ROOT, '.tools'), { withFileTypes: true }).find((entry) => entry.isFile() && entry.name.startsWith('ferretdb-'))?.name;
  if (!name) throw new Error('no FerretDB: set FERRETDB_BIN, or run `npm test` once (scripts/lib/provision.sh builds it into .tools)');
  return join(ROOT, '.tools', name);
}

async function owned(command: string, args: (dir: string) => string[], port: number, url: string): Promise<OwnedStore> {
  const dir = mkdtempSync(join(tmpdir(), 'owned-store-'));
  let child: ChildProcess | undefined;
  const kill = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  const start = async () => {
    let spawnError: Error | undefined;
    child = spawn(command, args(dir), { stdio: 'ignore' });
    child.once('error', (error) => (spawnError = error));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await accepts(port))) {
      if (spawnError) throw new Error(`${command} could not be started: ${spawnError.message}`);
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) throw new Error(`${command} did not start listening on port ${port}`);
      await sleep(20);
    }
  };
  const store = {
    url,
    kill,
    start,
    remove: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await start();
  } catch (error) {
    await store.remove();
    throw error;
  }
  return store;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
