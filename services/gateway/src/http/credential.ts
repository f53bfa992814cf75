import type { common, identity } from '@sandbox/contracts';

/*
 * Who a request authenticated as, in the words a route row and its context
 * use. Owned by the pipeline, which only carries them; auth/ checks them
 * (auth/scheme.ts re-exports them for the schemes and the routes).
 */

/** The app a credential belongs to; one type, owned by the proto (sandbox.common.v1). */
export type Principal = common.AppPrincipal;

/**
 * The schemes the gateway knows. The name is also the auth style recorded in
 * an app's request log and shown in the portal.
 */
export type SchemeName = 'api_key_header' | 'api_key_query' | 'bearer' | 'oauth2' | 'oauth1' | 'jwt' | 'hmac' | 'digest' | 'basic' | 'portal_session';

/** Who a request authenticated as: an app (its credential's owner), or a signed-in portal user. */
export type Credential =
  | { kind: 'app'; scheme: SchemeName; principal: Principal }
  | {
      kind: 'session';
      scheme: 'portal_session';
      user: identity.User;
      token: string;
      /** Named an operator by identity's configuration (docs/operators.md): the one way into the operator-only rows. */
      operator: boolean;
    };
