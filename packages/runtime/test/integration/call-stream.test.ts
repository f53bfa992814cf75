import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { health, transport as wire } from '@sandbox/contracts';
import * as runtime from '@sandbox/runtime';
import {
  AppError,
  CallStreamPool,
  Cancellation,
  createLogger,
  GrpcStatus,
  promiseClient,
  ServingStatus,
  startGrpcService,
  type CallContext,
  type CallOptionsLite,
  type GrpcTls,
  type GrpcTransport,
  type Resolve,
  type RunningGrpcService,
  type StreamCallError,
} from '@sandbox/runtime';
import { definition, elsewhere, implementation, PROTO_SERVICE, type TransportRequest, type TransportResponse } from '../fixtures/transport-test-service.cjs';

const NO_TLS: GrpcTls = { mode: 'off' };

/*
 * The two transports of a unary call (grpc-client.ts): `stream`, the cheap
 * hop (call-stream-client.ts / call-stream-server.ts), and `unary`, plain
 * gRPC. Real servers started with startGrpcService in this process (and one
 * in a child process, to be killed), serving a small transport test service
 * (../fixtures/transport-test-service.cjs). Several replicas share one port on
 * 127.0.0.1, 127.0.0.2 and 127.0.0.3 (all loopback), so one host name can
 * resolve to them all, as a Kubernetes headless Service does.
 *
 * The machine may be busy: every bound is generous, and conditions are
 * awaited with bounded polls rather than fixed sleeps.
 */
jest.setTimeout(60_000);

const logger = createLogger('call-stream-test', 'silent');
const TRANSPORTS: GrpcTransport[] = ['stream', 'unary'];
/** The name a headless Service would have; .invalid never resolves, so only the test's resolve function answers it. */
const SERVICE_HOST = 'transport-test.invalid';
const PEER = 'transport-test';
const REPLICA_SCRIPT = join(__dirname, '..', 'fixtures', 'transport-replica.cjs');

type Method = (request: TransportRequest, options?: CallOptionsLite) => Promise<TransportResponse>;
interface TestClient {
  echo: Method;
  whoami: Method;
  sleep: Method;
  hold: Method;
  refuse: Method;
  crash: Method;
  missing: Method;
  close(): void;
}

/** Undone after each test, last made first undone (clients before the servers they call). */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface StartedCall {
  method: string;
  request: TransportRequest;
  context: CallContext;
  at: number;
}

interface Replica {
  name: string;
  host: string;
  port: number;
  address: string;
  /** Every call whose handler began, in order. */
  calls: StartedCall[];
  /** stop() of the running service, once. */
  stop(): Promise<void>;
}

interface ReplicaOptions {
  callStreams?: { maxStreamAgeMs?: number; maxInFlightPerStream?: number };
  shutdownGraceMs?: number;
  /** What `hold` awaits before answering. */
  hold?: (request: TransportRequest) => Promise<void>;
}

async function startReplica(name: string, host: string, port: number, options: ReplicaOptions = {}): Promise<Replica> {
  const calls: StartedCall[] = [];
  const service: RunningGrpcService = await startGrpcService({
    protoService: PROTO_SERVICE,
    definition,
    implementation: implementation(runtime, logger, name, {
      started: (method, request, context) => calls.push({ method, request, context, at: Date.now() }),
      hold: options.hold,
    }),
    host,
    port,
    // The transport's own mechanics, on a test service the callers table does not know: without TLS.
    // Calls on streams over mutual TLS, and their refusals, are grpc-mtls.test.ts's.
    tls: NO_TLS,
    logger,
    dependencies: [],
    shutdownGraceMs: options.shutdownGraceMs ?? 2000,
    callStreams: options.callStreams,
  });
  let stopping: Promise<void> | undefined;
  const replica: Replica = { name, host, port: service.port, address: `${host}:${service.port}`, calls, stop: () => (stopping ??= service.stop()) };
  cleanups.push(() => replica.stop());
  return replica;
}

/** Replicas on 127.0.0.1, 127.0.0.2, … sharing one port (tried again on another port if one is taken). */
async function startReplicas(names: string[], options: ReplicaOptions = {}): Promise<Replica[]> {
  for (let attempt = 1; ; attempt++) {
    const first = await startReplica(names[0], '127.0.0.1', 0, options);
    try {
      const rest: Replica[] = [];
      for (let i = 1; i < names.length; i++) rest.push(await startReplica(names[i], `127.0.0.${i + 1}`, first.port, options));
      return [first, ...rest];
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/**
 * A client of the replicas as a service would make it: the stream transport
 * is given the host name and a resolve function (`hosts` is read at every
 * resolution, so a test can scale); grpc-js cannot be given one, so the unary
 * transport gets the same replicas as an ipv4: list (its round_robin policy).
 */
function connect(transport: GrpcTransport, replicas: { host: string; port: number }[], hosts?: () => string[], defaultDeadlineMs = 10_000): TestClient {
  const port = replicas[0].port;
  let target: string;
  let resolve: Resolve | undefined;
  if (transport === 'stream' && (hosts || replicas.length > 1)) {
    target = `${SERVICE_HOST}:${port}`;
    const current = hosts ?? (() => replicas.map((replica) => replica.host));
    resolve = async (host) => (host === SERVICE_HOST ? current() : Promise.reject(new Error(`unexpected host ${host}`)));
  } else if (replicas.length > 1) {
    target = `ipv4:${replicas.map((replica) => `${replica.host}:${port}`).join(',')}`;
  } else {
    target = `${replicas[0].host}:${port}`;
  }
  const Ctor = makeGenericClientConstructor(definition, 'TransportTest');
  const client = promiseClient(Ctor as never, definition, target, PEER, defaultDeadlineMs, { tls: NO_TLS }, { transport, resolve }) as unknown as TestClient;
  cleanups.push(() => client.close());
  return client;
}

interface Outcome {
  ok: boolean;
  value?: TransportResponse;
  error?: AppError;
  /** When it settled (Date.now()). */
  at: number;
}
const outcome = (call: Promise<TransportResponse>): Promise<Outcome> =>
  call.then(
    (value) => ({ ok: true, value, at: Date.now() }),
    (error: AppError) => ({ ok: false, error, at: Date.now() }),
  );
const failureOf = async (call: Promise<unknown>): Promise<AppError> => {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${error === undefined ? 'an answer' : String(error)}`);
  return error;
};
/** The fields a caller of either transport reads. */
const shape = (error: AppError) => ({
  name: error.name,
  status: error.status,
  code: error.code,
  message: error.message,
  retryAfterSeconds: error.retryAfterSeconds,
  challenge: error.challenge,
});

const countBy = (values: string[]) => values.reduce((counts, value) => counts.set(value, (counts.get(value) ?? 0) + 1), new Map<string, number>());
/** Failures counted by status and code ({} when every call succeeded), so a failing assertion says what went wrong, once. */
const tally = (errors: AppError[]) => Object.fromEntries(countBy(errors.map((error) => `${GrpcStatus[error.status]} ${error.code}`)));
const failuresOf = (results: Outcome[]) => tally(results.filter((result) => !result.ok).map((result) => result.error!));

/** Polls `condition` every few ms until it holds; fails after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Calls whoami until every named replica has answered (the caller is connected to all), bounded. */
async function reachAll(client: TestClient, names: string[], timeoutMs = 10_000): Promise<void> {
  const seen = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  while (names.some((name) => !seen.has(name))) {
    if (Date.now() > deadline) throw new Error(`only ${[...seen].join(', ') || 'none'} of ${names.join(', ')} answered within ${timeoutMs} ms`);
    const answers = await Promise.allSettled(names.map(() => client.whoami({})));
    for (const answer of answers) if (answer.status === 'fulfilled') seen.add(answer.value.server);
  }
}

/** A gate: everything awaiting it waits until release(). */
function gate(): { wait: () => Promise<void>; release: () => void } {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  cleanups.push(() => release());
  return { wait: () => opened, release: () => release() };
}

// ---------------------------------------------------------------------------

describe.each(TRANSPORTS)('the same answers over the %s transport', (transport) => {
  let replica: Replica;
  let client: TestClient;
  beforeEach(async () => {
    replica = await startReplica('solo', '127.0.0.1', 0);
    client = connect(transport, [replica]);
  });

  it('echoes the request, and the request id travels', async () => {
    const request = { text: 'héllo ✓ 100% — "quoted"', tag: 'e1' };
    expect(await client.echo(request, { requestId: 'req-42' })).toEqual({ server: 'solo', echo: request, requestId: 'req-42' });
  });

  it('a refusal arrives as the AppError thrown: status, code, message and Retry-After', async () => {
    const error = await failureOf(
      client.refuse({ status: GrpcStatus.RESOURCE_EXHAUSTED, code: 'rate_limited', message: 'Slow down: 100% of the quota is used ✓', retryAfter: 30 }),
    );
    expect(shape(error)).toEqual({
      name: 'AppError',
      status: GrpcStatus.RESOURCE_EXHAUSTED,
      code: 'rate_limited',
      message: 'Slow down: 100% of the quota is used ✓',
      retryAfterSeconds: 30,
      challenge: undefined,
    });
  });

  it('a refusal with one challenge, and one with two, arrive with their challenges', async () => {
    const sha = 'Digest realm="sandbox", qop="auth", algorithm=SHA-256, nonce="n0nce", opaque="op"';
    const md5 = 'Digest realm="sandbox", qop="auth", algorithm=MD5, nonce="n0nce", opaque="op"';
    const one = await failureOf(client.refuse({ status: GrpcStatus.UNAUTHENTICATED, code: 'digest_required', message: 'Authenticate.', challenge: sha }));
    expect(shape(one)).toEqual({
      name: 'AppError',
      status: GrpcStatus.UNAUTHENTICATED,
      code: 'digest_required',
      message: 'Authenticate.',
      retryAfterSeconds: undefined,
      challenge: sha,
    });
    const two = await failureOf(
      client.refuse({ status: GrpcStatus.UNAUTHENTICATED, code: 'digest_required', message: 'Authenticate.', challenge: [sha, md5] }),
    );
    expect(two.challenge).toEqual([sha, md5]);
  });

  it('a handler that throws becomes INTERNAL "internal", and nothing of it leaks', async () => {
    const error = await failureOf(client.crash({}));
    expect(shape(error)).toEqual({
      name: 'AppError',
      status: GrpcStatus.INTERNAL,
      code: 'internal',
      message: 'An internal error occurred.',
      retryAfterSeconds: undefined,
      challenge: undefined,
    });
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toMatch(/secret|hunter2|handler\.js/);
  });

  it('a method the service does not implement, and a service it does not offer, are UNIMPLEMENTED "not_implemented"', async () => {
    const missing = await failureOf(client.missing({}));
    expect(shape(missing)).toMatchObject({
      status: GrpcStatus.UNIMPLEMENTED,
      code: 'not_implemented',
      message: `The ${PEER} service does not offer this yet.`,
    });
    const Ctor = makeGenericClientConstructor(elsewhere, 'Elsewhere');
    const other = promiseClient(Ctor as never, elsewhere, replica.address, PEER, 5000, { tls: NO_TLS }, { transport }) as unknown as {
      nope: Method;
      close(): void;
    };
    cleanups.push(() => other.close());
    const nope = await failureOf(other.nope({}));
    expect(shape(nope)).toEqual(shape(missing));
    expect(replica.calls).toEqual([]);
  });
});

describe('both transports, side by side', () => {
  it('give equal AppErrors for every kind of refusal and failure', async () => {
    const replica = await startReplica('solo', '127.0.0.1', 0);
    const stream = connect('stream', [replica]);
    const unary = connect('unary', [replica]);
    const requests: [keyof TestClient, TransportRequest][] = [
      ['refuse', { status: GrpcStatus.INVALID_ARGUMENT, code: 'bad_thing', message: 'That is not allowed: ü, %, ✓.' }],
      ['refuse', { status: GrpcStatus.NOT_FOUND, code: 'no_such_page', message: 'No such page.' }],
      ['refuse', { status: GrpcStatus.RESOURCE_EXHAUSTED, code: 'rate_limited', message: 'Later.', retryAfter: 2.2 }],
      [
        'refuse',
        { status: GrpcStatus.UNAUTHENTICATED, code: 'digest_required', message: 'Who?', challenge: ['Basic realm="a"', 'Digest realm="a", nonce="x"'] },
      ],
      ['refuse', { status: GrpcStatus.UNAVAILABLE, code: 'store_down', message: 'The store is down.', retryAfter: 5 }],
      ['crash', {}],
      ['missing', {}],
    ];
    const viaStream: object[] = [];
    const viaUnary: object[] = [];
    for (const [method, request] of requests) {
      viaStream.push({ method, request, error: shape(await failureOf((stream[method] as Method)(request))) });
      viaUnary.push({ method, request, error: shape(await failureOf((unary[method] as Method)(request))) });
    }
    expect(viaStream).toEqual(viaUnary);
  });
});

describe.each(TRANSPORTS)('deadlines over the %s transport', (transport) => {
  it('a call longer than its deadline fails DEADLINE_EXCEEDED "upstream_timeout" at the deadline, and the handler sees its signal aborted', async () => {
    const replica = await startReplica('solo', '127.0.0.1', 0);
    const client = connect(transport, [replica]);
    await client.whoami({}); // connected, so the deadline measures the call
    const deadlineMs = 400;
    const started = Date.now();
    const error = await failureOf(client.sleep({ ms: 30_000, tag: 'slow' }, { deadlineMs }));
    const elapsed = Date.now() - started;
    expect(shape(error)).toMatchObject({ status: GrpcStatus.DEADLINE_EXCEEDED, code: 'upstream_timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(deadlineMs - 5); // timers round to the millisecond
    expect(elapsed).toBeLessThan(10_000); // the sleep would have taken 30 s
    const call = replica.calls.find((c) => c.request.tag === 'slow');
    expect(call).toBeDefined();
    await until(() => call!.context.signal.aborted, 5000, "the handler's signal is aborted");
  });
});

describe.each(TRANSPORTS)('cancellation over the %s transport', (transport) => {
  const kinds = [
    ['an AbortController', () => new AbortController()],
    ['a Cancellation', () => new Cancellation()],
  ] as const;
  it.each(kinds)('aborting %s mid-call fails it CANCELLED at once, and the handler sees its signal aborted', async (_kind, make) => {
    const replica = await startReplica('solo', '127.0.0.1', 0);
    const client = connect(transport, [replica]);
    const canceller = make();
    const signal = canceller instanceof AbortController ? canceller.signal : canceller;
    const result = outcome(client.sleep({ ms: 30_000, tag: 'cancel-me' }, { deadlineMs: 20_000, signal }));
    await until(() => replica.calls.length === 1, 5000, 'the handler began');
    const abortedAt = Date.now();
    if (canceller instanceof AbortController) canceller.abort();
    else canceller.cancel();
    const { ok, error, at } = await result;
    expect(ok).toBe(false);
    expect(shape(error!)).toMatchObject({ status: GrpcStatus.CANCELLED, code: 'cancelled' });
    expect(at - abortedAt).toBeLessThan(1000);
    await until(() => replica.calls[0].context.signal.aborted, 5000, "the handler's signal is aborted");
  });

  it.each(kinds)('a call made with %s already aborted fails CANCELLED, and its handler does not run to completion', async (_kind, make) => {
    const replica = await startReplica('solo', '127.0.0.1', 0);
    const client = connect(transport, [replica]);
    await client.whoami({});
    const canceller = make();
    const signal = canceller instanceof AbortController ? canceller.signal : canceller;
    if (canceller instanceof AbortController) canceller.abort();
    else canceller.cancel();
    const started = Date.now();
    const error = await failureOf(client.sleep({ ms: 30_000, tag: 'too-late' }, { deadlineMs: 10_000, signal }));
    expect(shape(error)).toMatchObject({ status: GrpcStatus.CANCELLED, code: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(1000);
    const call = replica.calls.find((c) => c.request.tag === 'too-late');
    if (call) await until(() => call.context.signal.aborted, 5000, "the handler's signal is aborted");
  });
});

describe.each(TRANSPORTS)('round robin over the %s transport', (transport) => {
  it('spreads 300 calls over three replicas behind one name, each a fair share', async () => {
    const replicas = await startReplicas(['r1', 'r2', 'r3']);
    const client = connect(transport, replicas);
    await reachAll(client, ['r1', 'r2', 'r3']);
    const answers = await Promise.all(Array.from({ length: 300 }, () => client.whoami({})));
    const counts = countBy(answers.map((answer) => answer.server));
    for (const name of ['r1', 'r2', 'r3'])
      expect({ name, fairShare: (counts.get(name) ?? 0) >= 60, counts: Object.fromEntries(counts) }).toMatchObject({ name, fairShare: true });
  });
});

describe('scale-up over the stream transport', () => {
  it('a replica added behind the name gets calls once the streams reach their age', async () => {
    const callStreams = { maxStreamAgeMs: 300 };
    const [first] = await startReplicas(['first'], { callStreams });
    const hosts = ['127.0.0.1'];
    const client = connect('stream', [first], () => [...hosts]);
    expect((await client.whoami({})).server).toBe('first');
    const second = await startReplica('second', '127.0.0.2', first.port, { callStreams });
    hosts.push('127.0.0.2');
    const failures: AppError[] = [];
    const deadline = Date.now() + 5000;
    let reached = false;
    while (!reached && Date.now() < deadline) {
      const answers = await Promise.all(Array.from({ length: 4 }, () => outcome(client.whoami({}))));
      for (const answer of answers) {
        if (!answer.ok) failures.push(answer.error!);
        else if (answer.value!.server === second.name) reached = true;
      }
    }
    expect(reached).toBe(true);
    expect(tally(failures)).toEqual({});
  });
});

// ---------------------------------------------------------------------------

interface ChildReplica {
  process: ChildProcessWithoutNullStreams;
  port: number;
  /** Tags of the `sleep` calls whose handler began in the child. */
  started: string[];
  exited: Promise<void>;
}

/** The test service in a process of its own (fixtures/transport-replica.cjs), to be killed. */
async function startChildReplica(host: string, port: number, name: string): Promise<ChildReplica> {
  const child = spawn(process.execPath, [REPLICA_SCRIPT, host, String(port), name], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const started: string[] = [];
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const listening = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      let newline: number;
      while ((newline = output.indexOf('\n')) >= 0) {
        const event = JSON.parse(output.slice(0, newline)) as { listening?: number; started?: string; method?: string };
        output = output.slice(newline + 1);
        if (event.listening !== undefined) resolve(event.listening);
        if (event.method === 'sleep' && event.started) started.push(event.started);
      }
    });
    void exited.then(() => reject(new Error(`the replica process exited before serving: ${errors}`)));
  });
  const timeout = setTimeout(() => child.kill('SIGKILL'), 20_000);
  try {
    return { process: child, port: await listening, started, exited };
  } finally {
    clearTimeout(timeout);
  }
}

describe.each(TRANSPORTS)('a replica that dies, over the %s transport', (transport) => {
  it('fails only the calls in flight on it, UNAVAILABLE and at once; the others and every later call succeed on the survivor', async () => {
    const survivor = await startReplica('survivor', '127.0.0.1', 0);
    const doomed = await startChildReplica('127.0.0.2', survivor.port, 'doomed');
    const replicas = [
      { host: '127.0.0.2', port: survivor.port },
      { host: '127.0.0.1', port: survivor.port },
    ];
    const client = connect(transport, replicas);
    await reachAll(client, ['doomed', 'survivor']);

    const SLEEP_MS = 1500;
    const results = Array.from({ length: 40 }, (_, i) => outcome(client.sleep({ ms: SLEEP_MS, tag: `s${i}` })));
    const onSurvivor = () => survivor.calls.filter((call) => call.method === 'sleep').map((call) => call.request.tag!);
    await until(() => onSurvivor().length + doomed.started.length === 40, 10_000, 'all 40 calls are in flight');
    expect(doomed.started.length).toBeGreaterThanOrEqual(10);
    expect(onSurvivor().length).toBeGreaterThanOrEqual(10);

    const killedAt = Date.now();
    doomed.process.kill('SIGKILL');
    await doomed.exited;
    const settled = await Promise.all(results);

    const failed = settled.flatMap((result, i) => (result.ok ? [] : [`s${i}`]));
    expect(failed.sort()).toEqual([...doomed.started].sort());
    for (const [i, result] of settled.entries()) {
      if (result.ok) {
        expect(result.value).toEqual({ server: 'survivor', tag: `s${i}`, slept: SLEEP_MS });
      } else {
        expect(shape(result.error!)).toMatchObject({ status: GrpcStatus.UNAVAILABLE, code: 'service_unavailable' });
        // Told when the connection dropped, not when the sleep would have ended.
        expect(result.at - killedAt).toBeLessThan(SLEEP_MS / 2);
      }
    }

    const later = await Promise.all(Array.from({ length: 40 }, () => outcome(client.whoami({}))));
    expect(failuresOf(later)).toEqual({});
    expect(new Set(later.map((result) => result.value!.server))).toEqual(new Set(['survivor']));
  });
});

describe('backpressure over the stream transport', () => {
  it('a service that does not keep up makes calls beyond the bound fail UNAVAILABLE at once; those accepted complete once it does', async () => {
    const MAX_IN_FLIGHT = 4;
    const stuck = gate();
    const replica = await startReplica('held', '127.0.0.1', 0, { callStreams: { maxInFlightPerStream: MAX_IN_FLIGHT }, hold: stuck.wait });
    const pool = new CallStreamPool(replica.address, { channelOptions: {}, credentials: credentials.createInsecure(), maxQueuedPerLane: 4 });
    cleanups.push(() => pool.close());
    const send = (method: 'hold' | 'whoami', request: TransportRequest) =>
      pool
        .call(definition[method].path, definition[method].requestSerialize(request), 30_000, undefined, undefined)
        .then((bytes) => definition[method].responseDeserialize(bytes) as TransportResponse);
    // Connected first, so what follows measures the service, not the connection.
    expect(await send('whoami', {})).toEqual({ server: 'held' });

    const PAD = 'x'.repeat(16 * 1024);
    const accepted: Promise<TransportResponse>[] = [];
    const refusals: { error: StreamCallError; afterMs: number }[] = [];
    for (let i = 0; i < 1000 && refusals.length < 5; i++) {
      const sentAt = Date.now();
      let refused = false;
      const pending = send('hold', { tag: `h${i}`, text: PAD });
      pending.catch((error: StreamCallError) => {
        refused = true;
        refusals.push({ error, afterMs: Date.now() - sentAt });
      });
      // A turn of the event loop: each call its own message, and a refusal is seen before the next call.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      if (!refused) accepted.push(pending);
    }
    expect(refusals.length).toBe(5);
    for (const { error, afterMs } of refusals) {
      expect(error.code).toBe(GrpcStatus.UNAVAILABLE);
      expect(afterMs).toBeLessThan(1000);
    }
    // Bounded by the connection's flow-control windows and the lane's queue, not by the 1000 calls tried.
    expect(accepted.length).toBeLessThan(200);
    // The service stopped reading at its bound.
    const holding = () => replica.calls.filter((call) => call.method === 'hold').length;
    expect(holding()).toBe(MAX_IN_FLIGHT);
    expect(pool.inFlight).toBe(accepted.length);

    stuck.release();
    const answers = await Promise.all(accepted);
    expect(answers.map((answer) => answer.server)).toEqual(accepted.map(() => 'held'));
    expect(holding()).toBe(accepted.length);
    // And the lane takes calls again.
    expect((await send('hold', { tag: 'after' })).tag).toBe('after');
  });
});

describe.each(TRANSPORTS)('graceful drain over the %s transport', (transport) => {
  it('a stopping replica finishes its calls in flight; calls made meanwhile succeed, then all go to the other; its stop resolves', async () => {
    const [a, b] = await startReplicas(['A', 'B'], { shutdownGraceMs: 30_000 });
    const client = connect(transport, [a, b]);
    await reachAll(client, ['A', 'B']);

    const SLEEP_MS = 1000;
    const inFlight = Array.from({ length: 20 }, (_, i) => outcome(client.sleep({ ms: SLEEP_MS, tag: `s${i}` })));
    const sleeping = (replica: Replica) => replica.calls.filter((call) => call.method === 'sleep').length;
    await until(() => sleeping(a) + sleeping(b) === 20, 10_000, 'all 20 calls are in flight');
    expect(sleeping(a)).toBeGreaterThanOrEqual(5);

    const stopBegan = Date.now();
    const stopped = a.stop().then(() => Date.now());
    // Made while A stops: they must all succeed (wherever they are answered).
    const meanwhile = Array.from({ length: 20 }, () => outcome(client.whoami({})));
    const sequential: Outcome[] = [];
    const settledInFlight = Promise.all(inFlight);
    let done = false;
    void settledInFlight.then(() => (done = true));
    while (!done) sequential.push(await outcome(client.whoami({})));

    const answered = await settledInFlight;
    for (const result of answered) expect(result).toMatchObject({ ok: true, value: { slept: SLEEP_MS } });
    expect(answered.filter((result) => result.value!.server === 'A').length).toBe(sleeping(a));
    const made = [...(await Promise.all(meanwhile)), ...sequential];
    expect(failuresOf(made)).toEqual({});

    // A's last answers came after it said it drains: every call from now on goes to B.
    const after = await Promise.all(Array.from({ length: 20 }, () => outcome(client.whoami({}))));
    expect(after.map((result) => (result.ok ? result.value!.server : shape(result.error!).code))).toEqual(after.map(() => 'B'));

    const stoppedAt = await stopped;
    expect(stoppedAt - stopBegan).toBeLessThan(15_000); // well inside its 30 s grace: it was not forced
  });

  it('a replica stopped while idle loses none of the calls made at that very moment', async () => {
    const [a, b] = await startReplicas(['A', 'B'], { shutdownGraceMs: 30_000 });
    const client = connect(transport, [a, b]);
    await reachAll(client, ['A', 'B']);
    const stopped = a.stop();
    const made = await Promise.all(Array.from({ length: 40 }, () => outcome(client.whoami({}))));
    expect(failuresOf(made)).toEqual({});
    await stopped;
  });

  it('a stopping replica does not wait for a call whose deadline passed while the handler ignores it', async () => {
    const never = gate();
    const replica = await startReplica('stuck', '127.0.0.1', 0, { shutdownGraceMs: 30_000, hold: never.wait });
    const client = connect(transport, [replica]);
    await client.whoami({});
    const held = outcome(client.hold({ tag: 'forever' }, { deadlineMs: 1000 }));
    await until(() => replica.calls.some((call) => call.method === 'hold'), 5000, 'the handler began');
    const stopBegan = Date.now();
    const stopped = replica.stop().then(() => Date.now());
    const { ok, error } = await held;
    expect(ok).toBe(false);
    expect(error!.status).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    // The call's deadline (1 s) ends it on the server too; the 30 s grace is for calls still wanted.
    expect((await stopped) - stopBegan).toBeLessThan(10_000);
  });
});

describe('a replica shutting down, seen from one raw call stream', () => {
  it('answers the call it had started, and hands back unstarted (notStarted, UNAVAILABLE) a call that arrives after its drain notice', async () => {
    const replica = await startReplica('A', '127.0.0.1', 0, { shutdownGraceMs: 30_000 });
    // The stream as a caller that has not read the drain notice yet would use it: CallStreamPool would not write
    // after reading it, but a call it wrote just before reaches the server just after (the race this rule closes).
    const raw = new wire.CallStreamServiceClient(replica.address, credentials.createInsecure());
    cleanups.push(() => raw.close());
    const stream = raw.calls();
    const replies = new Map<number, wire.Reply>();
    let drainNotice = false;
    stream.on('data', (batch: wire.CallsResponse) => {
      if (batch.draining) drainNotice = true;
      for (const reply of batch.replies) replies.set(reply.id, reply);
    });
    stream.on('error', () => undefined);
    const call = (id: number, method: keyof typeof definition, request: TransportRequest): wire.Call => ({
      id,
      method: definition[method].path,
      request: definition[method].requestSerialize(request),
      timeoutMs: 20_000,
      requestId: '',
      traceparent: '',
      tracestate: '',
    });

    stream.write({ calls: [call(1, 'sleep', { ms: 1500, tag: 'in flight' })], cancelled: [] });
    await until(() => replica.calls.some((c) => c.method === 'sleep'), 10_000, 'the first call began');
    const stopped = replica.stop();
    await until(() => drainNotice, 10_000, 'the drain notice came');
    stream.write({ calls: [call(2, 'whoami', {})], cancelled: [] });
    await until(() => replies.has(1) && replies.has(2), 15_000, 'both calls were answered');

    expect({ code: replies.get(1)!.code, notStarted: replies.get(1)!.notStarted }).toEqual({ code: GrpcStatus.OK, notStarted: false });
    expect({ code: replies.get(2)!.code, notStarted: replies.get(2)!.notStarted }).toEqual({ code: GrpcStatus.UNAVAILABLE, notStarted: true });
    // It never began: no new work after SIGTERM.
    expect(replica.calls.map((c) => c.method)).toEqual(['sleep']);
    stream.end();
    await stopped;
  });
});

describe.each(TRANSPORTS)('a call ending early on a draining replica, over the %s transport', (transport) => {
  it.each(['cancelled', 'past its deadline'] as const)('one call %s does not lose the others in flight there', async (how) => {
    const release = gate();
    const [a, b] = await startReplicas(['A', 'B'], { shutdownGraceMs: 30_000, hold: release.wait });
    const client = connect(transport, [a, b]);
    await reachAll(client, ['A', 'B']);
    // Calls held on A (and, round robin, on B): one on A ends early, the others on A must still get their answers.
    const began = (tag: string) => [a, b].some((replica) => replica.calls.some((call) => call.request.tag === tag));
    const onA = (tag: string) => a.calls.some((call) => call.request.tag === tag);
    let early: { result: Promise<Outcome>; cancellation: Cancellation } | undefined;
    for (let i = 0; !early && i < 6; i++) {
      const cancellation = new Cancellation();
      const tag = `early${i}`;
      const result = outcome(client.hold({ tag }, how === 'cancelled' ? { signal: cancellation, deadlineMs: 20_000 } : { deadlineMs: 3000 }));
      await until(() => began(tag), 5000, `${tag} began`);
      if (onA(tag)) early = { result, cancellation };
    }
    expect(early).toBeDefined();
    const tags = ['kept0', 'kept1', 'kept2', 'kept3'];
    const kept = tags.map((tag) => outcome(client.hold({ tag }, { deadlineMs: 20_000 })));
    await until(() => tags.every(began), 5000, 'every call began');
    const keptOnA = tags.filter(onA);
    expect(keptOnA.length).toBeGreaterThanOrEqual(1);

    const stopped = a.stop();
    // The caller knows A drains once two calls in a row are answered by B (round robin would alternate otherwise).
    let inARow = 0;
    const deadline = Date.now() + 5000;
    while (inARow < 2) {
      if (Date.now() > deadline) throw new Error('the caller kept sending to A');
      inARow = (await client.whoami({})).server === 'B' ? inARow + 1 : 0;
    }
    if (how === 'cancelled') early!.cancellation.cancel();
    const ended = await early!.result;
    expect(shape(ended.error!)).toMatchObject(how === 'cancelled' ? { status: GrpcStatus.CANCELLED } : { status: GrpcStatus.DEADLINE_EXCEEDED });

    release.release();
    const answers = await Promise.all(kept);
    expect(failuresOf(answers)).toEqual({});
    expect(answers.filter((answer) => answer.value!.server === 'A').map((answer) => answer.value!.tag)).toEqual(keptOnA);
    await stopped;
  });
});

describe('streams reaching their age under steady load', () => {
  it('no call fails because its stream was replaced', async () => {
    const [replica] = await startReplicas(['aging'], { callStreams: { maxStreamAgeMs: 60 } });
    const client = connect('stream', [replica], () => ['127.0.0.1']);
    await client.whoami({});
    const failures: AppError[] = [];
    let calls = 0;
    const endAt = Date.now() + 3000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (Date.now() < endAt) {
          const result = await outcome(client.echo({ text: 'x' }));
          calls++;
          if (!result.ok) failures.push(result.error!);
        }
      }),
    );
    expect(calls).toBeGreaterThan(100);
    expect(tally(failures)).toEqual({});
  });
});

describe.each(TRANSPORTS)('large messages over the %s transport', (transport) => {
  const text = 'y'.repeat(256 * 1024);

  it('many calls with 256 KiB answers at once all succeed, as each alone would', async () => {
    const replica = await startReplica('solo', '127.0.0.1', 0);
    const client = connect(transport, [replica]);
    await client.whoami({});
    // 40 × 256 KiB: over the 4 MiB a grpc-js client receives in one message, far under it per call.
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => outcome(client.echo({ text, tag: `big${i}` }))));
    expect(failuresOf(results)).toEqual({});
    for (const [i, result] of results.entries()) expect(result.value!.echo).toEqual({ text, tag: `big${i}` });
  });

  it('many calls with 256 KiB requests at once all succeed, as each alone would', async () => {
    const replica = await startReplica('solo', '127.0.0.1', 0);
    const client = connect(transport, [replica]);
    await client.whoami({});
    // 80 × 256 KiB: over the 16 MiB the server receives in one message, far under it per call.
    const results = await Promise.all(Array.from({ length: 80 }, () => outcome(client.whoami({ text }))));
    expect(failuresOf(results)).toEqual({});
  });
});

describe('a server started with startGrpcService', () => {
  it('still accepts plain unary calls, and answers the standard health service', async () => {
    const replica = await startReplica('plain', '127.0.0.1', 0);
    const Ctor = makeGenericClientConstructor(definition, 'TransportTest');
    const plain = new Ctor(replica.address, credentials.createInsecure());
    const healthClient = new health.HealthClient(replica.address, credentials.createInsecure());
    cleanups.push(() => plain.close());
    cleanups.push(() => healthClient.close());
    const answer = await new Promise<TransportResponse>((resolve, reject) =>
      (plain.whoami as (req: object, cb: (error: ServiceError | null, value: TransportResponse) => void) => void)({}, (error, value) =>
        error ? reject(error) : resolve(value),
      ),
    );
    expect(answer).toEqual({ server: 'plain' });
    const refused = await new Promise<ServiceError>((resolve) =>
      (plain.refuse as (req: object, cb: (error: ServiceError | null) => void) => void)(
        { status: GrpcStatus.PERMISSION_DENIED, code: 'nope', message: 'No.' },
        (error) => resolve(error!),
      ),
    );
    expect({ code: refused.code, details: refused.details, errorCode: refused.metadata.get('error-code') }).toEqual({
      code: GrpcStatus.PERMISSION_DENIED,
      details: 'No.',
      errorCode: ['nope'],
    });
    for (const service of ['', PROTO_SERVICE, 'liveness']) {
      const status = await new Promise<number>((resolve, reject) =>
        healthClient.check({ service }, (error, response) => (error ? reject(error) : resolve(response.status))),
      );
      expect({ service, status }).toEqual({ service, status: ServingStatus.SERVING });
    }
  });
});
