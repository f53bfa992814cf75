import type { oauth } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import type { OAuthDeps } from '../domain/deps';
import { forgetApps } from '../domain/forget-apps';

/** For operators deleting users (the gateway's admin API and CLI): decode, call one domain function, encode. */
export function adminHandlers(deps: OAuthDeps): Pick<UnaryImplementation<oauth.OAuthServiceServer>, 'forgetApps'> {
  return {
    forgetApps: async (request) => {
      const forgotten = await forgetApps(deps.store, request.appIds);
      if (forgotten > 0) deps.logger.info({ apps: request.appIds.length, forgotten }, 'forgot apps');
      return { forgotten };
    },
  };
}
