// The gateway's layers (docs/decisions.md, "The gateway's layers"), as
// zones of import-x/no-restricted-paths: each part of services/gateway/src
// may import only from the layers below its own, never from its own layer's
// other parts or from above. The root eslint.config.mjs adds these zones to
// its rule; import-x/no-cycle there keeps files from importing in a circle.

const SRC = './services/gateway/src';

/**
 * Bottom to top. A part is a folder, or a file at the top of src/; the parts
 * of one layer import none of each other.
 */
const LAYERS = [
  // What every layer may use: the hot path's helpers, the readiness verdicts.
  ['maybe-async.ts', 'readiness.ts'],
  // The request pipeline: server, router, dispatch, context, bodies, contracts, errors, CORS, route rows. No feature.
  ['http'],
  // Parts that need only the pipeline's types, each with its own settings.
  ['fair-share', 'guard', 'sso'],
  // The environment, read into each part's settings.
  ['config.ts'],
  // The four service clients.
  ['clients.ts'],
  // Parts that reach the services: authentication, the caches and their change feed.
  ['auth', 'caches'],
  // What the gateway records: logs, usage, metrics (of the caches and the guard too).
  ['observe'],
  // What route modules are given.
  ['deps.ts'],
  // The features: route rows, each next to what only it uses.
  ['routes'],
  // The API's document, built from the finished table.
  ['openapi'],
  // The operators' command line.
  ['admin'],
  // Everything put together, and the process that runs it.
  ['composition.ts'],
  ['main.ts'],
];

/**
 * Within routes/: one folder a feature, one way only. A feature imports only
 * features of the layers below it; routes/index.ts (the table) sits above
 * them all.
 */
const FEATURES = [
  ['data', 'oauth2', 'oauth1', 'portal', 'http-practice'],
  // GET / and the map link to the data; the auth playground names the OAuth paths; the operators' API shows apps as the portal does.
  ['system', 'auth-playground', 'operators'],
];

const at = (part) => `${SRC}/${part}`;

const layerZones = LAYERS.flatMap((layer, index) =>
  layer.flatMap((part) => {
    const above = LAYERS.slice(index)
      .flat()
      .filter((other) => other !== part);
    // The top imports from everything.
    if (!above.length) return [];
    return {
      target: at(part),
      from: above.map(at),
      message: `The gateway's layers (docs/decisions.md): ${part} imports only from the layers below it, not from ${above.join(', ')}.`,
    };
  }),
);

const featureZones = FEATURES.flatMap((layer, index) =>
  layer.map((feature) => {
    const above = FEATURES.slice(index)
      .flat()
      .filter((other) => other !== feature);
    return {
      target: at(`routes/${feature}`),
      from: [...above.map((other) => at(`routes/${other}`)), at('routes/index.ts')],
      message: `The gateway's features (docs/decisions.md): routes/${feature} imports only the features below it, not ${above.join(', ')} or the table (routes/index.ts).`,
    };
  }),
);

export const gatewayLayerZones = [...layerZones, ...featureZones];
