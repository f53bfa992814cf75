import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GrpcTls } from '@sandbox/runtime';
import { AnswerLog, unwatchAnswers, watchAnswers } from './answer-log';
import { compileCache } from './node-env';
import { freePort } from './ports';
import { testTransport } from './transport';

const ROOT = join(__dirname, '..', '..');
type ServiceName = 'identity' | 'oauth' | 'data' | 'playground' | 'gateway';

export interface SystemOptions {
  timeoutMs?: number;
  /** Give every process a metrics listener on a free port (metricsUrls). */
  metrics?: boolean;
}

/** The variable naming each process's metrics port (the gateway's has no prefix). */
export const METRICS_PORT_VARIABLES: Readonly<Record<ServiceName, string>> = {
  gateway: 'METRICS_PORT',
  identity: 'IDENTITY_METRICS_PORT',
  oauth: 'OAUTH_METRICS_PORT',
  data: 'DATA_METRICS_PORT',
  playground: 'PLAYGROUND_METRICS_PORT',
};

export interface RunningSystem {
  baseUrl: string;
  /** Each process's `GET /metrics` URL, when the system was started with `metrics: true`. */
  metricsUrls?: Readonly<Record<ServiceName, string>>;
  env: NodeJS.ProcessEnv;
  /** Output of every process so far (JSON log lines), for assertions about logs. */
  output(): string;
  /** The process id of each service as the launcher started it; with REPLICAS, also `data#2` and so on. */
  pids: Readonly<Record<ServiceName, number>> & Readonly<Record<string, number>>;
  /** SIGTERM one service process and wait for it to exit. */
  stopService(name: ServiceName): Promise<void>;
  /** Start one service again, alone, with the system's environment (as `npm run start:<name>` would). */
  startService(name: ServiceName): Promise<void>;
  /** What promiseClient takes to call this system's services as `name` (the launcher's certificate for it). */
  tlsAs(name: string): { tls: GrpcTls };
  stop(): Promise<void>;
}

/**
 * The whole sandbox exactly as `npm start` runs it (the launcher and five
 * processes talking gRPC over loopback), on free ports, with the given extra
 * environment (e.g. MONGO_URL, REDIS_URL). Needs a build (npm test does it).
 */
export async function startSystem(extraEnv: NodeJS.ProcessEnv = {}, options: number | SystemOptions = {}): Promise<RunningSystem> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSystemOnce(extraEnv, options);
    } catch (error) {
      // The launcher picks its extra replicas' ports from the kernel's ephemeral range, which another
      // system's launcher, or an outgoing connection, may take before the replica binds: that replica
      // then exits and the launcher with it (it never takes a stranger's answers for its own). Fresh ports
      // make a new system; any other failure is the test's to see.
      if (attempt === PORT_CLASH_ATTEMPTS || !/EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

const PORT_CLASH_ATTEMPTS = 3;

async function startSystemOnce(extraEnv: NodeJS.ProcessEnv, options: number | SystemOptions): Promise<RunningSystem> {
  const { timeoutMs = 60_000, metrics = false } = typeof options === 'number' ? { timeoutMs: options } : options;
  const ports = { gateway: await freePort(), identity: await freePort(), oauth: await freePort(), data: await freePort(), playground: await freePort() };
  const metricsPorts = metrics
    ? { gateway: await freePort(), identity: await freePort(), oauth: await freePort(), data: await freePort(), playground: await freePort() }
    : undefined;
  const metricsEnv = metricsPorts
    ? Object.fromEntries(Object.entries(metricsPorts).map(([name, port]) => [METRICS_PORT_VARIABLES[name as ServiceName], String(port)]))
    : {};
  // Every answer the gateway writes, for the contract check after each test (answer-log.ts).
  const answers = new AnswerLog();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...compileCache(),
    LOG_LEVEL: 'info',
    RESPONSE_RECORD_FILE: answers.file,
    HOST: '127.0.0.1',
    GRPC_TRANSPORT: testTransport(),
    PORT: String(ports.gateway),
    IDENTITY_GRPC_PORT: String(ports.identity),
    OAUTH_GRPC_PORT: String(ports.oauth),
    DATA_GRPC_PORT: String(ports.data),
    PLAYGROUND_GRPC_PORT: String(ports.playground),
    // Required by identity whenever MONGO_URL is set; fresh per system.
    CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    SESSION_SIGNING_KEY: randomBytes(32).toString('base64url'),
    PAGE_TOKEN_KEY: randomBytes(32).toString('base64url'),
    // The launcher writes every process's certificate here, so a process a test starts alone joins the run.
    GRPC_TLS_RUN_DIR: mkdtempSync(join(tmpdir(), 'system-tls-')),
    JWT_SIGNING_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    ...metricsEnv,
    ...extraEnv,
  };
  let output = '';
  const extra = new Map<string, ChildProcess>();
  const launcher = spawn(process.execPath, [join(ROOT, 'packages', 'launcher', 'dist', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  launcher.stdout.on('data', collect);
  launcher.stderr.on('data', collect);

  const ready = await new Promise<string>((resolve, reject) => {
    const fail = (error: Error) => {
      launcher.kill('SIGTERM'); // never leave a half-started system behind
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`system not ready within ${timeoutMs} ms:\n${output.slice(-4000)}`)), timeoutMs);
    const watch = () => {
      const line = /Training Sandbox is ready at (\S+) .*\)/.exec(output);
      if (line) {
        clearTimeout(timer);
        launcher.stdout.off('data', watch);
        resolve(line[0]);
      }
    };
    launcher.stdout.on('data', watch);
    launcher.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`launcher exited with ${code} before ready:\n${output.slice(-4000)}`));
    });
  });
  const pids = Object.fromEntries([...ready.matchAll(/([\w#]+)=(\d+)/g)].map((m) => [m[1], Number(m[2])]));

  const waitExit = (pid: number) =>
    new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        try {
          process.kill(pid, 0);
        } catch {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });

  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  const system: RunningSystem = {
    baseUrl,
    metricsUrls: metricsPorts
      ? (Object.fromEntries(Object.entries(metricsPorts).map(([name, port]) => [name, `http://127.0.0.1:${port}/metrics`])) as Record<ServiceName, string>)
      : undefined,
    env,
    output: () => output,
    pids: pids as Record<ServiceName, number> & Record<string, number>,
    async stopService(name) {
      const child = extra.get(name);
      if (child?.pid) {
        child.kill('SIGTERM');
        await waitExit(child.pid);
        extra.delete(name);
        return;
      }
      process.kill(pids[name], 'SIGTERM');
      await waitExit(pids[name]);
    },
    tlsAs: (name) => ({ tls: { mode: 'mtls', dir: join(env.GRPC_TLS_RUN_DIR!, name), refreshMs: 60_000 } }),
    async startService(name) {
      const child = spawn(process.execPath, [join(ROOT, 'services', name, 'dist', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      extra.set(name, child);
    },
    async stop() {
      for (const child of extra.values()) child.kill('SIGTERM');
      launcher.kill('SIGTERM');
      await Promise.all([launcher, ...extra.values()].map((c) => (c.pid && c.exitCode === null ? waitExit(c.pid) : Promise.resolve())));
      unwatchAnswers(baseUrl);
      rmSync(env.GRPC_TLS_RUN_DIR!, { recursive: true, force: true });
    },
  };
  watchAnswers(baseUrl, answers);
  return system;
}
