import { PACK_SCOPES } from '../../../../packages/contracts/src/account-rules';

/** The pack scopes, owned by identity; the page shows them in the spec's order. */
export const ALL_SCOPES: readonly string[] = PACK_SCOPES;

const PACK_WORDS: Record<string, string> = {
  'fpa:read': 'Financial planning (fpa)',
  'stocks:read': 'Stocks',
  'marketing:read': 'Marketing',
  'hr:read': 'HR',
  'cricket:read': 'Cricket',
};

export const scopeWords = (scope: string): string => PACK_WORDS[scope] ?? scope;
