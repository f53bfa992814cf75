import { z } from 'zod';
import { challenges } from '@sandbox/contracts';
import type { GatewayDeps } from '../../deps';
import { consumerKeyOf, signedRequestOf } from '../../auth/signed-request';
import type { RouteContext } from '../../http/context';
import { inputOf, type Contract } from '../../http/contract';
import { json, type Reply } from '../../http/reply';
import { routeOf, type Route, type RouteSpec } from '../../http/route';

/** Every row here is for oauth1 (http/route-family.ts). */
const route = routeOf('oauth1');

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

// ---- schemas: what the OpenAPI document shows (and, for leg 2, what the dispatcher validates) ----
// Legs 1 and 3 are documented only (checkedByService): the oauth service
// verifies a signature over every parameter exactly as sent, in order and
// duplicates kept (RFC 5849 3.4.1.3), wherever it was sent (header, query or
// form), so the gateway hands it the pairs untouched rather than a form
// checked as single values, which would refuse a parameter RFC 5849 lets a
// client repeat. Its refusals name RFC 5849's problem (parameter_absent, ...).

const APP_ID = 'app_Xq3V0d5yH2kq8Jr1mT9bWg';
const TEMPORARY_TOKEN = 'o1rt_H7kQ2mV9xR4bN1cT8wE5yL3pJ6sA0dF';
const VERIFIER = 'v3Lq8Xk2Nw5Rb9Tc1Ym4Hp7Js0Gd6Fa';

/** The protocol parameters every signed request carries, here or in the Authorization: OAuth header (RFC 5849 3.5). */
const protocolFields = {
  oauth_consumer_key: z.string().optional().meta({ description: 'The App ID.', example: APP_ID }),
  oauth_signature_method: z.enum(['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT']).optional().meta({ description: 'Case-sensitive; RSA-SHA1 is refused.' }),
  oauth_signature: z
    .string()
    .optional()
    .meta({ description: 'Keyed with the API key & the token secret (empty in leg 1), each percent-encoded (RFC 5849 3.4.2).' }),
  oauth_timestamp: z
    .string()
    .regex(/^\d+$/)
    .optional()
    .meta({ description: 'Unix seconds, within 300 s of the server clock; optional with PLAINTEXT only.', example: '1767225600' }),
  oauth_nonce: z
    .string()
    .optional()
    .meta({ description: 'Used once per consumer key within the timestamp window; optional with PLAINTEXT only.', example: 'kllo9940pd9333jh' }),
  oauth_version: z.literal('1.0').optional(),
};

const signedForm = (id: string, fields: z.ZodRawShape, description: string) =>
  z.object({ ...protocolFields, ...fields }).meta({
    id,
    description: `${description} Each protocol parameter exactly once, in the Authorization: OAuth header, the query or this form; any other parameter is signed too.`,
  });

const requestTokenForm = signedForm(
  'OAuth1RequestTokenForm',
  { oauth_callback: z.string().optional().meta({ description: 'oob, or an absolute http(s) URL of at most 2048 characters. Required.', example: 'oob' }) },
  'RFC 5849 2.1, signed with the API key and an empty token secret.',
);
const accessTokenForm = signedForm(
  'OAuth1AccessTokenForm',
  {
    oauth_token: z.string().optional().meta({ description: 'The temporary token of leg 1. Required.', example: TEMPORARY_TOKEN }),
    oauth_verifier: z.string().optional().meta({ description: 'The verifier of leg 2. Required.', example: VERIFIER }),
  },
  'RFC 5849 2.3, signed with the API key and the temporary token secret.',
);

const secret = z.string().meta({ example: 'kYq7Jz1mX4pB8wR2tN6vC0eL3sH9gD5fA' });
const temporaryCredentials = {
  json: z
    .object({ oauth_token: z.string().meta({ example: TEMPORARY_TOKEN }), oauth_token_secret: secret, oauth_callback_confirmed: z.literal(true) })
    .meta({ id: 'OAuth1TemporaryCredentials', description: 'RFC 5849 2.1; the temporary token lives 10 minutes.' }),
  form: z
    .object({ oauth_token: z.string().meta({ example: TEMPORARY_TOKEN }), oauth_token_secret: secret, oauth_callback_confirmed: z.literal('true') })
    .meta({ id: 'OAuth1TemporaryCredentialsForm', description: 'RFC 5849 2.1, form-encoded.' }),
};
const tokenCredentials = {
  json: z
    .object({ oauth_token: z.string().meta({ example: 'o1at_eyJhcHAiOiJhcHBf...' }), oauth_token_secret: secret })
    .meta({ id: 'OAuth1TokenCredentials', description: 'RFC 5849 2.3; the access token lives 24 hours.' }),
  form: z
    .object({ oauth_token: z.string().meta({ example: 'o1at_eyJhcHAiOiJhcHBf...' }), oauth_token_secret: secret })
    .meta({ id: 'OAuth1TokenCredentialsForm', description: 'RFC 5849 2.3, form-encoded.' }),
};
/** JSON by default (the spec), the RFC's form encoding when Accept asks for it. */
const eitherEncoding = (schemas: { json: z.ZodType; form: z.ZodType }) => ({
  'application/json': schemas.json,
  'application/x-www-form-urlencoded': schemas.form,
});
const noStore = { 'Cache-Control': { description: 'Never stored by a cache.', schema: z.literal('no-store'), required: true } };

const signedRefusals = {
  400: 'The code is the oauth_problem: parameter_absent (the message names each missing parameter), parameter_rejected (a protocol parameter repeated, an unreadable header, a bad timestamp or callback), signature_method_rejected, version_rejected.',
  401: `The code is the oauth_problem: signature_invalid (the message holds the base string the server built), timestamp_refused, nonce_used, consumer_key_unknown, consumer_key_rejected; leg 3 also token_rejected, token_expired, token_used, verifier_invalid. WWW-Authenticate: ${challenges.oauth1ProblemChallenge('<value>')}.`,
};

const contracts = {
  requestToken: {
    body: requestTokenForm,
    checkedByService: ['body'],
    description:
      'Leg 1 (RFC 5849 2.1): consumer key = App ID, consumer secret = API key. Send Accept: application/x-www-form-urlencoded for the RFC form encoding (requests-oauthlib needs it).',
    responses: { 200: { description: 'Temporary credentials.', content: eitherEncoding(temporaryCredentials), headers: noStore } },
    refusals: signedRefusals,
  },
  authorize: {
    query: z.object({
      oauth_token: z
        .string()
        .optional()
        // Its absence is the oauth service's refusal (400 parameter_absent, RFC 5849's problem vocabulary, as at the other legs); the gateway owns only "once".
        .meta({ description: 'The temporary token of leg 1.', example: TEMPORARY_TOKEN, param: { required: true } }),
    }),
    description: 'Leg 2 (RFC 5849 2.2): approved at once. Not a redirect: follow callback yourself.',
    responses: {
      200: {
        description: 'The verifier for leg 3.',
        schema: z
          .object({
            oauth_token: z.string().meta({ example: TEMPORARY_TOKEN }),
            oauth_verifier: z.string().meta({ example: VERIFIER }),
            callback: z
              .string()
              .optional()
              .meta({
                description: 'For a URL callback: that URL with oauth_token and oauth_verifier added to its query.',
                example: `https://client.example/cb?oauth_token=${TEMPORARY_TOKEN}&oauth_verifier=${VERIFIER}`,
              }),
          })
          .meta({ id: 'OAuth1Verifier' }),
        headers: noStore,
      },
    },
    refusals: {
      400: 'invalid_parameter: oauth_token sent more than once; parameter_absent: no oauth_token.',
      401: 'token_rejected: the temporary token is unknown, expired, already exchanged, or its app is revoked or deleted (the message says which).',
    },
  },
  accessToken: {
    body: accessTokenForm,
    checkedByService: ['body'],
    description: 'Leg 3 (RFC 5849 2.3): the temporary token is single use. Send Accept: application/x-www-form-urlencoded for the RFC form encoding.',
    responses: { 200: { description: 'Token credentials: sign protected requests with them.', content: eitherEncoding(tokenCredentials), headers: noStore } },
    refusals: signedRefusals,
  },
} satisfies Record<string, Contract>;

export function oauth1Routes(deps: GatewayDeps): Route[] {
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
      contract: contracts.requestToken,
      handler: async (ctx) => {
        ctx.fact('oauth1_step', 'request_token'); // for the exercises (docs/exercises.md), refused or not
        logConsumer(ctx);
        const issued = await deps.clients.oauth.oAuth1RequestToken({ request: signedRequestOf(ctx) }, ctx.call());
        return credentialsReply(ctx, {
          oauth_token: issued.oauthToken,
          oauth_token_secret: issued.oauthTokenSecret,
          oauth_callback_confirmed: issued.oauthCallbackConfirmed,
        });
      },
    }),
    leg({
      methods: 'GET',
      path: '/oauth1/authorize',
      summary: 'OAuth 1.0a leg 2: approves the temporary token (query oauth_token) at once and answers the oauth_verifier.',
      contract: contracts.authorize,
      handler: async (ctx) => {
        const approved = await deps.clients.oauth.oAuth1Authorize({ oauthToken: inputOf(ctx, contracts.authorize).query.oauth_token ?? '' }, ctx.call());
        return json({
          oauth_token: approved.oauthToken,
          oauth_verifier: approved.oauthVerifier,
          ...(approved.callback ? { callback: approved.callback } : {}),
        });
      },
    }),
    leg({
      methods: 'POST',
      path: '/oauth1/access_token',
      summary: 'OAuth 1.0a leg 3: a request signed with the temporary credentials and the verifier gets the access token.',
      body: 'form',
      bodyOptional: true,
      contract: contracts.accessToken,
      handler: async (ctx) => {
        ctx.fact('oauth1_step', 'access_token'); // for the exercises (docs/exercises.md), refused or not
        logConsumer(ctx);
        const issued = await deps.clients.oauth.oAuth1AccessToken({ request: signedRequestOf(ctx) }, ctx.call());
        return credentialsReply(ctx, { oauth_token: issued.oauthToken, oauth_token_secret: issued.oauthTokenSecret });
      },
    }),
  ];
}
