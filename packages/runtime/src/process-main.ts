import { ConfigError } from './config';
import { startTracing, stopTracing } from './tracing-start';

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Tells the launcher, when it started this process with an IPC channel, that
 * its listeners are bound: only then is an answer on its port this process's
 * own, and not another program's that took the port between the launcher's
 * choice and this bind. The channel then stops holding the process open.
 */
function reportStarted(): void {
  if (!process.send) return;
  process.send({ started: true });
  process.channel?.unref();
}

/**
 * Process entry for every service: start tracing (when OTEL_* ask for it),
 * boot, then stop cleanly on SIGTERM/SIGINT, the last spans flushed after
 * the last calls are answered. A configuration error prints its one line and
 * exits 1; any other boot failure prints a short line (not a stack) and exits 1.
 *
 * Tracing starts before `boot` runs, and `boot` must be what first requires
 * the service's composition (main.ts imports it inside boot): the MongoDB
 * and Redis instrumentations patch their drivers only as they are loaded.
 */
export function runProcess(name: string, boot: () => Promise<Stoppable>): void {
  Promise.resolve()
    .then(() => {
      startTracing(name);
      return boot();
    })
    .then(
      (running) => {
        reportStarted();
        let stopping = false;
        const stop = (signal: string) => {
          if (stopping) return;
          stopping = true;
          running
            .stop()
            .then(() => stopTracing())
            .then(
              () => process.exit(0),
              (error: unknown) => {
                console.error(`${name}: error while stopping on ${signal}: ${(error as Error).message}`);
                process.exit(1);
              },
            );
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      },
      (error: unknown) => {
        const message = error instanceof ConfigError ? error.message : `failed to start: ${(error as Error).message}`;
        console.error(`${name}: ${message}`);
        process.exit(1);
      },
    );
}
