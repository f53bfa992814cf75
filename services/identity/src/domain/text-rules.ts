/**
 * Characters no identifier or label of ours may hold, whatever the field:
 *
 * - control characters (Unicode Cc: C0 U+0000-U+001F, DEL, C1 U+0080-U+009F),
 *   e.g. NUL, BEL, ESC: they truncate strings in C code, ring terminals and
 *   drive terminal escape sequences in logs;
 * - format characters (Unicode Cf), e.g. U+202E right-to-left override,
 *   U+200B zero-width space, U+200D zero-width joiner, U+FEFF: invisible, they
 *   make two strings that look identical differ (or reorder what is shown);
 * - U+FFFD, the replacement character: the text was damaged on the way (bytes
 *   that were not UTF-8 became U+FFFD), so what the person meant is unknown;
 * - unpaired surrogates (Cs): not Unicode text at all; they cannot be stored
 *   as UTF-8 without turning into U+FFFD.
 *
 * Descriptions may keep line breaks and tabs (`allowLineBreaks`).
 */
export interface TextRuleOptions {
  /** Allow TAB, LF and CR (multi-line text). */
  allowLineBreaks?: boolean;
}

const LINE_BREAKS = new Set([0x09, 0x0a, 0x0d]);
const CONTROL = /\p{Cc}/gu;
const FORMAT = /\p{Cf}/u;
const SURROGATE = /\p{Cs}/u;
const REPLACEMENT = '\uFFFD';

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Which rule `text` breaks, as words that complete "<field> must not contain …",
 * or undefined when it breaks none.
 */
export function forbiddenCharacter(text: string, options: TextRuleOptions = {}): string | undefined {
  for (const match of text.matchAll(CONTROL)) {
    if (options.allowLineBreaks && LINE_BREAKS.has(match[0].codePointAt(0)!)) continue;
    return `control characters such as NUL, BEL or ESC${options.allowLineBreaks ? ' (line breaks and tabs are allowed)' : ''} (found ${codePoint(match[0])})`;
  }
  const format = FORMAT.exec(text);
  if (format) {
    return `invisible format characters (Unicode category Cf, such as zero-width joiners or the right-to-left override) (found ${codePoint(format[0])})`;
  }
  if (text.includes(REPLACEMENT)) return 'the replacement character U+FFFD (the text was damaged: it was not valid UTF-8)';
  if (SURROGATE.test(text)) return 'unpaired surrogates (the text is not valid Unicode)';
  return undefined;
}
