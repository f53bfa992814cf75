/**
 * V8 options every service process runs with: here, for `npm start`, and in
 * the image (the Dockerfile's ENV NODE_OPTIONS, which the chart and docker
 * compose inherit; deploy/test/image-node-options.test.ts keeps the two the
 * same).
 *
 * --max-semi-space-size=8 bounds the young generation, where a request's
 * short-lived objects go. Left to itself, V8 on Node.js 24 grows each
 * semi-space to 32 MiB under load and keeps it: about 100 MiB of young
 * generation in every busy process, more than half of the gateway's memory
 * after a load test, and identity and oauth past their 256 MiB chart limits
 * (docs/decisions.md, "Memory at rest and under load": the figures, and
 * what it costs in requests/s).
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=8';

/** NODE_OPTIONS for a service process: ours first, so options the person running it gave (later) win. */
export function serviceNodeOptions(given: string | undefined): string {
  return given ? `${SERVICE_NODE_OPTIONS} ${given}` : SERVICE_NODE_OPTIONS;
}
