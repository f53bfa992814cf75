import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, SERVICE_NAMES } from '@sandbox/runtime';
import { loadLauncherConfig, type LauncherConfig } from './config';
import { planReplicas, type ProcessName, type Replica } from './replicas';
import { waitForGatewayReady, waitForServing } from './wait';

/**
 * `npm start`: the whole sandbox on one machine, each service in its own
 * process talking gRPC over loopback, stores in memory unless MONGO_URL /
 * REDIS_URL say otherwise. A service that dies is reported and left down, so
 * a person can practise outages (GET /health/ready names it) and bring it back
 * with `npm run start:<name>`. REPLICAS=2 (or `<NAME>_REPLICAS`) runs that
 * many processes of each, every one on its own port, callers spreading their
 * calls over a service's replicas as they do over a headless Service's pods.
 */
const ROOT = join(__dirname, '..', '..', '..');
const entry = (name: ProcessName) => join(ROOT, 'services', name, 'dist', 'main.js');

const children = new Map<string, ChildProcess>();
let stopping = false;

function launch(replica: Replica, shared: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [entry(replica.name)], { stdio: 'inherit', env: { ...process.env, ...shared, ...replica.env } });
  children.set(replica.label, child);
  child.on('exit', (code, signal) => {
    children.delete(replica.label);
    if (stopping) return;
    console.error(`launcher: ${replica.label} exited (${signal ?? `code ${code}`}); the others keep running. Start it again with: npm run start:${replica.name}`);
  });
  return child;
}

async function main(config: LauncherConfig): Promise<void> {
  const started = Date.now();
  const plan = await planReplicas(config.replicas, process.env, {
    gatewayPort: config.gatewayPort,
    gatewayHost: config.gatewayHost,
    grpcPorts: config.grpcPorts,
    grpcHost: (name) => config.grpcHosts[name],
  });
  for (const note of plan.notes) console.error(`launcher: ${note}`);
  const services = plan.replicas.filter((replica) => replica.name !== 'gateway');
  for (const replica of services) launch(replica, plan.shared);
  // One replica keeps the configured address (peers); every one must serve before the gateway starts.
  const addresses = SERVICE_NAMES.flatMap((name) => (config.replicas[name] > 1 ? plan.addresses[name] : [config.peers[name]]).map((address) => [name, address] as const));
  await Promise.all(addresses.map(([name, address]) => waitForServing(name, address, config.startupTimeoutMs)));
  for (const replica of plan.replicas.filter((r) => r.name === 'gateway')) launch(replica, plan.shared);
  const urls = plan.gatewayPorts.map((port) => `${config.scheme}://127.0.0.1:${port}`);
  await Promise.all(urls.map((url) => waitForGatewayReady(url, config.startupTimeoutMs)));
  const pids = [...children].map(([label, child]) => `${label}=${child.pid}`).join(' ');
  console.log(`Training Sandbox is ready at ${urls.join(' ')} (in ${Date.now() - started} ms; ${pids})`);
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
      process.exit(process.exitCode ?? 0);
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
