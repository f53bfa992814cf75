/** The parts of a URI the explanation talks about, as WHATWG URL parsing reads them. */
const PARTS = ['scheme', 'user information', 'host', 'port', 'path', 'query'] as const;
type Part = (typeof PARTS)[number];

function partsOf(uri: string): Record<Part, string> | undefined {
  try {
    const url = new URL(uri);
    return {
      scheme: url.protocol,
      'user information': `${url.username}:${url.password}`,
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      query: url.search,
    };
  } catch {
    return undefined;
  }
}

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};
const commonSuffix = (a: string, b: string) => commonPrefix([...a].reverse().join(''), [...b].reverse().join(''));

const list = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

/**
 * How `received` differs from the registered URI nearest to it, in words that
 * never spell out the registered value: the learner fixes their side without
 * anyone learning what an app registered. Nearest: fewest differing parts,
 * then the longest shared beginning and end.
 */
export function differenceFromNearest(
  received: string,
  registered: readonly string[],
  words: { nearest: string; any: string } = { nearest: 'The nearest registered URI', any: 'a registered URI' },
): string {
  const mine = partsOf(received);
  if (!mine) return 'It is not an absolute URI (scheme://host/path), so it cannot match any.';
  let best: { parts: Part[]; shared: number; theirs: Record<Part, string> } | undefined;
  for (const candidate of registered) {
    const theirs = partsOf(candidate);
    if (!theirs) continue;
    const parts = PARTS.filter((part) => mine[part] !== theirs[part]);
    const shared = commonPrefix(received, candidate) + commonSuffix(received, candidate);
    if (!best || parts.length < best.parts.length || (parts.length === best.parts.length && shared > best.shared)) best = { parts, shared, theirs };
    if (parts.length === 0) {
      return `It differs from ${words.any} only in spelling that URL parsing treats as equal (letter case of the scheme or host, an explicit default port, percent-encoding, or a slash after the host); the comparison is of exact strings, so send it exactly as registered.`;
    }
  }
  if (!best) return 'No registered URI is comparable to it.';
  if (best.parts.length === 1 && best.parts[0] === 'path') {
    const [a, b] = [mine.path, best.theirs.path];
    if (a.replace(/\/$/, '') === b.replace(/\/$/, '')) return `${words.nearest} differs only by a trailing slash at the end of the path.`;
    if (a.toLowerCase() === b.toLowerCase()) return `${words.nearest} differs only in the letter case of the path.`;
  }
  return `${words.nearest} differs in the ${list([...best.parts])}.`;
}
