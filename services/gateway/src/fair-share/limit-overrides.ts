/** An app's own limit, set by an operator: no limit at all, or a rate and burst other than the default. */
export type AppLimit = { readonly kind: 'exempt' } | { readonly kind: 'rate'; readonly perSecond: number; readonly burst: number };

/**
 * Where an operator's per-app exceptions come from: the configuration
 * (ConfiguredOverrides) and the admin API (PolledOverrides, which keeps a
 * copy of identity's), one over the other (LayeredOverrides). Asked on
 * every request an app makes, so it must answer from memory: an
 * implementation backed by a service keeps a copy and refreshes it in the
 * background.
 */
export interface LimitOverrides {
  /** The app's own limit, by App ID, when an operator set one. */
  of(appId: string): AppLimit | undefined;
}

/** RATE_LIMIT_EXEMPT_APPS and RATE_LIMIT_APP_OVERRIDES. */
export class ConfiguredOverrides implements LimitOverrides {
  private readonly limits = new Map<string, AppLimit>();

  constructor(config: { exemptApps: readonly string[]; appOverrides: ReadonlyMap<string, { perSecond: number; burst: number }> }) {
    for (const [appId, rate] of config.appOverrides) this.limits.set(appId, { kind: 'rate', ...rate });
    for (const appId of config.exemptApps) this.limits.set(appId, { kind: 'exempt' });
  }

  of(appId: string): AppLimit | undefined {
    return this.limits.get(appId);
  }
}

/** Several sources, the first that has a limit for the app winning: an operator's setting through the admin API over the configuration's. */
export class LayeredOverrides implements LimitOverrides {
  constructor(private readonly layers: readonly LimitOverrides[]) {}

  of(appId: string): AppLimit | undefined {
    for (const layer of this.layers) {
      const limit = layer.of(appId);
      if (limit) return limit;
    }
    return undefined;
  }
}
