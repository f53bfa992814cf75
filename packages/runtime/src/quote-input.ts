/** How many characters of a caller's value a message shows before it cuts the rest off. */
export const QUOTE_INPUT_MAX = 80;

export interface QuoteInputOptions {
  /** Characters (code points) shown before the value is cut short with "...". */
  max?: number;
  /**
   * `double` (the default): a JSON string, `"like this"`, with anything
   * outside printable ASCII escaped (`\n`, `\u00e9`, `\u200b`), so a learner
   * sees exactly what was sent, invisible characters included, and the message
   * can travel in a header or a trailer unharmed.
   *
   * `single`: `'like this'`, with every character outside what RFC 6749 5.2
   * allows in an error_description (printable ASCII without `"` and `\`), and
   * the `'` that would end the quote, shown as `?`. For messages that become
   * an OAuth error_description or an auth refusal, where `"` and `\` are not
   * allowed.
   */
  quotes?: 'double' | 'single';
}

/** A code unit outside printable ASCII, as JSON.stringify leaves it. */
const NOT_PRINTABLE = /[^\x20-\x7e]/g;
/** Outside RFC 6749 5.2's %x20-21 / %x23-5B / %x5D-7E, and the single quote; per character (u), so an emoji is one ?. */
const NOT_ERROR_DESCRIPTION = /[^\x20\x21\x23-\x26\x28-\x5b\x5d-\x7e]/gu;

const escaped = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A value a caller sent, as an error message quotes it back: cut after `max`
 * characters (code points, so a character is never split) with "...", and
 * quoted so that where it starts and ends is plain. A string is quoted; any
 * other value is shown as its JSON text, unquoted (`5`, `true`, `null`,
 * `["a","b"]`), so "5" and 5 read differently; what JSON cannot write
 * (undefined) is shown as JavaScript prints it.
 *
 * It shows whatever it is given: a caller that must not echo a secret does not
 * pass it here.
 */
export function quoteInput(value: unknown, { max = QUOTE_INPUT_MAX, quotes = 'double' }: QuoteInputOptions = {}): string {
  const isString = typeof value === 'string';
  const text = isString ? value : (jsonText(value) ?? String(value));
  const chars = [...text];
  const cut = chars.length > max ? `${chars.slice(0, max).join('')}...` : text;
  if (quotes === 'single') return isString ? `'${cut.replace(NOT_ERROR_DESCRIPTION, '?')}'` : cut.replace(NOT_ERROR_DESCRIPTION, '?');
  if (!isString) return cut.replace(NOT_PRINTABLE, escaped);
  return JSON.stringify(cut).replace(NOT_PRINTABLE, escaped);
}

function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) as string | undefined;
  } catch {
    // A cycle or a BigInt.
    return undefined;
  }
}
