import { challenges } from '@sandbox/contracts';
import type { BackendClients } from '../../clients';
import type { RouteContext } from '../../http/context';
import { verdictOf, type AuthScheme, type Presented, type SchemeName } from '../scheme';

/** The API key, from a header or from the query string (the weaker form: it lands in logs and browser history). */
export function apiKeySchemes(clients: BackendClients, cacheMs: number): [AuthScheme, AuthScheme] {
  /**
   * API keys have no registered HTTP scheme; the challenge says where the key
   * goes, in OpenAPI's words (in, name), so a refusal teaches the placement.
   */
  const scheme = (name: SchemeName, words: string, where: string, detect: (ctx: RouteContext) => Presented | undefined): AuthScheme => ({
    name,
    words,
    cacheMs,
    detect,
    async verify(apiKey, ctx) {
      return verdictOf(name, (await clients.identity.verifyApiKey({ apiKey }, { requestId: ctx.requestId })).check);
    },
    challenge: (refused) => challenges.apiKeyChallenge(where, refused),
  });
  return [
    scheme('api_key_header', 'an x-api-key header', 'in="header", name="x-api-key"', (ctx) => {
      const value = ctx.headers['x-api-key'];
      return value === undefined ? undefined : { value: typeof value === 'string' ? value : '', sure: true };
    }),
    scheme('api_key_query', 'an api_key query parameter', 'in="query", name="api_key"', (ctx) => {
      if (!ctx.rawQuery.includes('api_key')) return undefined; // the data page's common case, without parsing the query
      const values = ctx.query.getAll('api_key');
      if (values.length === 0) return undefined;
      // Two api_key parameters are ambiguous: refused as an empty credential.
      return { value: values.length === 1 ? values[0] : '', sure: true };
    }),
  ];
}
