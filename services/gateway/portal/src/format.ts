/** A time as the learner's browser writes it, with the exact ISO value for machines. */
export function formatTime(iso: string): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

const AUTH_STYLE_WORDS: Record<string, string> = {
  api_key_header: 'API key (header)',
  api_key_query: 'API key (query)',
  bearer: 'Bearer token',
  oauth2: 'OAuth 2.0',
  oauth1: 'OAuth 1.0a',
  basic: 'Basic',
  jwt: 'JWT',
  hmac: 'HMAC',
  digest: 'Digest',
};

export const authStyleWords = (style: string): string => AUTH_STYLE_WORDS[style] ?? (style || 'none');

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
