import { CHANGE_FEED_REDIS, openRedis, redisChangeFeed, type Logger } from '@sandbox/runtime';
import type { BackendClients } from '../clients';

/**
 * The calls whose success changes what a credential check answers: identity's
 * changes to apps and their owners, and oauth's revocation of a token.
 */
export const CHANGING_CALLS = {
  identity: [
    'deleteApp',
    'regenerateSecret',
    'rotateCredentials',
    'setRedirectUris',
    'setScopes',
    'resetOwner',
    'adminSetUserDisabled',
    'adminDeleteUser',
    'adminPurge',
  ],
  oauth: ['revoke'],
} as const satisfies { identity: readonly (keyof BackendClients['identity'])[]; oauth: readonly (keyof BackendClients['oauth'])[] };

/**
 * Calls `forget` whenever what the gateway remembers of credentials may have
 * changed (docs/state.md, "Caches"):
 * - on each change this gateway forwards, as soon as it is answered and
 *   before the answer goes on to the client: with one gateway and no Redis
 *   (the embedded default) this is every change but an operator's CLI's;
 * - with REDIS_URL, on every change any replica of identity or oauth
 *   publishes (runtime change-feed.ts), and whenever the subscription comes
 *   back after a break.
 * Returns what stops listening.
 */
export async function forgetOnChanges(clients: BackendClients, redisUrl: string | undefined, logger: Logger, forget: () => void): Promise<() => Promise<void>> {
  afterSuccess(clients.identity, CHANGING_CALLS.identity, forget);
  afterSuccess(clients.oauth, CHANGING_CALLS.oauth, forget);
  if (!redisUrl) return async () => undefined;
  const feed = await redisChangeFeed({ open: () => openRedis(redisUrl, CHANGE_FEED_REDIS), publishes: false, logger });
  feed.subscribe(['apps', 'tokens'], forget);
  return () => feed.close();
}

/** Replaces each named method of the adapter with one that calls `then` once the call has succeeded. */
function afterSuccess<C extends object>(client: C, methods: readonly (keyof C)[], then: () => void): void {
  for (const name of methods) {
    const call = client[name] as (...args: unknown[]) => Promise<unknown>;
    (client[name] as unknown) = (...args: unknown[]) =>
      call(...args).then((answer) => {
        then();
        return answer;
      });
  }
}
