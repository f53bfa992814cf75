import { ConfigError, type GrpcTls } from '@sandbox/runtime';
import { loadLauncherConfig, type LauncherConfig } from './config';
import { planReplicas, type Replica, type ReplicaPlan } from './replicas';
import { Supervisor } from './supervisor';
import { makeRunCertificates, type RunCertificates } from './tls';
import { waitForGatewayReady, waitForServing } from './wait';

/**
 * `npm start`: the whole sandbox on one machine, each service in its own
 * process talking gRPC over loopback, stores in memory unless MONGO_URL /
 * REDIS_URL say otherwise. A service that dies is reported and left down, so
 * a person can practise outages (GET /health/ready names it) and bring it back
 * with `npm run start:<name>`. REPLICAS=2 (or `<NAME>_REPLICAS`) runs that
 * many processes of each, every one on its own port, callers spreading their
 * calls over a service's replicas as they do over a headless Service's pods.
 * SIGHUP restarts every process, one at a time, as a rolling upgrade does.
 */
let supervisor: Supervisor | undefined;
let certificates: RunCertificates | undefined;
/** What the launcher's own health checks present: its certificate, or nothing with GRPC_TLS=off. */
let launcherTls: GrpcTls = { mode: 'off' };

async function main(config: LauncherConfig): Promise<void> {
  const started = Date.now();
  const plan = await planReplicas(config.replicas, process.env, {
    gatewayPort: config.gatewayPort,
    gatewayHost: config.gatewayHost,
    grpcPorts: config.grpcPorts,
    grpcHost: (name) => config.grpcHosts[name],
  });
  for (const note of plan.notes) console.error(`launcher: ${note}`);
  if (config.grpcTls !== 'off') {
    certificates = await makeRunCertificates([...new Set(plan.replicas.map((r) => r.name))], config.grpcTlsRefreshMs, config.grpcTlsRunDir);
    process.once('exit', () => certificates?.remove());
    // The launcher calls as the processes do: with its certificate once they send TLS, in plaintext before.
    if (config.grpcTls === 'on' || config.grpcTls === 'send-tls') launcherTls = certificates.launcher;
    // Each process its own certificate; they all trust this run's CA.
    for (const replica of plan.replicas) replica.env.GRPC_TLS_DIR = certificates.dirOf(replica.name);
  }
  if (config.grpcTls === 'off') {
    console.error('launcher: GRPC_TLS=off: the services take gRPC calls from anyone who can reach their ports. For local debugging only.');
  } else if (config.grpcTls !== 'on') {
    console.error(
      `launcher: GRPC_TLS=${config.grpcTls}: the services take gRPC calls in plaintext too, from anyone who can reach their ports. A setting for moving a release to mutual TLS or back (docs/security.md); GRPC_TLS=on is the one to run.`,
    );
  }
  const running = new Supervisor(plan);
  supervisor = running;
  const services = plan.replicas.filter((replica) => replica.name !== 'gateway');
  for (const replica of services) running.start(replica);
  // Every service replica must serve before the gateways start.
  await Promise.all(services.map((replica) => readiness(running, replica, plan, config)));
  const gateways = plan.replicas.filter((r) => r.name === 'gateway');
  for (const replica of gateways) running.start(replica);
  await Promise.all(gateways.map((replica) => readiness(running, replica, plan, config)));
  const urls = plan.gatewayPorts.map((port) => `${config.scheme}://127.0.0.1:${port}`);
  console.log(`Training Sandbox is ready at ${urls.join(' ')} (in ${Date.now() - started} ms; ${running.pids()})`);
  onHangUp = () => void rollingRestart(running, plan, config);
}

/** SIGHUP's handler: nothing until the sandbox is ready (Node's default for SIGHUP would end the launcher). */
let onHangUp = () => console.error('launcher: SIGHUP ignored: the sandbox is not ready yet');
process.on('SIGHUP', () => onHangUp());

let restarting = false;

/**
 * After a service replica serves again, how long before the next is stopped,
 * as a Deployment's minReadySeconds: its callers retry a replica they lost
 * at most a second apart (the call-stream pool's backoff cap), so by then
 * they have it back. Without it, stopping its sibling at once left a caller
 * with no replica it could reach for up to that second (503s in CI's run).
 */
const SETTLE_MS = 2000;

/**
 * Every process stopped and started again, one replica at a time, services
 * first and gateways last, each waited for until it serves before the next
 * goes: with two or more replicas of each, the sandbox keeps answering
 * throughout (bench/chaos/rolling-restart.mjs proves it under load).
 */
async function rollingRestart(running: Supervisor, plan: ReplicaPlan, config: LauncherConfig): Promise<void> {
  if (restarting) return console.error('launcher: a rolling restart is already under way');
  restarting = true;
  const started = Date.now();
  console.error(`launcher: rolling restart of ${plan.replicas.length} processes, one at a time`);
  try {
    for (const replica of plan.replicas) {
      const began = Date.now();
      const child = await running.replace(replica, () => readiness(running, replica, plan, config), config.stopTimeoutMs);
      console.error(`launcher: rolling restart: ${replica.label}=${child.pid} serves again (${Date.now() - began} ms)`);
      // Gateways are the last, and a load balancer finds a new one through its readiness, not by retrying.
      if (replica.name !== 'gateway') await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    }
    console.error(`launcher: rolling restart done in ${Date.now() - started} ms (${running.pids()})`);
  } catch (error) {
    console.error(`launcher: rolling restart stopped: ${(error as Error).message}`);
  } finally {
    restarting = false;
  }
}

/**
 * A replica is ready once its own process has bound its port (so what answers
 * there is that process) and then says it serves: grpc.health.v1 SERVING for
 * a service, /health/ready 200 for a gateway. A lone service replica is asked
 * at its configured address (peers), as its callers reach it.
 */
async function readiness(running: Supervisor, replica: Replica, plan: ReplicaPlan, config: LauncherConfig): Promise<void> {
  await running.started(replica.label, config.startupTimeoutMs);
  const index = plan.replicas.filter((r) => r.name === replica.name).indexOf(replica);
  if (replica.name === 'gateway') return waitForGatewayReady(`${config.scheme}://127.0.0.1:${plan.gatewayPorts[index]}`, config.startupTimeoutMs);
  const address = config.replicas[replica.name] > 1 ? plan.addresses[replica.name][index] : config.peers[replica.name];
  return waitForServing(replica.label, replica.name, address, config.startupTimeoutMs, launcherTls);
}

process.once('SIGINT', () => stopAll('SIGINT'));
process.once('SIGTERM', () => stopAll('SIGTERM'));

function stopAll(signal: NodeJS.Signals): void {
  if (supervisor) supervisor.stopAll(signal);
  else process.exit(process.exitCode ?? 1);
}

try {
  const config = loadLauncherConfig();
  main(config).catch((error: Error) => {
    console.error(`launcher: ${error.message}`);
    process.exitCode = 1;
    stopAll('SIGTERM');
  });
} catch (error) {
  console.error(`launcher: ${error instanceof ConfigError ? error.message : (error as Error).message}`);
  process.exit(1);
}
