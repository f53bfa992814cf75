// What the stores did while a benchmark ran (issue #32): the operations the
// sandbox's own store metrics counted (sandbox_store_operations_total, by
// service, store and operation), the commands the stores themselves answered
// (FerretDB's serverStatus, Redis's INFO commandstats), and the CPU the store
// processes used (FerretDB, PostgreSQL with its backends, Redis; from /proc).
// Each is taken as a snapshot; `difference(before, after)` is what happened
// between two.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import Redis from 'ioredis';
import { cpuSeconds } from './lib.mjs';

/** The `metrics listening` lines of a sandbox's log: each process's /metrics URL, by its service. */
export function metricsUrls(logFile) {
  const urls = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{') || !line.includes('metrics listening')) continue;
    try {
      const record = JSON.parse(line);
      if (record.msg === 'metrics listening') urls.push({ service: record.service, url: record.url });
    } catch {
      // a line cut short by the read: not one we need
    }
  }
  return urls;
}

/** Every process's counted store operations, summed over replicas: `{ "<service> <store> <operation>": count }`. */
export async function countedOperations(urls) {
  const counts = {};
  await Promise.all(
    urls.map(async ({ service, url }) => {
      const text = await (await fetch(url)).text();
      for (const m of text.matchAll(/^sandbox_store_operations_total\{([^}]*)\} (\S+)$/gm)) {
        const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
        const key = `${service} ${labels.store} ${labels.operation}`;
        counts[key] = (counts[key] ?? 0) + Number(m[2]);
      }
    }),
  );
  return counts;
}

/**
 * Commands a MongoDB-wire server answered that are not the drivers' own
 * housekeeping (handshakes, monitoring, the serverStatus asked here):
 * FerretDB counts every command it handled in serverStatus.metrics.commands.
 */
const MONGO_HOUSEKEEPING = new Set([
  'unknown',
  'hello',
  'isMaster',
  'ismaster',
  'serverStatus',
  'endSessions',
  'buildInfo',
  'getParameter',
  'saslStart',
  'saslContinue',
]);

export async function storeClients(mongoUrl, redisUrl) {
  const mongo = mongoUrl ? await MongoClient.connect(mongoUrl, { maxPoolSize: 1 }) : undefined;
  const redis = redisUrl ? new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 }) : undefined;
  return {
    async mongoCommands() {
      if (!mongo) return {};
      const status = await mongo.db('admin').command({ serverStatus: 1 });
      const commands = status.metrics?.commands ?? {};
      return Object.fromEntries(
        Object.entries(commands)
          .filter(([name]) => !MONGO_HOUSEKEEPING.has(name))
          .map(([name, c]) => [name, c.total]),
      );
    },
    /** Redis commands by name (INFO commandstats), without the INFO asked here. */
    async redisCommands() {
      if (!redis) return {};
      const text = await redis.info('commandstats');
      const commands = {};
      for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info') commands[m[1]] = Number(m[2]);
      return commands;
    },
    async close() {
      await mongo?.close();
      redis?.disconnect();
    },
  };
}

// ------------------------------------------------------------ store processes

/** The process listening on a loopback TCP port (from /proc/net/tcp and each process's fds); undefined when not found or not ours to see. */
export function listenerPid(port) {
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A') continue; // LISTEN
      if (Number.parseInt(fields[1].split(':')[1], 16) === port) inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let fds = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link.startsWith('socket:[') && inodes.has(link.slice(8, -1))) return Number(pid);
      } catch {
        // gone, or not ours
      }
    }
  }
  return undefined;
}

const statFields = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds of a process and every descendant it has reaped (cutime,
 * cstime) and still runs (its children's own): PostgreSQL's postmaster forks
 * a backend per connection and reaps it when it ends, so this is all the CPU
 * the cluster has used since it started.
 */
export function treeCpuSeconds(pid) {
  const own = statFields(pid);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const child of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const fields = statFields(child);
      if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // ended meanwhile: its time is now in the parent's cutime
    }
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * The store processes behind MONGO_URL and REDIS_URL when they run on this
 * machine: FerretDB (the MongoDB-wire server), the PostgreSQL it uses (its
 * --postgresql-url), and Redis. Each is undefined when not found (a remote
 * store): its CPU is then not reported.
 */
export function storeProcesses(mongoUrl, redisUrl) {
  const portOf = (url) => (url ? Number(new URL(url).port) : undefined);
  const ferretdb = mongoUrl ? listenerPid(portOf(mongoUrl)) : undefined;
  let postgres;
  if (ferretdb) {
    const cmdline = readFileSync(`/proc/${ferretdb}/cmdline`, 'utf8').split('\0');
    const url = cmdline.find((arg) => arg.startsWith('--postgresql-url='))?.slice('--postgresql-url='.length);
    if (url) postgres = listenerPid(Number(new URL(url).port));
  }
  const redis = redisUrl ? listenerPid(portOf(redisUrl)) : undefined;
  return { ferretdb, postgres, redis };
}

/** CPU seconds of each store process found (PostgreSQL with its backends). */
export function storeCpu({ ferretdb, postgres, redis }) {
  const cpu = {};
  if (ferretdb) cpu.ferretdb = cpuSeconds(ferretdb);
  if (postgres) cpu.postgres = treeCpuSeconds(postgres);
  if (redis) cpu.redis = cpuSeconds(redis);
  return cpu;
}

/** `after - before` of every key of two snapshots of counts. */
export function difference(before, after) {
  const out = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[key] ?? 0) - (before[key] ?? 0);
    if (d !== 0) out[key] = d;
  }
  return out;
}

export const sum = (counts) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Requests the gateways answered so far (sandbox_http_requests_total, every route and status), summed over the gateways given. */
export async function answeredRequests(gatewayUrls) {
  let total = 0;
  for (const { url } of gatewayUrls) {
    const text = await (await fetch(url)).text();
    for (const m of text.matchAll(/^sandbox_http_requests_total\{[^}]*\} (\S+)$/gm)) total += Number(m[1]);
  }
  return total;
}
