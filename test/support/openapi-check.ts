import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { parse as parseYaml } from 'yaml';
import { rawRequest } from './http';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is read by pointer, not by types
type Json = Record<string, any>;

/** An answer to check, however it was captured: the status, the headers (any case) and the body as text. */
export interface AnswerToCheck {
  status: number;
  headers: Readonly<Record<string, string | string[] | number | undefined>>;
  body: string;
}

/** The operation of the document that serves a request. */
export interface MatchedOperation {
  /** The path as the document writes it, e.g. /api/apps/{id}. */
  path: string;
  method: string;
  operationId: string;
  operation: Json;
}

/** Where the document says what an answer may be: the response key used (exact, class or default) and its object. */
interface MatchedResponse {
  key: string;
  response: Json;
}

// An id of our own, so the document's internal refs (#/components/...) resolve against it.
const DOCUMENT_ID = 'https://openapi.invalid/served-document.json';

/** A JSON pointer segment (RFC 6901), as in #/paths/~1api~1apps/get. */
const pointer = (...segments: string[]) => segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks recorded answers against an OpenAPI 3.1 document: the status is
 * documented for the operation (its exact key, its class such as 4XX, or
 * default), the content type is one documented for that status, a JSON (or
 * YAML, or text) body validates against its schema, and the headers the
 * document marks required are there. Schemas are JSON Schema 2020-12 (ajv's
 * 2020 build), read straight out of the document by JSON pointer, so its
 * #/components/schemas refs resolve as written. Formats are not checked
 * (OpenAPI's binary, for one, is not a JSON Schema format).
 */
export class OpenApiChecker {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { path: string; pattern: RegExp; params: number }[];

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
    this.ajv.addSchema({ ...structuredClone(document), $id: DOCUMENT_ID });
    // A literal path wins over a template that also matches it (/api/apps/new before /api/apps/{id}).
    this.templates = Object.keys(document.paths ?? {})
      .map((path) => ({
        path,
        params: (path.match(/\{[^}]+\}/g) ?? []).length,
        pattern: new RegExp(
          `^${path
            .split(/\{[^}]+\}/)
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]+')}/?$`,
        ),
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The served document, fetched from a running system. */
  static async fetch(baseUrl: string): Promise<OpenApiChecker> {
    const res = await rawRequest(`${baseUrl}/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    return new OpenApiChecker(res.json());
  }

  /** The operation serving `method` at `url` (a path or a full URL; the query is ignored). */
  operation(method: string, url: string): MatchedOperation | undefined {
    const path = new URL(url, 'http://path.only').pathname;
    const lower = method.toLowerCase();
    for (const template of this.templates) {
      if (!template.pattern.test(path)) continue;
      const operation = this.document.paths[template.path]?.[lower];
      if (operation) return { path: template.path, method: lower, operationId: operation.operationId ?? `${method} ${template.path}`, operation };
    }
    return undefined;
  }

  /** What is wrong with this answer, by the document: empty when it conforms. */
  problems(method: string, url: string, answer: AnswerToCheck): string[] {
    const matched = this.operation(method, url);
    if (!matched) return [`no operation in the document serves ${method.toUpperCase()} ${new URL(url, 'http://path.only').pathname}`];
    const found = responseFor(matched.operation, answer.status);
    if (!found) {
      return [`status ${answer.status} is not documented (documented: ${Object.keys(matched.operation.responses ?? {}).join(', ')})`];
    }
    const where = ['paths', matched.path, matched.method, 'responses', found.key];
    return [...this.headerProblems(found, where, answer), ...this.bodyProblems(found, where, method, answer)];
  }

  /** Throws when the answer does not conform, naming the operation, the status and where it differs. */
  expectConforms(method: string, url: string, answer: AnswerToCheck): void {
    const problems = this.problems(method, url, answer);
    if (!problems.length) return;
    const matched = this.operation(method, url);
    const name = `${method.toUpperCase()} ${url}${matched ? ` (operation ${matched.operationId}, ${matched.path})` : ''}`;
    const type = header(answer, 'content-type');
    throw new Error(
      `${name} answered ${answer.status}${type ? ` ${type}` : ''}, which the OpenAPI document does not allow:\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        `\n  body: ${answer.body.length > 500 ? `${answer.body.slice(0, 500)}…` : answer.body || '(none)'}`,
    );
  }

  private headerProblems(found: MatchedResponse, where: string[], answer: AnswerToCheck): string[] {
    const problems: string[] = [];
    for (const [name, definition] of Object.entries((found.response.headers ?? {}) as Json)) {
      const value = header(answer, name);
      if (value === undefined) {
        if (definition.required) problems.push(`header ${name} is required by responses.${found.key} but absent`);
        continue;
      }
      if (definition.schema?.type === 'string' || definition.schema?.$ref) {
        const validate = this.validator([...where, 'headers', name, 'schema']);
        if (!validate(value)) problems.push(`header ${name} does not match its schema: ${describe(validate.errors)}`);
      }
    }
    return problems;
  }

  private bodyProblems(found: MatchedResponse, where: string[], method: string, answer: AnswerToCheck): string[] {
    const content = (found.response.content ?? {}) as Json;
    const documented = Object.keys(content);
    const type = header(answer, 'content-type');
    const essence = type?.split(';')[0]!.trim().toLowerCase();
    if (answer.body === '') {
      // A HEAD answer never has a body; otherwise a documented body must come, unless a text one may be empty ("").
      if (!documented.length || method.toUpperCase() === 'HEAD') return [];
      const emptyText = documented.some((d) => /^text\//i.test(d) && (!content[d].schema || this.validator([...where, 'content', d, 'schema'])('')));
      return emptyText ? [] : [`responses.${found.key} documents a body (${documented.join(', ')}), but none came`];
    }
    if (!documented.length) return [`responses.${found.key} documents no body, but one came (${type ?? 'no Content-Type'})`];
    if (!essence) return [`the body has no Content-Type (documented: ${documented.join(', ')})`];
    const key = documented.find((d) => d.toLowerCase() === essence) ?? documented.find((d) => mediaRangeMatches(d, essence));
    if (!key) return [`Content-Type ${essence} is not documented for responses.${found.key} (documented: ${documented.join(', ')})`];
    if (!content[key].schema) return [];
    let value: unknown;
    try {
      value = parsedBody(essence, answer.body);
    } catch (error) {
      return [`the ${essence} body does not parse: ${(error as Error).message}`];
    }
    if (value === undefined) return [];
    const validate = this.validator([...where, 'content', key, 'schema']);
    return validate(value) ? [] : [`the ${key} body does not match its schema: ${describe(validate.errors)}`];
  }

  private validator(segments: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer(...segments)}`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    return validate;
  }
}

/** The response object for a status: its exact key, else its class (4XX), else default. */
function responseFor(operation: Json, status: number): MatchedResponse | undefined {
  const responses = (operation.responses ?? {}) as Json;
  const klass = `${String(status)[0]}XX`;
  for (const key of [String(status), klass, klass.toLowerCase(), 'default']) if (responses[key]) return { key, response: responses[key] };
  return undefined;
}

function header(answer: AnswerToCheck, name: string): string | undefined {
  const lower = name.toLowerCase();
  const entry = Object.entries(answer.headers).find(([key]) => key.toLowerCase() === lower);
  if (!entry || entry[1] === undefined) return undefined;
  return Array.isArray(entry[1]) ? entry[1].join(', ') : String(entry[1]);
}

/** Whether a documented media range (text/*, *\/*) covers a content type. */
function mediaRangeMatches(range: string, essence: string): boolean {
  const [type, subtype] = range.toLowerCase().split(';')[0]!.trim().split('/');
  const [actualType] = essence.split('/');
  return (type === '*' && subtype === '*') || (type === actualType && subtype === '*');
}

/** The body as data for its schema: JSON and YAML parsed, text as a string, anything else not checked (undefined). */
function parsedBody(essence: string, body: string): unknown {
  if (essence === 'application/json' || essence.endsWith('+json')) return JSON.parse(body);
  if (essence === 'application/yaml' || essence.endsWith('+yaml')) return parseYaml(body);
  if (essence.startsWith('text/')) return body;
  return undefined;
}

/** Ajv's first error, in words: where in the value, what was wrong, and the keyword of the document that said so (a JSON pointer into it). */
function describe(errors: ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return 'invalid';
  const params = Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : '';
  return `${error.instancePath || '(the value)'} ${error.message}${params}, by ${error.schemaPath.replace(DOCUMENT_ID, '')}`;
}
