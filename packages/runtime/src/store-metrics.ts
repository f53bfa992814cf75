import { counterIn, histogramIn, monotonicMs, type Registry } from './metrics';

/** What backs a store; a label value, so bounded. */
export type StoreKind = 'mongodb' | 'redis' | 'memory';

export type StoreOutcome = 'ok' | 'error';

/** Where store operations are counted: asked once per operation when a store is instrumented, not per call. */
export interface StoreMetrics {
  recorder(store: StoreKind, operation: string): (outcome: StoreOutcome, seconds: number) => void;
}

/** Store operations are quick or broken: 0.5 ms (memory, a Redis round trip) to 10 s (a stuck database). */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `sandbox_store_operations_total{store,operation,outcome}` and `sandbox_store_operation_duration_seconds{store,operation}`. */
export function storeMetrics(registry: Registry): StoreMetrics {
  const operations = counterIn(registry, 'sandbox_store_operations_total', 'Store operations, by store, operation and outcome.', [
    'store',
    'operation',
    'outcome',
  ]);
  const duration = histogramIn(
    registry,
    'sandbox_store_operation_duration_seconds',
    'Time a store operation took, in seconds.',
    ['store', 'operation'],
    STORE_BUCKETS,
  );
  return {
    recorder(store, operation) {
      const timed = { store, operation };
      const ok = { store, operation, outcome: 'ok' };
      const error = { store, operation, outcome: 'error' };
      return (outcome, seconds) => {
        operations.inc(outcome === 'ok' ? ok : error);
        duration.observe(timed, seconds);
      };
    },
  };
}

export interface InstrumentOptions {
  /** Put before each method's name in the operation label (`apps.` → `apps.insert`), to tell a process's stores apart. */
  prefix?: string;
  /**
   * Rejections that are the store's answer rather than its failure (a unique
   * index refusing a duplicate, a rate limiter's "limit reached"): counted as
   * `ok`. Every other rejection is an `error`.
   */
  isAnswer?: (reason: unknown) => boolean;
}

/**
 * The same store, with every call of its methods that returns a promise timed
 * and counted under the method's name: one generic wrapper instead of a line
 * in each adapter, which stay as they are. Only methods present when it is
 * instrumented are wrapped, so the operation label is bounded by the class.
 * Calls a store makes to itself go to the store directly and are not counted.
 */
export function instrumentStore<T extends object>(store: T, kind: StoreKind, metrics: StoreMetrics, options: InstrumentOptions = {}): T {
  const wrapped = new Map<PropertyKey, unknown>();
  const isAnswer = options.isAnswer ?? (() => false);
  for (const name of methodNames(store)) {
    const method = (store as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
    const record = metrics.recorder(kind, `${options.prefix ?? ''}${name}`);
    wrapped.set(name, (...args: unknown[]) => {
      const started = monotonicMs();
      const result = method.apply(store, args);
      if (!isThenable(result)) return result;
      return result.then(
        (value) => {
          record('ok', (monotonicMs() - started) / 1000);
          return value;
        },
        (reason: unknown) => {
          record(isAnswer(reason) ? 'ok' : 'error', (monotonicMs() - started) / 1000);
          throw reason;
        },
      );
    });
  }
  return new Proxy(store, {
    // The store itself as receiver: its getters and private fields see the object they belong to.
    get: (target, property) => (wrapped.has(property) ? wrapped.get(property) : Reflect.get(target, property, target)),
  });
}

/** Own and inherited function-valued properties, up to (not including) Object.prototype. */
function methodNames(store: object): string[] {
  const names = new Set<string>();
  for (let level: object | null = store; level !== null && level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name === 'constructor' || names.has(name)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(level, name);
      if (descriptor && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names];
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
