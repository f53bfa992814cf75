// Micro-benchmark of the data service's page renderer alone (issue #36, "Data
// pages rendered once"): renderPage of this checkout's build against the
// renderPage of another build (--before, e.g. a copy of the tree built before
// the change), in one process, rounds interleaved (their order swapped every
// round), medians of the per-round µs per page quoted.
//
//   npm run build && node bench/render-page.mjs --before /path/to/other/checkout [--rounds 9] [--pages 4000]
//
// Without --before only this build is measured. Workloads, each a page of 50
// rows unless named otherwise:
// - hop: page 1 of stocks/candles, the page `npm run bench:hop` requests, again and again;
// - walk-flat, walk-nested: hr/employees walked page by page, over and over (every page different, every row seen before after the first walk);
// - cold: stocks/candles at a fresh offset each time, never read before in this process (the worst case of a row cache: every row serialised, stored and possibly evicted);
// - nested-list: hr/headcount in nested-list (rows grouped under their department).
// Also printed: the heap held after the run (the row text cache's size, for the fast renderer).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { ROOT, exitWithHelpIfAsked, median, numberArg } from './lib.mjs';

exitWithHelpIfAsked(import.meta.url);
const rounds = numberArg('rounds', 9);
const pages = numberArg('pages', 4000);
const beforeIndex = process.argv.indexOf('--before');
const beforeRoot = beforeIndex > 0 ? process.argv[beforeIndex + 1] : undefined;

const require = createRequire(import.meta.url);
const load = (root) => require(join(root, 'services/data/dist/domain/index.js'));
const renderers = { after: load(ROOT), ...(beforeRoot ? { before: load(beforeRoot) } : {}) };

const ROOT_URL = 'http://127.0.0.1:8080/playground/data';
const SCOPES = ['fpa:read', 'stocks:read', 'marketing:read', 'hr:read', 'cricket:read'];
const KEY = 'bench-signing-key';
const request = (pack, entity, rawQuery) => ({ pack, entity, rawQuery, grantedScopes: SCOPES, rootUrl: ROOT_URL });

const CANDLES = 1_000_000;
/** Each renderer's own cold offsets: a prime stride far above a page, from a start no round repeats. */
const coldOffset = { after: 0, before: 0, probe: 0 };
const workloads = {
  hop: () => request('stocks', 'candles', 'page=1&page_size=50'),
  'walk-flat': (n) => request('hr', 'employees', `page=${(n % 44) + 1}&page_size=50`),
  'walk-nested': (n) => request('hr', 'employees', `page=${(n % 44) + 1}&page_size=50&shape=nested`),
  'nested-list': (n) => request('hr', 'headcount', `page=${(n % 11) + 1}&page_size=50&shape=nested-list`),
  cold: (_n, name) => request('stocks', 'candles', `offset=${(coldOffset[name] = (coldOffset[name] + 7919 * 50) % (CANDLES - 50))}&limit=50`),
};

/** µs per page of `pages` renders of one workload by one renderer. */
function measure(name, workload) {
  const { renderPage } = renderers[name];
  const make = workloads[workload];
  const started = process.hrtime.bigint();
  let bytes = 0;
  for (let n = 0; n < pages; n++) bytes += renderPage(make(n, name), KEY).bodyJson.length;
  const micros = Number(process.hrtime.bigint() - started) / 1000 / pages;
  return { micros, bytes: bytes / pages };
}

// Both builds must answer the same bytes, or the comparison means nothing (the unit test proves it for every page).
if (renderers.before) {
  for (const make of Object.values(workloads)) {
    const probe = make(3, 'probe');
    const [a, b] = [renderers.after.renderPage(probe, KEY), renderers.before.renderPage(probe, KEY)];
    if (!a.bodyJson.equals(b.bodyJson)) throw new Error(`the two builds differ on ${probe.pack}/${probe.entity}?${probe.rawQuery}`);
  }
}

const samples = {};
const names = Object.keys(renderers);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...names].reverse() : names;
  for (const workload of Object.keys(workloads)) {
    for (const name of order) {
      const { micros, bytes } = measure(name, workload);
      ((samples[workload] ??= {})[name] ??= { micros: [], bytes }).micros.push(micros);
    }
  }
}

global.gc?.();
const result = {
  rounds,
  pagesPerRound: pages,
  loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  heapUsedMiB: Math.round(process.memoryUsage().heapUsed / 1048576),
  medianMicrosPerPage: {},
  beforeOverAfter: {},
};
for (const [workload, byName] of Object.entries(samples)) {
  result.medianMicrosPerPage[workload] = Object.fromEntries(Object.entries(byName).map(([name, s]) => [name, Math.round(median(s.micros) * 10) / 10]));
  result.medianMicrosPerPage[workload].bytesPerPage = Math.round(byName.after.bytes);
  if (byName.before) result.beforeOverAfter[workload] = Math.round((median(byName.before.micros) / median(byName.after.micros)) * 100) / 100;
}
console.log(JSON.stringify(result, null, 2));
