/** Identity's name for the rules it shares with the portal and the data service (owned by contracts' account-rules.ts). */
import { accountRules } from '@sandbox/contracts';

export const { LIMITS, PACK_SCOPES } = accountRules;
export type PackScope = accountRules.PackScope;
