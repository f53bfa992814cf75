// The live JavaScript heap of a running process, as a heap snapshot counts
// it: Node writes one on SIGUSR2 (--heapsnapshot-signal) after the full
// garbage collection it forces, so the sum of its objects' sizes is what the
// process holds, not what V8 has reserved. A leak grows this figure; RSS grows
// under load anyway, because V8 enlarges the heap it keeps while garbage
// comes fast (the soak at 2,000 requests/s: identity's RSS 130 → 343 MiB in
// 150 s while its live heap stayed at about 25 MiB).
//
// LIVE_HEAP_KEEP=DIR keeps every snapshot there (<pid>-<n>.heapsnapshot), to
// see what grew: `node bench/heap-diff.mjs BEFORE AFTER`.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** NODE_OPTIONS for the processes to measure, and how to measure them. */
export function liveHeapProbe() {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-heap-'));
  return {
    nodeOptions: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`,
    /** MiB of live heap of each process, one at a time (a snapshot stops its process for a second or two). */
    async measure(processes) {
      const live = {};
      for (const [name, pid] of Object.entries(processes)) live[name] = await liveHeapMiB(dir, pid);
      return live;
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function liveHeapMiB(dir, pid, timeoutMs = 60_000) {
  const mine = () => readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot') && f.split('.').includes(String(pid)));
  for (const old of mine()) rmSync(join(dir, old));
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const [file] = mine();
    if (!file) continue;
    const path = join(dir, file);
    // Written as a stream: complete once it parses (its size then stays).
    const size = statSync(path).size;
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (statSync(path).size !== size) continue;
    let snapshot;
    try {
      snapshot = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      continue;
    }
    keepOrRemove(path, pid);
    const fields = snapshot.snapshot.meta.node_fields;
    const selfSize = fields.indexOf('self_size');
    let bytes = 0;
    for (let i = selfSize; i < snapshot.nodes.length; i += fields.length) bytes += snapshot.nodes[i];
    return Math.round((bytes / 1048576) * 10) / 10;
  }
  throw new Error(`no heap snapshot from process ${pid} within ${timeoutMs} ms`);
}

let kept = 0;
function keepOrRemove(path, pid) {
  const keep = process.env.LIVE_HEAP_KEEP;
  if (!keep) return rmSync(path);
  mkdirSync(keep, { recursive: true });
  renameSync(path, join(keep, `${pid}-${++kept}.heapsnapshot`));
}
