import { Gauge, type Registry } from '@sandbox/runtime';
import type { MemoryEphemeralStore } from './memory-ephemeral-store';

/**
 * How full the in-memory store is (the embedded default, without REDIS_URL):
 * beyond OAUTH_MEMORY_MAX_ENTRIES it refuses new nonces and codes with 503
 * memory_full, so the alert SandboxOAuthMemoryStoreNearFull (docs/operations.md)
 * watches entries / capacity. Read when scraped, never per operation: the
 * store's hot path stays a Map, and the sweep it costs (one pass over the
 * entries) is the one its timer makes every 30 s anyway.
 */
export function memoryStoreMetrics(registry: Registry, store: MemoryEphemeralStore): void {
  const registers = [registry];
  new Gauge({
    name: 'sandbox_oauth_memory_store_entries',
    help: 'Live entries in the oauth in-memory store (nonces, codes, tokens).',
    registers,
    collect() {
      this.set(store.fill().entries);
    },
  });
  // Fixed for the process's life.
  new Gauge({
    name: 'sandbox_oauth_memory_store_capacity_entries',
    help: 'The most entries the oauth in-memory store holds before it refuses new ones (OAUTH_MEMORY_MAX_ENTRIES).',
    registers,
  }).set(store.fill().capacity);
}
