import type { IncomingMessage } from 'node:http';
import { unauthenticated, type AppError } from '@sandbox/runtime';
import type { BackendClients } from '../clients';
import { whenReady, type MaybePromise } from '../maybe-async';
import { TtlCache } from './ttl-cache';

/** How a request presented its app credential; recorded in the app's request log. */
export type AuthStyle = 'api_key_header' | 'api_key_query' | 'bearer' | 'oauth2' | 'basic';

export interface Principal {
  id: string;
  appId: string;
  ownerId: string;
  scopes: string[];
}

export interface Authenticated {
  principal: Principal;
  style: AuthStyle;
}

interface Check {
  ok: boolean;
  reason: string;
  principal?: Principal;
}

export const APP_BEARER_PREFIX = 'bt_';

/**
 * Turns the credential a request presents into the app it belongs to. Answers
 * are remembered for at most CREDENTIAL_CACHE_MS (<= 500 ms; identity caches at
 * most as long), so a rotation or revocation is seen by every gateway replica
 * within a second while the hot path mostly skips the network.
 */
export class CredentialVerifier {
  private readonly cache: TtlCache<Check>;

  constructor(
    private readonly clients: BackendClients,
    cacheMs: number,
  ) {
    this.cache = new TtlCache(cacheMs);
  }

  /**
   * The first credential present among the accepted styles decides: a wrong one
   * is refused, never passed over for another. Throws (or rejects with)
   * UNAUTHENTICATED. A remembered answer comes back synchronously.
   */
  authenticate(req: IncomingMessage, query: URLSearchParams, accepted: AuthStyle[], requestId: string): MaybePromise<Authenticated> {
    const presented = this.presented(req, query, accepted);
    if (!presented) {
      throw withChallenge(unauthenticated('missing_credentials', `Send a credential: ${describe(accepted)}.`), undefined);
    }
    return whenReady(this.check(presented.style, presented.value, requestId), (check) => {
      if (!check.ok || !check.principal) {
        throw withChallenge(unauthenticated('invalid_credentials', check.reason || 'The credential is not valid.'), 'invalid_token');
      }
      return { principal: check.principal, style: presented.style };
    });
  }

  private presented(req: IncomingMessage, query: URLSearchParams, accepted: AuthStyle[]): { style: AuthStyle; value: string } | undefined {
    const authorization = req.headers.authorization;
    if (authorization) {
      const [scheme, ...rest] = authorization.split(' ');
      const value = rest.join(' ').trim();
      if (/^bearer$/i.test(scheme) && (accepted.includes('bearer') || accepted.includes('oauth2'))) {
        const style: AuthStyle = value.startsWith(APP_BEARER_PREFIX) || !accepted.includes('oauth2') ? 'bearer' : 'oauth2';
        return { style, value };
      }
      if (/^basic$/i.test(scheme) && accepted.includes('basic')) return { style: 'basic', value };
    }
    const headerKey = req.headers['x-api-key'];
    if (headerKey !== undefined && accepted.includes('api_key_header')) {
      return { style: 'api_key_header', value: typeof headerKey === 'string' ? headerKey : '' };
    }
    const queryKeys = query.getAll('api_key');
    if (queryKeys.length && accepted.includes('api_key_query')) {
      // Two api_key parameters are ambiguous: refused as an empty credential.
      return { style: 'api_key_query', value: queryKeys.length === 1 ? queryKeys[0] : '' };
    }
    return undefined;
  }

  private check(style: AuthStyle, value: string, requestId: string): MaybePromise<Check> {
    if (!value) return { ok: false, reason: 'The credential is empty.' };
    return this.cache.get(`${style}\u0000${value}`, async () => {
      const options = { requestId };
      switch (style) {
        case 'api_key_header':
        case 'api_key_query':
          return toCheck((await this.clients.identity.verifyApiKey({ apiKey: value }, options)).check);
        case 'bearer':
          if (!value.startsWith(APP_BEARER_PREFIX)) return { ok: false, reason: `An app bearer token starts with ${APP_BEARER_PREFIX}.` };
          return toCheck((await this.clients.identity.verifyBearerToken({ bearerToken: value }, options)).check);
        case 'oauth2':
          return this.checkAccessToken(value, requestId);
        case 'basic': {
          const decoded = decodeBasic(value);
          if (!decoded) return { ok: false, reason: 'The Basic credential is not base64 of "App ID:App Secret".' };
          return toCheck((await this.clients.identity.verifyBasic({ appId: decoded.user, appSecret: decoded.password }, options)).check);
        }
      }
    });
  }

  private async checkAccessToken(token: string, requestId: string): Promise<Check> {
    try {
      return toCheck((await this.clients.oauth.verifyAccessToken({ token }, { requestId })).check);
    } catch (error) {
      // Until the OAuth service issues tokens, no token of this kind can be valid.
      if ((error as AppError).code === 'not_implemented') return { ok: false, reason: 'The bearer token is not valid.' };
      throw error;
    }
  }
}

function toCheck(check: { ok: boolean; reason: string; principal?: Principal } | undefined): Check {
  return check ?? { ok: false, reason: 'The credential is not valid.' };
}

export function decodeBasic(value: string): { user: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+=*$/.test(value)) return undefined;
  const text = Buffer.from(value, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

const STYLE_WORDS: Record<AuthStyle, string> = {
  api_key_header: 'an x-api-key header',
  api_key_query: 'an api_key query parameter',
  bearer: 'Authorization: Bearer with the app bearer token (bt_…)',
  oauth2: 'Authorization: Bearer with an OAuth 2.0 access token',
  basic: 'Authorization: Basic with App ID and App Secret',
};

function describe(accepted: AuthStyle[]): string {
  return accepted.map((s) => STYLE_WORDS[s]).join(', or ');
}

/** RFC 6750: a 401 says which scheme to use, and with error= when a token was wrong. */
function withChallenge(error: AppError, bearerError: string | undefined): AppError {
  const challenge = `Bearer realm="training-sandbox"${bearerError ? `, error="${bearerError}"` : ''}`;
  return Object.assign(error, { challenge });
}
