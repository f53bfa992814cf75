import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { withTimeout } from '@sandbox/runtime';
import { SERVICE_NODE_ARGS, serviceNodeOptions } from './node-options';
import type { ProcessName, Replica, ReplicaPlan } from './replicas';

const ROOT = join(__dirname, '..', '..', '..');
const entry = (name: ProcessName) => join(ROOT, 'services', name, 'dist', 'main.js');

/**
 * The launcher's processes: starts them from the plan, says how to start one
 * again by hand when it dies, restarts them one at a time on request, and
 * stops them all.
 */
export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  /** Processes stopped on purpose (a rolling restart), whose exit is no news. */
  private readonly replacing = new Set<string>();
  /** Each replica's latest process's "started" (startedOf). */
  private readonly starts = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(private readonly plan: ReplicaPlan) {}

  start(replica: Replica): ChildProcess {
    // The IPC channel carries one message, the child's "started" (runProcess's reportStarted).
    const child = spawn(process.execPath, [...SERVICE_NODE_ARGS[replica.name], entry(replica.name)], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, ...this.plan.shared, ...replica.env, NODE_OPTIONS: serviceNodeOptions(process.env.NODE_OPTIONS) },
    });
    this.children.set(replica.label, child);
    this.starts.set(replica.label, startedOf(replica.label, child));
    child.on('exit', (code, signal) => {
      if (this.children.get(replica.label) === child) this.children.delete(replica.label);
      if (this.stopping || this.replacing.has(replica.label)) return;
      console.error(
        `launcher: ${replica.label} exited (${signal ?? `code ${code}`}); the others keep running. Start it again with: ${this.restartCommand(replica)}`,
      );
    });
    return child;
  }

  /**
   * Resolves once the replica's current process has bound its listeners, and
   * rejects if it exits first (a taken port, a bad setting): before that, an
   * answer on its port may come from another program.
   */
  started(label: string, timeoutMs: number): Promise<void> {
    const started = this.starts.get(label) ?? Promise.reject(new Error(`${label} was never started`));
    return withTimeout(started, timeoutMs, `${label} did not start listening within ${timeoutMs} ms`);
  }

  /** `label=pid` of every running process. */
  pids(): string {
    return [...this.children].map(([label, child]) => `${label}=${child.pid}`).join(' ');
  }

  /**
   * Stops one process (SIGTERM: it drains, as a pod does), waits for it to
   * exit, starts it again with the same variables and waits until `ready`
   * says it serves. Callers meanwhile use its siblings.
   */
  async replace(replica: Replica, ready: () => Promise<void>, exitTimeoutMs: number): Promise<ChildProcess> {
    const old = this.children.get(replica.label);
    this.replacing.add(replica.label);
    try {
      if (old && old.exitCode === null && old.signalCode === null) {
        const exited = new Promise<void>((resolve) => old.once('exit', () => resolve()));
        old.kill('SIGTERM');
        const timer = setTimeout(() => old.kill('SIGKILL'), exitTimeoutMs);
        await exited;
        clearTimeout(timer);
      }
    } finally {
      this.replacing.delete(replica.label);
    }
    if (this.stopping) throw new Error('the launcher is stopping');
    const child = this.start(replica);
    await ready();
    return child;
  }

  stopAll(signal: NodeJS.Signals): void {
    if (this.stopping) return;
    this.stopping = true;
    for (const child of this.children.values()) child.kill(signal === 'SIGINT' ? 'SIGTERM' : signal);
    const deadline = setTimeout(() => {
      for (const child of this.children.values()) child.kill('SIGKILL');
      process.exit(1);
    }, 15_000);
    deadline.unref();
    const check = setInterval(() => {
      if (this.children.size === 0) {
        clearInterval(check);
        process.exit(process.exitCode ?? 0);
      }
    }, 50);
  }

  /**
   * How a person starts a replica again by hand: its own ports, and the
   * address lists its calls need. Keys the launcher made up are never printed
   * (they are secrets); the hint says to set them instead.
   */
  private restartCommand(replica: Replica): string {
    const { plan } = this;
    const siblings = plan.replicas.filter((r) => r.name === replica.name).length;
    // One of a kind, in a run with nothing shared: the environment alone says it all.
    if (siblings === 1 && Object.keys(plan.shared).length === 0) return `npm run start:${replica.name}`;
    const made = new Set(plan.madeKeys);
    const visible = Object.entries({ ...plan.shared, ...replica.env }).filter(([name]) => !made.has(name));
    const command = [...visible.map(([name, value]) => `${name}=${value}`), `npm run start:${replica.name}`].join(' ');
    return made.size > 0 ? `${command} (after setting ${[...made].join(' and ')}, which this run made up, for every replica)` : command;
  }
}

/** A child's "started" message, or the reason it never came. */
function startedOf(label: string, child: ChildProcess): Promise<void> {
  const started = new Promise<void>((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if ((message as { started?: unknown } | null)?.started !== true) return;
      child.off('exit', onExit);
      child.disconnect();
      resolve();
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      child.off('message', onMessage);
      reject(new Error(`${label} exited (${signal ?? `code ${code}`}) before it started listening`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
  started.catch(() => undefined); // read by whoever waits for it; an unread rejection is not a crash
  return started;
}
