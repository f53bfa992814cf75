import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createLogger, createMetricsRegistry, startMetricsServer, type MetricsServer, type Registry } from '@sandbox/runtime';
import { Authenticator } from './auth/authenticate';
import { isOperator } from './auth/operator';
import { createAuthSchemes } from './auth/schemes';
import { forgetOnChanges } from './caches/changes';
import { PageCache } from './caches/page-cache';
import { closeBackendClients, createBackendClients, type BackendClients } from './clients';
import type { GatewayConfig } from './config';
import type { GatewayDeps } from './deps';
import { buildFairShare } from './fair-share/build-fair-share';
import type { LimitOverrides } from './fair-share/limit-overrides';
import { slowRoutesWords } from './fair-share/refusal-words';
import type { Clock } from './fair-share/token-bucket';
import { CredentialGuard } from './guard/credential-guard';
import { RequestScreen } from './guard/screen';
import { answerClientError, answerConnect } from './http/client-error';
import { RouteContext, type EdgeOptions } from './http/context';
import { createDispatch, type Dispatch } from './http/dispatch';
import { inboundRequest, type RequestParts } from './http/inbound';
import type { Reply } from './http/reply';
import { Router } from './http/router';
import { createRequestListener } from './http/server';
import { AccessLog } from './observe/access-log';
import { answerRecorder } from './observe/answer-recorder';
import { recordFinishedRequests } from './observe/finished-requests';
import { GatewayMetrics } from './observe/metrics';
import { RequestLogRecorder } from './observe/request-log-recorder';
import { servedDocuments } from './openapi/served-documents';
import { ReadinessWatch, type ReadinessView } from './readiness';
import { buildRoutes } from './routes';
import { createBatchRunner } from './routes/http-practice/batch-runner';
import { staticPages } from './routes/system/static-pages';
import { buildSso } from './sso/build-sso';
import type { Clock as SsoClock } from './sso/sealed-cookie';

export interface RunningGateway {
  port: number;
  url: string;
  /** The metrics listener's port, when METRICS_PORT asked for one. */
  metricsPort?: number;
  /** Serves a request made of parts through the same pipeline as the server, without a socket (after fastify's inject). */
  inject(parts: RequestParts): Promise<Reply>;
  stop(): Promise<void>;
}

/** What a test (or, later, the admin API) may give the gateway besides its configuration. */
export interface StartOptions {
  /** The fair-share limiter's clock (default Date.now): a test moves it instead of sleeping. */
  clock?: Clock;
  /** Per-app exemptions and limits (default: those operators set through the admin API, over RATE_LIMIT_EXEMPT_APPS and RATE_LIMIT_APP_OVERRIDES). */
  overrides?: LimitOverrides;
  /** The clock the single sign-on cookies are sealed and opened by (default Date.now): a test moves it to expire a sign-in. */
  ssoClock?: SsoClock;
}

/** The gateway without a socket: the route table, the pipeline and what it keeps, over the clients it is given. */
export interface ComposedGateway {
  /** Serves a request made of parts through the same pipeline as the server (after fastify's inject). */
  inject(parts: RequestParts): Promise<Reply>;
  stop(): Promise<void>;
}

/** What composeGateway may be given besides its configuration. */
export interface ComposeOptions extends StartOptions {
  /** The four service clients (default: real gRPC clients to config.peers). A test gives fakes with the same interface. */
  clients?: BackendClients;
  /** The readiness verdicts /health/ready reports (default: none, and /health/ready says so). */
  readiness?: ReadinessView;
  /** True once the server stops: /health/serving and readiness answer 503. */
  isDraining?: () => boolean;
}

interface Composition extends ComposedGateway {
  dispatch: Dispatch;
  router: Router;
  edge: EdgeOptions;
  metrics: GatewayMetrics;
  registry: Registry;
  onFinished: ReturnType<typeof recordFinishedRequests>;
}

/**
 * Builds everything the server serves, and nothing that listens: start()
 * puts a socket in front of it, and a test calls inject() with its clients
 * faked at their interface (test/unit/in-process/), in milliseconds.
 */
export async function composeGateway(config: GatewayConfig, options: ComposeOptions = {}): Promise<ComposedGateway> {
  const { inject, stop } = await compose(config, options);
  return { inject, stop };
}

async function compose(config: GatewayConfig, options: ComposeOptions, logger = createLogger('gateway', config.logLevel)): Promise<Composition> {
  const registry = createMetricsRegistry();
  const metrics = new GatewayMetrics(registry);
  const ownClients = !options.clients;
  const clients = options.clients ?? createBackendClients(config, metrics.grpcClient);
  const authenticator = new Authenticator(createAuthSchemes(clients, config.credentialCacheMs));
  const stopForgetting = await forgetOnChanges(clients, config.fairShare.redisUrl, logger, () => authenticator.forget());
  const screen = new RequestScreen(new CredentialGuard({ allowedIssuerHosts: config.trustedIssuers }), (id) => metrics.credentialRefused(id));
  const requestLogs = new RequestLogRecorder((entries, usage) => clients.identity.recordRequests({ entries, usage }), logger, config.requestLogCapPerApp);
  const accessLog = new AccessLog(logger, config.accessLogLinesPerSecond);
  const onFinished = recordFinishedRequests(accessLog, requestLogs);
  const edge: EdgeOptions = {
    publicBaseUrl: config.publicBaseUrl,
    trustProxy: config.trustProxy,
    grpcDeadlineMs: config.grpcDeadlineMs,
    bodyLimit: config.bodyLimitBytes,
  };
  const isDraining = options.isDraining ?? (() => false);
  // The data pages the gateway keeps: made here, so that building the route table keeps nothing.
  const pageCache = new PageCache(config.pageCache.maxBytes, config.pageCache.ttlMs);
  metrics.watchPageCache(pageCache);
  const operatorOf = (ctx: RouteContext) => isOperator(authenticator, ctx, logger);
  // The batch route runs items through the dispatcher the routes themselves feed: bound once it exists.
  let runBatch: GatewayDeps['runBatch'] = () => Promise.reject(new Error('the dispatcher is not built yet'));
  // The OpenAPI document is built from the finished table: bound once it exists.
  let apiDocument: GatewayDeps['apiDocument'] = () => {
    throw new Error('the route table is not built yet');
  };
  const deps: GatewayDeps = {
    config,
    logger,
    clients,
    pageCache,
    describeAuth: (accepted) => authenticator.describe(accepted),
    isDraining,
    readiness: options.readiness,
    runBatch: (ctx) => runBatch(ctx),
    screenFields: (ctx) => screen.multipartFields(ctx),
    apiDocument: (baseUrl, operator) => apiDocument(baseUrl, operator),
    isOperator: operatorOf,
    sso: buildSso(config.sso, clients.identity, logger, options.ssoClock),
  };
  const router = new Router(buildRoutes(deps));
  apiDocument = servedDocuments(
    () => router.routes,
    (name) => authenticator.describe([name])[0]!.how,
  );
  const limits = buildFairShare(config.fairShare, {
    logger,
    slowRoutes: slowRoutesWords(router.routes),
    clock: options.clock,
    overrides: options.overrides,
    listAppLimits: async () => (await clients.identity.listAppLimits({})).limits,
  });
  const dispatch = createDispatch(router, { authentication: authenticator, isOperator: operatorOf, screen, fairShare: limits.fairShare }, logger);
  // Batch items are logged as requests, but counted only as part of their batch's one HTTP request.
  runBatch = createBatchRunner(dispatch, edge, onFinished);
  return {
    dispatch,
    router,
    edge,
    metrics,
    registry,
    onFinished,
    inject: async (parts) => dispatch(new RouteContext(inboundRequest(parts), edge, () => undefined)),
    async stop() {
      await requestLogs.stop();
      accessLog.stop();
      if (ownClients) closeBackendClients(clients);
      await stopForgetting();
      limits.close();
    },
  };
}

export async function start(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const logger = createLogger('gateway', config.logLevel);
  const readiness = new ReadinessWatch({
    peers: config.peers,
    tls: config.grpcTls,
    timeoutMs: config.readinessTimeoutMs,
    redisUrl: config.fairShare.redisUrl,
    logger,
  });
  await readiness.start();
  let draining = false;
  const gateway = await compose(config, { ...options, readiness, isDraining: () => draining }, logger);
  const { router, dispatch, edge, onFinished, metrics, registry } = gateway;
  const pages = await staticPages(config.portalDevServerUrl, logger);
  const recordAnswer = config.responseRecordFile ? answerRecorder(config.responseRecordFile) : undefined;
  const { listener, answerExpectation } = createRequestListener({
    router,
    dispatch,
    logger,
    edge,
    onFinished,
    metrics,
    mounts: pages.mounts,
    recordAnswer,
    isDraining: () => draining,
  });

  const server = config.tls
    ? https.createServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, listener)
    : http.createServer(listener);
  server.on('clientError', answerClientError);
  if (pages.upgrade) server.on('upgrade', pages.upgrade);
  server.on('connect', answerConnect);
  server.on('checkExpectation', answerExpectation);
  // Longer than the idle timeout of common load balancers, so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const metricsServer: MetricsServer | undefined = config.metrics ? await startMetricsServer(registry, config.metrics, logger) : undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    await metricsServer?.stop();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const scheme = config.tls ? 'https' : 'http';
  const url = `${scheme}://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  logger.info({ url }, 'gateway listening');

  return {
    port,
    url,
    metricsPort: metricsServer?.port,
    inject: gateway.inject,
    async stop() {
      draining = true;
      // Still serving, /health/serving saying 503, until a load balancer polling it sends new connections elsewhere:
      // stopping to accept at once would refuse those it sends meanwhile, and closing idle keep-alive sockets
      // would race requests already on their way. (In Kubernetes the chart's preStop sleep does this, and the delay stays 0.)
      await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      // Stop accepting, let in-flight requests finish (idle keep-alive sockets close at once).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, config.shutdownGraceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      await gateway.stop();
      readiness.stop();
      await metricsServer?.stop();
      logger.info('stopped');
    },
  };
}
