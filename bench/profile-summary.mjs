// Summarises V8 CPU profiles (.cpuprofile, as `node --cpu-prof` writes them;
// bench/hop.mjs --cpu-prof DIR makes one per process) as proportions, so two
// runs on a machine whose load differs can be compared: the share of samples
// by self time per function and per group (the file or module a function is
// in), and the share whose stack passes through a function (inclusive).
//
//   node bench/profile-summary.mjs FILE.cpuprofile [--top 25] [--match tls,peerIdentity]
//
// --match prints, for each comma-separated substring, the inclusive share of
// the samples whose stack has a function or URL containing it.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const top = Number(option('top', 25));
const matches = option('match', '').split(',').filter(Boolean);
const files = args;
if (files.length === 0) {
  console.error('usage: node bench/profile-summary.mjs FILE.cpuprofile... [--top 25] [--match a,b]');
  process.exit(2);
}

/** Where a function lives, short: node's own modules by name, a package by its name, our files by path under the repository. */
function groupOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nodeModule = /^node:(.*)$/.exec(url);
  if (nodeModule) return `node:${nodeModule[1]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/(packages|services)\/([^/]+)\/dist\/(.*)$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}/${ours[3]}`;
  return url;
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const idle = [...counts].filter(([id]) => byId.get(id).callFrame.functionName === '(idle)').reduce((sum, [, n]) => sum + n, 0);
  const busy = total - idle;
  const selfByFunction = new Map();
  const selfByGroup = new Map();
  const inclusive = new Map(matches.map((m) => [m, 0]));
  for (const [id, n] of counts) {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') continue;
    const key = `${frame.functionName || '(anonymous)'} ${groupOf(frame)}:${frame.lineNumber + 1}`;
    selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + n);
    const group = groupOf(frame);
    selfByGroup.set(group, (selfByGroup.get(group) ?? 0) + n);
    if (matches.length > 0) {
      const stack = [];
      for (let at = id; at !== undefined; at = parentOf.get(at)) stack.push(byId.get(at).callFrame);
      for (const m of matches) if (stack.some((f) => f.functionName.includes(m) || f.url.includes(m))) inclusive.set(m, inclusive.get(m) + n);
    }
  }
  const pct = (n) => `${((100 * n) / busy).toFixed(1).padStart(5)}%`;
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  console.log(`\n${file}: ${total} samples over ${seconds.toFixed(1)} s, ${busy} not idle (shares below are of those)`);
  console.log('  self time by group:');
  for (const [group, n] of [...selfByGroup].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`    ${pct(n)}  ${group}`);
  console.log('  self time by function:');
  for (const [key, n] of [...selfByFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`    ${pct(n)}  ${key}`);
  if (matches.length > 0) {
    console.log('  inclusive (stack passes through):');
    for (const [m, n] of inclusive) console.log(`    ${pct(n)}  ${m}`);
  }
}
