// `npm run build:examples` (part of `npm run build`, after tsc): the data
// endpoints' examples for the OpenAPI document, made by the data service's
// own functions (services/data/src/examples.ts) and written into the
// gateway's dist, where the document builder reads them (src/openapi/data-examples.ts).
// A build step rather than an import: the gateway never loads another
// service's code at run time, and the examples are the data service's
// answers, so they cannot drift from them.
'use strict';

const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { documentExamples } = require('../../data/dist/examples.js');

/** The address `npm start` serves, as in the Postman collection: the examples' links start with it. */
const LOCAL_BASE_URL = 'http://127.0.0.1:8080';
/** Where the gateway mounts the data API (routes/data/data-routes.ts, DATA_ROOT). */
const { DATA_ROOT } = require('../dist/routes/data/data-routes.js');

const OUT = join(__dirname, '..', 'dist', 'openapi', 'data-examples.json');
const examples = { baseUrl: LOCAL_BASE_URL, ...documentExamples(LOCAL_BASE_URL + DATA_ROOT) };
mkdirSync(join(OUT, '..'), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(examples, null, 2)}\n`);
console.log(`examples: ${Object.keys(examples).length - 1} data examples in ${OUT}`);
