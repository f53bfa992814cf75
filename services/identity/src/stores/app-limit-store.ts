import type { AuditActor } from './audit-store';

/** An app's own fair-share limit, set by an operator; the gateways poll them (ListAppLimits). */
export interface AppLimitRecord {
  /** The App ID (client_id): what the gateway knows a request by. */
  appId: string;
  exempt: boolean;
  /** Without exempt: the app's own rate and burst. */
  perSecond: number;
  burst: number;
  setAt: Date;
  setBy: AuditActor;
}

export interface AppLimitStore {
  /** Inserts or replaces the app's limit. */
  put(limit: AppLimitRecord): Promise<void>;
  delete(appId: string): Promise<boolean>;
  list(): Promise<AppLimitRecord[]>;
  deleteForAppIds(appIds: string[]): Promise<number>;
}
