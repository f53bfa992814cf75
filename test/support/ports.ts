import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/*
 * Ports for what the tests start come from a block below the kernel's
 * ephemeral range (32768-60999 on Linux), one block per jest worker. A port
 * the kernel picked for `listen(0)` is free only until someone binds it: two
 * workers (or a launcher choosing its replicas' ports, or any outgoing
 * connection) could be handed the same one before the process meant for it
 * had bound it, and then one system's gateway talked to another's service.
 * Within a worker, test files run one after another and a port is taken only
 * if it binds right now.
 */
const FIRST_PORT = 20_000;
const PORTS_PER_WORKER = 1_500;
const WORKERS = 8;

const worker = (Number(process.env.JEST_WORKER_ID ?? '1') - 1) % WORKERS;
let next = randomInt(PORTS_PER_WORKER);

/** A loopback port of this worker's block that nothing holds now. */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < PORTS_PER_WORKER; tried++) {
    const port = FIRST_PORT + worker * PORTS_PER_WORKER + (next++ % PORTS_PER_WORKER);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port left in ${FIRST_PORT + worker * PORTS_PER_WORKER}-${FIRST_PORT + (worker + 1) * PORTS_PER_WORKER - 1}`);
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
