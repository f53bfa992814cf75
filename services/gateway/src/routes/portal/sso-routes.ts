import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import type { Contract } from '../../http/contract';
import { HttpRefusal } from '@sandbox/runtime';
import { empty, json, type Reply } from '../../http/reply';
import { routeOf, type Route, type RouteSpec } from '../../http/route';
import { SSO_ERROR_CODES } from '../../sso/sso-errors';
import {
  failureLocation,
  FLOW_COOKIE,
  FLOW_TTL_SECONDS,
  HANDOFF_COOKIE,
  HANDOFF_TTL_SECONDS,
  SIGNED_IN_HASH,
  SSO_PATHS,
  type Redirect,
} from '../../sso/sso-flow';

/** Every row here is for portal (http/route-family.ts). */
const route = routeOf('portal');

/*
 * What the portal's sign-in screen offers (GET /api/auth/options) and single
 * sign-on through the organisation's OpenID Connect provider (docs/identity.md,
 * "Single sign-on"). The browser walks start and callback, which always answer
 * 303 (to the provider, or back to the portal, with an error code in the hash
 * when something went wrong); the page then picks its session up with POST
 * /api/auth/sso/session. With SSO_CLIENT_ID unset the rows are still served
 * (the document does not change with the configuration) and say so.
 */

const noStore = { 'Cache-Control': { description: 'Never stored by a cache.', schema: z.literal('no-store'), required: true } };

const optionsSchema = z
  .object({
    signUp: z
      .enum(['open', 'domain', 'closed'])
      .meta({ description: 'Who may create an account with a password (SIGNUP): anyone, addresses at `domains`, or nobody.' }),
    domains: z.array(z.string()).meta({ description: 'With signUp "domain": the email domains that may sign up; otherwise empty.' }),
    localSignIn: z.boolean().meta({ description: 'Whether accounts with a password may sign in (LOCAL_SIGN_IN).' }),
    sso: z
      .object({
        name: z.string().meta({ description: 'The provider, as the button names it: "Sign in with <name>".' }),
        startUrl: z.string().meta({ description: 'Where the browser goes to sign in through it (a navigation, not a fetch).' }),
      })
      .nullable()
      .meta({ description: "Single sign-on through the organisation's OpenID Connect provider; null when it is not set up." }),
  })
  .meta({
    id: 'SignInOptions',
    example: {
      signUp: 'domain',
      domains: ['example.edu'],
      localSignIn: true,
      sso: { name: 'Campus login', startUrl: 'https://sandbox.example.org/api/auth/sso/start' },
    },
  });

const handedOver = z
  .object({
    token: z.string().meta({ description: "The session token (the provider's ID token): send it as Authorization: Bearer, as a password sign-in's." }),
    expiresAt: z.string().meta({ description: "ISO 8601, UTC: the ID token's expiry.", example: '2030-01-01T11:00:00.000Z' }),
  })
  .meta({
    description: 'A session, as POST /api/auth/login answers one.',
    example: { token: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmVkdSJ9.c2ln', expiresAt: '2030-01-01T11:00:00.000Z' },
  });

const callbackQuery = z.object({
  code: z.string().optional().meta({ description: 'The authorization code (RFC 6749 4.1.2).' }),
  state: z.string().optional().meta({ description: 'As sent to the provider: must match the sign-in under way.' }),
  iss: z.string().optional().meta({ description: 'The provider (RFC 9207), when it sends it: checked.' }),
  error: z.string().optional().meta({ description: "The provider's refusal (RFC 6749 4.1.2.1), e.g. access_denied.", example: 'access_denied' }),
  error_description: z.string().optional().meta({ description: 'Its words: shown to the learner as text.' }),
});

const cookieHeader = (name: string, how: string) => ({ description: `${name}: ${how} HttpOnly, Path-scoped, Secure when the public URL is https.` });
const errorCodes = SSO_ERROR_CODES.join(', ');

const contracts = {
  options: {
    description:
      'Called by the portal before it draws its sign-in screen; anyone may ask. Single sign-on is offered when SSO_CLIENT_ID is set on the gateway (and identity trusts the same issuer).',
    responses: { 200: { description: 'What this sandbox offers.', schema: optionsSchema, headers: noStore } },
  },
  start: {
    noUpstreamRefusals: true,
    description: `A navigation (a link), not a fetch: authorization code with PKCE (S256), state and nonce, through the provider's authorization endpoint. When single sign-on is off or the provider cannot be reached, the redirect is to the portal's sign-in screen with sso_error (one of ${errorCodes}).`,
    responses: {
      303: {
        description:
          "To the provider's authorization endpoint, with the sign-in under way sealed in a cookie for the callback; or to the portal's sign-in screen with an error code.",
        headers: {
          Location: {
            description: "The provider's authorization URL, or ../../../portal/#/sign-in?sso_error=<code>.",
            schema: z
              .string()
              .meta({ example: 'https://idp.example.edu/authorize?client_id=training-sandbox&response_type=code&code_challenge_method=S256&…' }),
            required: true,
          },
          'Set-Cookie': cookieHeader(
            FLOW_COOKIE,
            `the sign-in under way, sealed (JWE), for ${FLOW_TTL_SECONDS / 60} minutes; SameSite=Lax (the provider's redirect back is a top-level navigation).`,
          ),
          ...noStore,
        },
      },
    },
  },
  callback: {
    query: callbackQuery,
    // Whatever the provider sends, the answer is a redirect: its parameters are the sign-in's to judge, never a 400.
    checkedByService: ['query'],
    noUpstreamRefusals: true,
    description: `The redirect URI registered at the provider. The code is redeemed (openid-client checks state, iss, PKCE, and the ID token's issuer, audience, expiry and nonce) and identity must accept the ID token as a session; the token then waits for the page in a cookie, never in a URL. Every failure ends on the portal's sign-in screen with sso_error (one of ${errorCodes}) and, when the provider explained, sso_error_description.`,
    responses: {
      303: {
        description: `Signed in: to the portal (../../../portal/${SIGNED_IN_HASH}), which picks the session up with POST ${SSO_PATHS.session}. Or to the sign-in screen with an error code.`,
        headers: {
          Location: {
            description: `../../../portal/${SIGNED_IN_HASH}, or ../../../portal/#/sign-in?sso_error=<code>.`,
            schema: z.string().meta({ example: `../../../portal/${SIGNED_IN_HASH}` }),
            required: true,
          },
          'Set-Cookie': cookieHeader(
            HANDOFF_COOKIE,
            `the session token, sealed, for ${HANDOFF_TTL_SECONDS} s, SameSite=Strict, sent only to ${SSO_PATHS.session}; and ${FLOW_COOKIE} cleared.`,
          ),
          ...noStore,
        },
      },
    },
  },
  session: {
    noUpstreamRefusals: true,
    description: `The one call the portal makes with credentials: 'same-origin', right after the callback sent it back: answers the session the callback handed over, once, and clears its cookie.`,
    responses: {
      200: {
        description: "The session: keep it as a password sign-in's.",
        schema: handedOver,
        headers: { 'Set-Cookie': cookieHeader(HANDOFF_COOKIE, 'cleared (Max-Age=0).'), ...noStore },
      },
    },
    refusals: {
      403: 'cross_site_request: the browser says the request comes from another site (Sec-Fetch-Site).',
      404: 'no_sso_session: nothing is waiting (picked up already, older than a minute, or another browser); sso_not_configured: single sign-on is off.',
    },
  },
} satisfies Record<string, Contract>;

const seeOther = ({ location, cookies }: Redirect): Reply => empty(303, { Location: location, ...(cookies.length ? { 'Set-Cookie': cookies } : {}) });

export function ssoRoutes(deps: GatewayDeps): Route[] {
  const flow = deps.sso;
  /** Every answer may set a sign-in cookie or hold a session: never stored by a cache. */
  const account = (spec: RouteSpec) => route({ noStore: true, ...spec });
  const off: Redirect = { location: failureLocation('sso_off'), cookies: [] };

  return [
    account({
      methods: 'GET',
      path: SSO_PATHS.options,
      summary: 'What the sign-in screen offers: who may sign up, password sign-in, single sign-on.',
      contract: contracts.options,
      handler: async (ctx) => {
        const options = await deps.clients.identity.getSignUpOptions({}, ctx.call());
        return json({
          signUp: options.signUp,
          domains: options.domains,
          localSignIn: options.localSignIn,
          sso: flow ? { name: flow.providerName, startUrl: `${ctx.baseUrl}${SSO_PATHS.start}` } : null,
        });
      },
    }),
    account({
      methods: 'GET',
      path: SSO_PATHS.start,
      summary: "Single sign-on: redirects (303) to the organisation's identity provider.",
      contract: contracts.start,
      handler: async (ctx) => seeOther(flow ? await flow.start(ctx.baseUrl, ctx.requestId) : off),
    }),
    account({
      methods: 'GET',
      path: SSO_PATHS.callback,
      summary: "Single sign-on: the provider's redirect back; redirects (303) to the portal.",
      contract: contracts.callback,
      handler: async (ctx) => seeOther(flow ? await flow.callback(ctx.baseUrl, ctx.headers, ctx.rawQuery, ctx.call()) : off),
    }),
    account({
      methods: 'POST',
      path: SSO_PATHS.session,
      summary: 'Single sign-on: the portal picks up the session the callback handed over.',
      contract: contracts.session,
      handler: async (ctx) => {
        if (!flow) throw new HttpRefusal(404, 'sso_not_configured', 'Single sign-on is not set up on this sandbox: sign in with a password.');
        const { token, expiresAt, cookies } = await flow.pickUp(ctx.baseUrl, ctx.headers);
        return json({ token, expiresAt }, 200, { 'Set-Cookie': cookies });
      },
    }),
  ];
}
