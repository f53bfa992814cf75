import { invalidArgument, quoteInput } from '@sandbox/runtime';

/** A parameter given once is a string; one given more than once, an array in the order given. */
export type FormValue = string | string[];

/**
 * A query string or an urlencoded form body as an object: keys in the order
 * they first appear, `+` read as a space and percent-escapes decoded (the
 * WHATWG URL standard's application/x-www-form-urlencoded parser, which
 * browsers and most servers share), a key without `=` as "". The object has
 * no prototype, so a key such as `__proto__` is an ordinary key.
 */
export function parseForm(raw: string): Record<string, FormValue> {
  const result: Record<string, FormValue> = Object.create(null);
  for (const [key, value] of new URLSearchParams(raw)) {
    const seen = result[key];
    if (seen === undefined) result[key] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else result[key] = [seen, value];
  }
  return result;
}

/** The query parameters of a request, read with the rules every endpoint shares. */
export class Query {
  private readonly params: URLSearchParams;

  constructor(rawQuery: string) {
    this.params = new URLSearchParams(rawQuery);
  }

  has(name: string): boolean {
    return this.params.has(name);
  }

  /** The value of a parameter that may be given at most once (a second value is ambiguous: 400). */
  single(name: string): string | undefined {
    const values = this.params.getAll(name);
    if (values.length > 1) throw invalidParameter(`${name} was given ${values.length} times; give it once.`);
    return values[0];
  }

  /**
   * A whole number (digits only: no sign, point, exponent or spaces), or the
   * default when absent. An empty value is not absent: `delay=` is refused.
   */
  integer(name: string, defaultValue: number, what: string): number {
    const value = this.single(name);
    if (value === undefined) return defaultValue;
    if (!/^[0-9]+$/.test(value)) {
      const negative = /^-[0-9]+$/.test(value);
      throw invalidParameter(`${name} must be ${what}${negative ? ', not negative' : ''}; got ${quoteInput(value)}.`);
    }
    // Hundreds of digits overflow to Infinity, which JSON cannot show; they are just very large.
    return Math.min(Number(value), Number.MAX_VALUE);
  }
}

/** A query parameter that breaks its rule; the message names it. */
export const invalidParameter = (message: string) => invalidArgument('invalid_parameter', message);
