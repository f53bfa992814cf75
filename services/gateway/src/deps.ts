import type { Logger } from '@sandbox/runtime';
import type { SchemeName } from './auth/scheme';
import type { PageCache } from './caches/page-cache';
import type { BackendClients } from './clients';
import type { GatewayConfig } from './config';
import type { RouteContext } from './http/context';
import type { Reply } from './http/reply';
import type { MaybePromise } from './maybe-async';
import type { ReadinessView } from './readiness';
import type { SsoFlow } from './sso/sso-flow';

/**
 * What route modules are given: the clients, config and shared gateway
 * services. A route module reads them when a request is served, never while
 * it builds its rows, so the table can be built where nothing is served
 * (openapi/offline-document.ts).
 */
export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  clients: BackendClients;
  /** The data pages the gateway keeps (caches/page-cache.ts): made, and watched by the metrics, in composition.ts. */
  pageCache: PageCache;
  /** How each auth scheme is presented, in words (for the route map). */
  describeAuth(accepted: readonly SchemeName[]): { scheme: SchemeName; how: string }[];
  /** True once SIGTERM arrived: readiness answers 503 while in-flight work drains. */
  isDraining(): boolean;
  /** Every part's verdict, kept current in the background (readiness.ts); absent where rows are built without a server. */
  readiness?: ReadinessView;
  /** Runs a batch's items through the gateway's own pipeline (composition.ts: it needs the dispatcher the routes feed). */
  runBatch(ctx: RouteContext): Promise<Reply>;
  /** A multipart parser that passes each plain field of an upload through the production-credential guard; it throws on a match. */
  screenFields(ctx: RouteContext): { write(chunk: Buffer): void; end(): void };
  /**
   * The OpenAPI document of the route table as served at `baseUrl`: the
   * one everybody gets, or with `operator` the one an operator's session
   * gets (openapi/served-documents.ts; composition.ts passes it, since the
   * document is built from the finished table).
   */
  apiDocument(baseUrl: string, operator: boolean): object;
  /**
   * Whether the request carries an operator's portal session (auth/operator.ts),
   * for what shows operator-only rows only to operators (the route map, the
   * OpenAPI document); never refuses. Absent where rows are built without a server: no.
   */
  isOperator?(ctx: RouteContext): MaybePromise<boolean>;
  /** Single sign-on (sso/), when SSO_CLIENT_ID turns it on; absent: its routes say it is off. */
  sso?: SsoFlow;
}
