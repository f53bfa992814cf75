// What grew between two heap snapshots of one process (as Node writes them:
// --heapsnapshot-signal, or LIVE_HEAP_KEEP with the soak): live bytes and
// object counts by constructor (or node type, for strings, arrays, code),
// largest growth first.
//
//   node bench/heap-diff.mjs BEFORE.heapsnapshot AFTER.heapsnapshot [--top 25]
import { readFileSync } from 'node:fs';
import { numberArg } from './lib.mjs';

const [beforeFile, afterFile] = process.argv.slice(2).filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const top = numberArg('top', 25);

/** Bytes and counts by class: an object's constructor name, else its node type ("string", "code", "array"...). */
function byClass(file) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const classes = new Map();
  for (let i = 0; i < nodes.length; i += fields.length) {
    const kind = types[nodes[i + type]];
    const key = kind === 'object' || kind === 'closure' ? `${strings[nodes[i + name]]} (${kind})` : `(${kind})`;
    const entry = classes.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += nodes[i + size];
    entry.count += 1;
    classes.set(key, entry);
  }
  return classes;
}

const before = byClass(beforeFile);
const after = byClass(afterFile);
const mib = (bytes) => Math.round((bytes / 1048576) * 100) / 100;
const rows = [...after].map(([key, a]) => {
  const b = before.get(key) ?? { bytes: 0, count: 0 };
  return { class: key, grewMiB: mib(a.bytes - b.bytes), afterMiB: mib(a.bytes), grewCount: a.count - b.count };
});
rows.sort((x, y) => y.grewMiB - x.grewMiB);
const total = (classes) => mib([...classes.values()].reduce((sum, c) => sum + c.bytes, 0));
console.log(JSON.stringify({ beforeMiB: total(before), afterMiB: total(after), grew: rows.slice(0, top) }, null, 2));
