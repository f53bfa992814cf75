import { stringify } from 'csv-stringify/sync';
import type { ClassViewJson } from './operations';

/** The grid's leading columns, before one column per exercise id. */
export const CLASS_GRID_COLUMNS = ['email', 'joined_at', 'done'] as const;

/** What a CSV cell says of a learner on an exercise: stuck is an attempt that has gone on too long. */
export type GridCell = 'not_started' | 'attempted' | 'stuck' | 'done';

export const gridCell = (cell: { status: string; stuck: boolean } | undefined): GridCell =>
  cell?.status === 'done' ? 'done' : cell?.status === 'attempted' ? (cell.stuck ? 'stuck' : 'attempted') : 'not_started';

/**
 * A class's grid as CSV (RFC 4180, CRLF, a header row): one row per learner,
 * then one column per exercise id in the catalogue's order. Emails are the
 * learners' own words: escape_formulas writes a cell a spreadsheet would run
 * as a formula with a leading ', as the usage export does (usage-csv.ts).
 */
export function classGridCsv(view: ClassViewJson): string {
  const ids = view.exercises.map((exercise) => exercise.id);
  return stringify(
    view.learners.map((learner) => [learner.email, learner.joinedAt, String(learner.done), ...ids.map((id) => gridCell(learner.cells[id]))]),
    { header: true, columns: [...CLASS_GRID_COLUMNS, ...ids], escape_formulas: true, record_delimiter: 'windows' },
  );
}

/** The file name of a class's grid: its name, reduced to safe characters. */
export const classGridFileName = (name: string) =>
  `class-${
    name
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'grid'
  }.csv`;
