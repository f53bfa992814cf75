import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, SERVICE_NAMES } from '@sandbox/runtime';
import { loadLauncherConfig, type LauncherConfig } from './config';
import { planReplicas, type ProcessName, type Replica, type ReplicaPlan } from './replicas';
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

function launch(replica: Replica, plan: ReplicaPlan): ChildProcess {
  const child = spawn(process.execPath, [entry(replica.name)], { stdio: 'inherit', env: { ...process.env, ...plan.shared, ...replica.env } });
  children.set(replica.label, child);
  child.on('exit', (code, signal) => {
    children.delete(replica.label);
    if (stopping) return;
    console.error(`launcher: ${replica.label} exited (${signal ?? `code ${code}`}); the others keep running. Start it again with: ${restartCommand(replica, plan)}`);
  });
  return child;
}

/**
 * How a person starts a replica again by hand: its own ports, and the
 * address lists its calls need. Keys the launcher made up are never printed
 * (they are secrets); the hint says to set them instead.
 */
function restartCommand(replica: Replica, plan: ReplicaPlan): string {
  const siblings = plan.replicas.filter((r) => r.name === replica.name).length;
  // One of a kind, in a run with nothing shared: the environment alone says it all.
  if (siblings === 1 && Object.keys(plan.shared).length === 0) return `npm run start:${replica.name}`;
  const made = new Set(plan.madeKeys);
  const visible = Object.entries({ ...plan.shared, ...replica.env }).filter(([name]) => !made.has(name));
  const command = [...visible.map(([name, value]) => `${name}=${value}`), `npm run start:${replica.name}`].join(' ');
  return made.size > 0 ? `${command} (after setting ${[...made].join(' and ')}, which this run made up, for every replica)` : command;
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
  for (const replica of services) launch(replica, plan);
  // One replica keeps the configured address (peers); every one must serve before the gateway starts.
  const addresses = SERVICE_NAMES.flatMap((name) => (config.replicas[name] > 1 ? plan.addresses[name] : [config.peers[name]]).map((address) => [name, address] as const));
  await Promise.all(addresses.map(([name, address]) => waitForServing(name, address, config.startupTimeoutMs)));
  for (const replica of plan.replicas.filter((r) => r.name === 'gateway')) launch(replica, plan);
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
