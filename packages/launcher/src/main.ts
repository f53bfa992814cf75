import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, SERVICE_NAMES, type ServiceName } from '@sandbox/runtime';
import { loadLauncherConfig, type LauncherConfig } from './config';
import { waitForGatewayReady, waitForServing } from './wait';

/**
 * `npm start`: the whole sandbox on one machine, each service in its own
 * process talking gRPC over loopback, stores in memory unless MONGO_URL /
 * REDIS_URL say otherwise. A service that dies is reported and left down, so
 * a person can practise outages (GET /health/ready names it) and bring it back
 * with `npm run start:<name>`.
 */
const ROOT = join(__dirname, '..', '..', '..');
const entry = (name: ServiceName | 'gateway') => join(ROOT, 'services', name, 'dist', 'main.js');

const children = new Map<string, ChildProcess>();
let stopping = false;

function launch(name: ServiceName | 'gateway'): ChildProcess {
  const child = spawn(process.execPath, [entry(name)], { stdio: 'inherit', env: process.env });
  children.set(name, child);
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (stopping) return;
    console.error(`launcher: ${name} exited (${signal ?? `code ${code}`}); the others keep running. Start it again with: npm run start:${name}`);
  });
  return child;
}

async function main(config: LauncherConfig): Promise<void> {
  const started = Date.now();
  for (const name of SERVICE_NAMES) launch(name);
  await Promise.all(SERVICE_NAMES.map((name) => waitForServing(name, config.peers[name], config.startupTimeoutMs)));
  launch('gateway');
  await waitForGatewayReady(config.gatewayUrl, config.startupTimeoutMs);
  const pids = [...children].map(([name, child]) => `${name}=${child.pid}`).join(' ');
  console.log(`Training Sandbox is ready at ${config.gatewayUrl} (in ${Date.now() - started} ms; ${pids})`);
}

function stopAll(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill(signal === 'SIGINT' ? 'SIGTERM' : signal);
  const deadline = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    process.exit(1);
  }, 15_000);
  deadline.unref();
  const check = setInterval(() => {
    if (children.size === 0) {
      clearInterval(check);
      process.exit(0);
    }
  }, 50);
}

process.once('SIGINT', () => stopAll('SIGINT'));
process.once('SIGTERM', () => stopAll('SIGTERM'));

try {
  const config = loadLauncherConfig();
  main(config).catch((error: Error) => {
    console.error(`launcher: ${error.message}`);
    stopAll('SIGTERM');
    process.exitCode = 1;
  });
} catch (error) {
  console.error(`launcher: ${error instanceof ConfigError ? error.message : (error as Error).message}`);
  process.exit(1);
}
