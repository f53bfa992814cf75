/**
 * V8 options every service process runs with: here, for `npm start`, and in
 * the image (the Dockerfile's ENV NODE_OPTIONS, which the chart and docker
 * compose inherit; deploy/test/container.test.ts keeps the two the same).
 *
 * --max-semi-space-size=8 bounds the young generation, where a request's
 * short-lived objects go. Left to itself, V8 on Node.js 24 grows each
 * semi-space to 32 MiB under load and keeps it: about 100 MiB of young
 * generation in every busy process, more than half of the gateway's memory
 * after a load test, and identity and oauth past their 256 MiB chart limits
 * (docs/decisions.md, "Memory at rest and under load": the figures, and
 * what it costs in requests/s).
 *
 * --max-old-space-size=192 bounds the old generation, and with it how far V8
 * lets the heap grow past what is live before a full collection: V8 picks
 * that growing factor from the heap's maximum, which it otherwise derives
 * from the machine's memory (gigabytes here; in a container, a 256 MiB
 * limit still gets a heap limit above 256 MiB: nodejs/node#64646). A 5-minute soak with
 * it: identity 146 MiB of RSS against 250 (live heap 58 MiB either way), the
 * gateway 132 against 207, the same requests/s and p99. 192 MiB is over
 * three times the largest live heap measured (identity's 58 MiB; the
 * gateway's 33 plus its 64 MiB page cache when full), and three quarters of
 * the chart's smallest memory limit.
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=8 --max-old-space-size=192';

/** NODE_OPTIONS for a service process: ours first, so options the person running it gave (later) win. */
export function serviceNodeOptions(given: string | undefined): string {
  return given ? `${SERVICE_NODE_OPTIONS} ${given}` : SERVICE_NODE_OPTIONS;
}

import type { ProcessName } from './replicas';

/** The switch below, alone: the chart's values, compose and the scripts give the same string. */
export const FULL_GC_FLOOR = '--initial-old-space-size=64';

/**
 * V8 options each service process runs with that node refuses in
 * NODE_OPTIONS, so they go on its command line: the launcher's (here),
 * `npm run start:<name>`, the Dockerfile's CMD, the chart's commands (its
 * `nodeArgs` values) and compose's (deploy/test/container.test.ts and
 * helm-chart.test.ts keep them all the same as this).
 *
 * --initial-old-space-size=64 lets V8 skip full collections while the old
 * generation and the memory outside the heap (Buffers, ArrayBuffers) stay
 * under 64 MiB. V8 counts every Buffer larger than 4 KiB (node's pool takes
 * only smaller ones) against the old generation's limit, and sets that
 * limit at about twice what is live (15 MiB in the data service): a data
 * page of 6.8 KB becomes several such Buffers on each side of the hop (the
 * page's bytes, its protobuf encodings, the gRPC frame, the reads), so under
 * load both ran a full collection every 60 ms. Measured on the uncached
 * data page (docs/decisions.md, "Full collections on large answers"): 2,632
 * requests/s without, 5,536 with; the data service's CPU a request 236 µs
 * to 80, the gateway's 306 to 134; tokens 14% faster. 64 is a third of the
 * old generation's maximum (192, above); 96, V8's ceiling (half), was 8 to
 * 10% faster again on the data page but would take oauth past 60% of its
 * limit in the soak.
 *
 * Not the playground: its answers are small (nothing to gain on echo), and
 * it takes uploads, whose 64 KiB chunks the floor lets pile up: after eight
 * 24 MiB uploads it held 156 MiB with it against 115 to 127 without, 61% of
 * its 256 MiB chart limit.
 */
export const SERVICE_NODE_ARGS: Readonly<Record<ProcessName, readonly string[]>> = {
  gateway: [FULL_GC_FLOOR],
  identity: [FULL_GC_FLOOR],
  oauth: [FULL_GC_FLOOR],
  data: [FULL_GC_FLOOR],
  playground: [],
};
