// `npm run build:postman` (part of `npm run build`): a Postman collection and
// environment generated from the OpenAPI document the gateway serves, with
// openapi-to-postmanv2 (Postman's own maintained converter), written to
// services/gateway/dist/postman for the gateway to serve at /postman/.
// Runs after tsc: it builds the document from the compiled route table.
'use strict';

const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const converter = require('openapi-to-postmanv2');
const { offlineOpenApiDocument } = require('../dist/openapi/offline-document.js');

const OUT = join(__dirname, '..', 'dist', 'postman');
const NAME = 'training-sandbox';
/** The address `npm start` serves; learners change it in the environment. */
const LOCAL_BASE_URL = 'http://127.0.0.1:8080';

/**
 * The environment's variables: the base URL and one slot per credential the
 * collection's requests use. Values stay empty: a learner pastes their own
 * from the portal (secrets are shown once, and never belong in a download).
 */
const VARIABLES = [
  ['baseUrl', LOCAL_BASE_URL, 'default', 'The sandbox, e.g. https://sandbox.example.org'],
  ['apiKey', '', 'secret', "Your app's API key (X-API-Key or ?api_key=)"],
  ['bearerToken', '', 'secret', "Your app's bearer token (bt_…), or an OAuth 2.0 access token"],
  ['portalSessionToken', '', 'secret', 'The token POST /api/auth/login answers'],
  ['basicAuthUsername', '', 'default', 'Your App ID'],
  ['basicAuthPassword', '', 'secret', 'Your App Secret'],
  ['digestAuthUsername', '', 'default', 'Your App ID'],
  ['digestAuthPassword', '', 'secret', 'Your API key'],
  ['clientId', '', 'default', 'Your App ID (OAuth 2.0 client_id)'],
  ['clientSecret', '', 'secret', 'Your App Secret (OAuth 2.0 client_secret)'],
];

function convert(document) {
  return new Promise((resolve, reject) => {
    converter.convertV2(
      { type: 'json', data: document },
      { folderStrategy: 'Tags', requestParametersResolution: 'Example', exampleParametersResolution: 'Example', includeAuthInfoInExample: false },
      (error, result) => {
        if (error) reject(error);
        else if (!result.result) reject(new Error(`openapi-to-postmanv2: ${result.reason}`));
        else resolve(result.output[0].data);
      },
    );
  });
}

/**
 * What the converter cannot know: the portal's session is a bearer token of
 * its own (not the app's); HMAC and OAuth 1.0a are signatures, not keys; and
 * the OAuth 2.0 helper takes the app's client id and secret.
 */
function adjust(collection, document) {
  const sessionOnly = new Set();
  const signed = new Set();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const security = operation.security ?? [];
      if (security.length === 1 && 'portal_session' in security[0]) sessionOnly.add(`${method.toUpperCase()} ${path}`);
      if (security.length === 1 && ('hmac' in security[0] || 'oauth1' in security[0])) signed.add(`${method.toUpperCase()} ${path}`);
    }
  }
  const visit = (items) => {
    for (const item of items) {
      if (item.item) {
        visit(item.item);
        continue;
      }
      const request = item.request;
      const path = `/${(request.url.path ?? []).map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`;
      if (signed.has(`${request.method} ${path}`)) {
        // Postman's helpers cannot make these signatures; an API key in their header would only mislead.
        request.auth = { type: 'noauth' };
        const note = 'Signed per request (HMAC or OAuth 1.0a): see docs/auth-playground.md for the string to sign, or use a pre-request script.';
        request.description = { content: `${request.description?.content ?? ''}\n\n${note}`.trim(), type: 'text/plain' };
      }
      if (sessionOnly.has(`${request.method} ${path}`) && request.auth?.type === 'bearer') {
        request.auth.bearer = [{ key: 'token', value: '{{portalSessionToken}}', type: 'string' }];
      }
      if (request.auth?.type === 'oauth2') {
        request.auth.oauth2 = [
          { key: 'accessTokenUrl', value: '{{baseUrl}}/oauth/token', type: 'string' },
          { key: 'grant_type', value: 'client_credentials', type: 'string' },
          { key: 'clientId', value: '{{clientId}}', type: 'string' },
          { key: 'clientSecret', value: '{{clientSecret}}', type: 'string' },
          { key: 'client_authentication', value: 'header', type: 'string' },
        ];
      }
    }
  };
  visit(collection.item);
  collection.variable = [{ key: 'baseUrl', value: LOCAL_BASE_URL, type: 'string' }];
  return collection;
}

async function main() {
  const document = offlineOpenApiDocument('{{baseUrl}}');
  const collection = adjust(await convert(document), document);
  const environment = {
    name: 'Training Sandbox (local)',
    values: VARIABLES.map(([key, value, type, description]) => ({ key, value, type, enabled: true, description })),
    _postman_variable_scope: 'environment',
  };
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, `${NAME}.postman_collection.json`), `${JSON.stringify(collection, null, 2)}\n`);
  writeFileSync(join(OUT, `${NAME}.postman_environment.json`), `${JSON.stringify(environment, null, 2)}\n`);
  const count = JSON.stringify(collection).match(/"request":/g)?.length ?? 0;
  console.log(`postman: ${count} requests in ${OUT}`);
}

main().catch((error) => {
  console.error(`postman: ${error.message}`);
  process.exit(1);
});
