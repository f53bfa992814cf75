import type { CallOptionsLite, Logger } from '@sandbox/runtime';
import { OidcClient } from './oidc-client';
import { CookieSealer, type Clock } from './sealed-cookie';
import type { SsoSettings } from './sso-config';
import { SsoFlow } from './sso-flow';

/** What single sign-on asks of identity (the gateway's identity client is one): whether a session it made is still good. */
export interface SessionCheck {
  verifySession(request: { token: string }, call: CallOptionsLite): Promise<unknown>;
}

/** Single sign-on as configured, or undefined when SSO_CLIENT_ID is unset (its routes then say so). */
export function buildSso(settings: SsoSettings | undefined, identity: SessionCheck, logger: Logger, clock?: Clock): SsoFlow | undefined {
  if (!settings) return undefined;
  if (settings.cookieKeyIsRandom) {
    logger.warn(
      'SSO_COOKIE_KEY is not set: this gateway seals its sign-in cookies with a key of its own, so a sign-in under way does not survive a restart (set it to run several gateways)',
    );
  }
  return new SsoFlow({
    settings,
    relyingParty: new OidcClient(settings, logger),
    sealer: new CookieSealer(settings.cookieKey, clock),
    verifySession: async (token, call) => {
      await identity.verifySession({ token }, call);
    },
    logger,
  });
}
