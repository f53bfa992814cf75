import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One example: the request below the data root, and the data service's answer to it. */
export interface DataExample {
  readonly request: { readonly path: string; readonly query: string };
  readonly body: unknown;
}

/** What `npm run build` writes (scripts/build-data-examples.cjs): the data service's own answers, under `baseUrl`. */
export interface DataExamples {
  readonly baseUrl: string;
  readonly catalog: DataExample;
  readonly pack: DataExample;
  readonly page: DataExample;
}

/** The same path from src/openapi (ts-jest) and dist/openapi (the built gateway). */
const FILE = join(__dirname, '..', '..', 'dist', 'openapi', 'data-examples.json');

/** The data answers' component ids in the document, and the example each shows. */
export const DATA_EXAMPLE_COMPONENTS = { DataCatalog: 'catalog', DataPack: 'pack', Page: 'page' } as const satisfies Record<
  string,
  keyof Omit<DataExamples, 'baseUrl'>
>;

let loaded: DataExamples | null | undefined;

/**
 * The examples the build wrote, read once; undefined before a build (the
 * document then shows none: better than examples that are not the data).
 */
export function dataExamples(): DataExamples | undefined {
  if (loaded === undefined) {
    try {
      loaded = JSON.parse(readFileSync(FILE, 'utf8')) as DataExamples;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
