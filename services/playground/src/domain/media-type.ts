import { TOKEN } from './http';

export interface MediaType {
  /** type/subtype in lower case, e.g. "application/json". */
  essence: string;
  /** Parameter names in lower case; values unquoted. The first of a repeated name wins. */
  params: Record<string, string>;
}

/**
 * A Content-Type value read as RFC 9110 8.3.1 defines it: type "/" subtype,
 * then `; name=value` parameters whose values may be quoted strings. Null when
 * the value is not a media type at all (the caller says so).
 */
export function parseMediaType(value: string | undefined): MediaType | null {
  if (value === undefined) return null;
  const text = value.trim();
  const slash = /^([^\s/;]+)\/([^\s;]+)\s*/.exec(text);
  if (!slash || !TOKEN.test(slash[1]) || !TOKEN.test(slash[2])) return null;
  const params: Record<string, string> = Object.create(null);
  let rest = text.slice(slash[0].length);
  while (rest.length > 0) {
    const separator = /^;\s*/.exec(rest);
    if (!separator) return null;
    rest = rest.slice(separator[0].length);
    if (rest.length === 0) break; // a trailing ";" is tolerated, as browsers do
    const name = /^([^\s=;]+)=/.exec(rest);
    if (!name || !TOKEN.test(name[1])) return null;
    rest = rest.slice(name[0].length);
    let paramValue: string;
    if (rest.startsWith('"')) {
      const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
      if (!quoted) return null;
      paramValue = quoted[1].replace(/\\(.)/g, '$1');
      rest = rest.slice(quoted[0].length);
    } else {
      const token = /^[^\s;]*/.exec(rest)![0];
      paramValue = token;
      rest = rest.slice(token.length);
    }
    rest = rest.replace(/^\s+/, '');
    const key = name[1].toLowerCase();
    if (!(key in params)) params[key] = paramValue;
  }
  return { essence: `${slash[1]}/${slash[2]}`.toLowerCase(), params };
}

/** application/json and every structured +json type (application/problem+json, application/vnd.api+json...). */
export function isJson(type: MediaType): boolean {
  return type.essence === 'application/json' || /^application\/[^/]+\+json$/.test(type.essence);
}
