import express, { type Express } from 'express';
import type { Logger } from '@sandbox/runtime';
import { corsPreflight } from './cors';
import { errorHandler, notFoundHandler, sendError } from './error-response';
import { requestContext, type OnRequestFinished } from './request-context';
import { allowedMethods, type RouteDef } from './route-table';

export interface HttpAppOptions {
  routes: RouteDef[];
  logger: Logger;
  onFinished: OnRequestFinished;
  bodyLimit: string;
  trustProxy: boolean;
}

/** Builds the express app from the route table; every path ends in the one error shape. */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // responses that need an ETag compute a strong one themselves
  app.set('trust proxy', options.trustProxy);
  app.set('query parser', false); // handlers read URLSearchParams through query.ts
  app.use(requestContext(options.onFinished));
  app.use(corsPreflight);
  app.use(express.json({ limit: options.bodyLimit }));
  app.use(express.urlencoded({ limit: options.bodyLimit, extended: false }));

  for (const def of options.routes.filter((r) => !r.hot)) {
    for (const method of def.methods) app[method.toLowerCase() as 'get'](def.path, ...def.handlers);
  }

  const allowed = allowedMethods(options.routes);
  app.use((req, res, next) => {
    const methods = allowed(req.path);
    if (!methods) return next();
    // HEAD is answered wherever GET is (express does so itself).
    res.setHeader('Allow', [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '));
    sendError(res, 405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; use ${methods.join(' or ')}.`);
  });
  app.use(notFoundHandler);
  app.use(errorHandler(options.logger));
  return app;
}
