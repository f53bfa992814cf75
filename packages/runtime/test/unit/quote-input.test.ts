import { QUOTE_INPUT_MAX, quoteInput } from '@sandbox/runtime';

describe('quoteInput: a caller value as a message quotes it back', () => {
  it('when the value is a short string, then it is shown whole in double quotes', () => {
    expect(quoteInput('hr:read')).toBe('"hr:read"');
    expect(quoteInput('')).toBe('""');
  });

  it('when the value is longer than the limit, then it is cut after the limit with ...', () => {
    expect(quoteInput('x'.repeat(QUOTE_INPUT_MAX))).toBe(`"${'x'.repeat(QUOTE_INPUT_MAX)}"`);
    expect(quoteInput('x'.repeat(QUOTE_INPUT_MAX + 1))).toBe(`"${'x'.repeat(QUOTE_INPUT_MAX)}..."`);
    expect(quoteInput('abcdef', { max: 3 })).toBe('"abc..."');
  });

  it('when the cut falls inside a character outside the BMP, then the character is kept whole', () => {
    // Each emoji is one character (two UTF-16 code units): a cut by code units would split one.
    expect(quoteInput('\u{1F600}\u{1F600}\u{1F600}', { max: 2 })).toBe('"\\ud83d\\ude00\\ud83d\\ude00..."');
  });

  it('when the value holds quotes, control or non-ASCII characters, then they are JSON-escaped and the result is printable ASCII', () => {
    expect(quoteInput('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoteInput('line\nbreak\ttab')).toBe('"line\\nbreak\\ttab"');
    expect(quoteInput('caf\u00e9')).toBe('"caf\\u00e9"');
    // What makes a value look right and still be refused: a zero-width space.
    expect(quoteInput('hr:read\u200b')).toBe('"hr:read\\u200b"');
    expect(quoteInput('\u00e9\n\u{1F600}')).toMatch(/^[\x20-\x7e]*$/);
  });

  it('when the value is not a string, then its JSON text is shown unquoted, so 5 and "5" read differently', () => {
    expect(quoteInput(5)).toBe('5');
    expect(quoteInput('5')).toBe('"5"');
    expect(quoteInput(true)).toBe('true');
    expect(quoteInput(null)).toBe('null');
    expect(quoteInput(['a', 'b'])).toBe('["a","b"]');
    expect(quoteInput({ a: '\u00e9' })).toBe('{"a":"\\u00e9"}');
    expect(quoteInput(undefined)).toBe('undefined');
    expect(quoteInput(10n)).toBe('10');
  });

  it('when a non-string is longer than the limit, then its JSON text is cut with the same rule', () => {
    expect(quoteInput(['abcdef'], { max: 4 })).toBe('["ab...');
  });

  describe("quotes: 'single', for an OAuth error_description or an auth refusal", () => {
    it('when the value is plain, then it is shown in single quotes', () => {
      expect(quoteInput('client_credentials', { quotes: 'single' })).toBe("'client_credentials'");
    });

    it('when the value holds characters RFC 6749 5.2 forbids, or the closing quote, then each becomes ?', () => {
      expect(quoteInput('a"b\\c\'d caf\u00e9\n', { quotes: 'single' })).toBe("'a?b?c?d caf??'");
      expect(quoteInput('\u{1F600}', { quotes: 'single' })).toBe("'?'");
    });

    it('when the value is long, then it is cut by the same rule', () => {
      expect(quoteInput('x'.repeat(100), { quotes: 'single' })).toBe(`'${'x'.repeat(QUOTE_INPUT_MAX)}...'`);
      expect(quoteInput('ot_abcdefghijklmnopqrstuvwxyz', { max: 20, quotes: 'single' })).toBe("'ot_abcdefghijklmnopq...'");
    });

    it('when the value is not a string, then its JSON text is shown unquoted and made safe the same way', () => {
      expect(quoteInput(5, { quotes: 'single' })).toBe('5');
      expect(quoteInput(['a'], { quotes: 'single' })).toBe('[?a?]');
    });

    it('whatever is sent, the result holds only what an error_description allows', () => {
      for (const value of ['"\\\'', '\u0000\u007f\u0080', 'x'.repeat(500), '\u{1F600}'.repeat(100)]) {
        expect(quoteInput(value, { quotes: 'single' })).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
      }
    });
  });
});
