import type { GatewayDeps } from '../deps';
import { consumerKeyOf, signedRequestOf } from '../auth/signed-request';
import type { RouteContext } from '../http/context';
import { json, type Reply } from '../http/reply';
import { route, type Route, type RouteSpec } from '../http/route';

/**
 * The spec's answer is a JSON object; a client that asks for the RFC's form
 * encoding (Accept: application/x-www-form-urlencoded) gets that instead.
 * requests-oauthlib reads either.
 */
function credentialsReply(ctx: RouteContext, fields: Record<string, string | boolean>): Reply {
  if (!/application\/x-www-form-urlencoded/i.test(ctx.headers.accept ?? '')) return json(fields);
  const body = Buffer.from(new URLSearchParams(Object.entries(fields).map(([name, value]): [string, string] => [name, String(value)])).toString());
  return { status: 200, headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': body.byteLength }, body };
}

export function oauth1Routes(deps: GatewayDeps): Route[] {
  const { oauth: client } = deps.clients;
  /** A leg of the three-legged flow: signed parameters may come in a form body; answers hold secrets. */
  const leg = (spec: RouteSpec) => route({ noStore: true, ...spec });
  const logConsumer = (ctx: RouteContext) => {
    const key = consumerKeyOf(ctx);
    if (key) ctx.logAs = { appId: key, style: 'oauth1' };
  };

  return [
    leg({
      methods: 'POST',
      path: '/oauth1/request_token',
      summary: 'OAuth 1.0a leg 1: a signed request (consumer key = App ID, consumer secret = API key, oauth_callback) gets temporary credentials.',
      body: 'form',
      bodyOptional: true,
      handler: async (ctx) => {
        logConsumer(ctx);
        const issued = await client.oAuth1RequestToken({ request: signedRequestOf(ctx) }, ctx.call());
        return credentialsReply(ctx, { oauth_token: issued.oauthToken, oauth_token_secret: issued.oauthTokenSecret, oauth_callback_confirmed: issued.oauthCallbackConfirmed });
      },
    }),
    leg({
      methods: 'GET',
      path: '/oauth1/authorize',
      summary: 'OAuth 1.0a leg 2: approves the temporary token (query oauth_token) at once and answers the oauth_verifier.',
      handler: async (ctx) => {
        const token = ctx.singleParam('oauth_token') ?? '';
        const approved = await client.oAuth1Authorize({ oauthToken: token }, ctx.call());
        return json({ oauth_token: approved.oauthToken, oauth_verifier: approved.oauthVerifier, ...(approved.callback ? { callback: approved.callback } : {}) });
      },
    }),
    leg({
      methods: 'POST',
      path: '/oauth1/access_token',
      summary: 'OAuth 1.0a leg 3: a request signed with the temporary credentials and the verifier gets the access token.',
      body: 'form',
      bodyOptional: true,
      handler: async (ctx) => {
        logConsumer(ctx);
        const issued = await client.oAuth1AccessToken({ request: signedRequestOf(ctx) }, ctx.call());
        return credentialsReply(ctx, { oauth_token: issued.oauthToken, oauth_token_secret: issued.oauthTokenSecret });
      },
    }),
  ];
}
