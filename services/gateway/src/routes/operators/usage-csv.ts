import type { identity } from '@sandbox/contracts';
import { stringify } from 'csv-stringify/sync';

/** The export's columns, in order: the header row names them. */
export const USAGE_COLUMNS = ['day', 'user_id', 'email', 'app_id', 'app_name', 'auth_style', 'route_family', 'requests'] as const;

/**
 * Usage rows as CSV (RFC 4180: quoted where needed, CRLF line ends), with a
 * header row. App names (and emails) are the learners' own words, and a
 * spreadsheet runs a cell that starts with =, +, -, @, a tab or a carriage
 * return as a formula (`=HYPERLINK(...)` in an app's name would become a
 * link in the operator's sheet): escape_formulas writes such a cell with a
 * leading ' (OWASP's "CSV injection" advice), which the sheet shows as text.
 */
export function usageCsv(rows: readonly identity.UsageRow[]): string {
  return stringify(
    rows.map((row) => [row.day, row.userId, row.email, row.appId, row.appName, row.authStyle, row.routeFamily, String(row.requests)]),
    { header: true, columns: [...USAGE_COLUMNS], escape_formulas: true, record_delimiter: 'windows' },
  );
}
