import busboy from 'busboy';
import { AppError, GrpcStatus } from '@sandbox/runtime';
import type { FormBody } from '../http/body';
import type { RouteContext } from '../http/context';
import { refusalMessage, SHORTEST_MATCH, type CredentialGuard, type CredentialMatch } from './credential-guard';

/**
 * The spec's first rule, at the edge: a request that carries something shaped
 * like a live secret of another service is refused before anything of it is
 * logged, stored or forwarded. The refusal names the kind of secret and
 * advises rotation; it never repeats the value. Every body the gateway
 * forwards is scanned, JSON, form and raw alike; only the file contents of
 * uploads are not (docs/security.md).
 */
export class RequestScreen {
  constructor(
    private readonly guard: CredentialGuard,
    /** Told the pattern id of each refusal (the metrics count them); never the value. */
    private readonly onRefused: (patternId: string) => void = () => undefined,
  ) {}

  /** The path, the query and every header, before the request is routed. */
  head(ctx: RouteContext): void {
    const host = () => new URL(ctx.baseUrl).host;
    const inPath = this.path(ctx, host);
    if (inPath) {
      // The path goes to the access log: this one must not.
      ctx.withheldPath = true;
      throw this.refused(inPath);
    }
    const found = this.query(ctx, host) ?? this.headers(ctx, host);
    if (found) throw this.refused(found);
  }

  /** A body the route read (JSON or form), before its handler sees it. */
  body(ctx: RouteContext): void {
    const host = () => new URL(ctx.baseUrl).host;
    const body = ctx.body as FormBody | Record<string, unknown> | undefined;
    const found = body && 'pairs' in body && Array.isArray(body.pairs) ? this.guard.scanFields(body.pairs, host) : this.guard.scanJson(body, host);
    if (found) throw this.refused(found);
  }

  /**
   * A body the route forwards as it was sent (raw: /playground/echo,
   * /response, /redirect), before its handler sees it: read whole within the
   * body limit, however it was framed or split into chunks, and scanned as
   * its Content-Type says it will be read (CredentialGuard.scanBody).
   */
  rawBody(ctx: RouteContext): void {
    const bytes = ctx.body as Uint8Array | undefined;
    if (!bytes || bytes.byteLength < SHORTEST_MATCH) return;
    const found = this.guard.scanBody(bytes, ctx.headers['content-type'], () => new URL(ctx.baseUrl).host);
    if (found) throw this.refused(found);
  }

  /**
   * A multipart body's plain fields, as the chunks arrive (busboy, files
   * discarded unread: their contents are not scanned). A match throws from
   * the write that completed the field; a malformed body is left for the
   * playground to explain.
   */
  multipartFields(ctx: RouteContext): { write(chunk: Buffer): void; end(): void } {
    const host = () => new URL(ctx.baseUrl).host;
    let match: CredentialMatch | undefined;
    let parser: ReturnType<typeof busboy>;
    try {
      parser = busboy({ headers: ctx.headers as Record<string, string> });
    } catch {
      return { write: () => undefined, end: () => undefined };
    }
    // A part without a name (Content-Disposition: form-data alone) still has a value to screen.
    parser.on('field', (name = '', value) => (match ??= this.guard.find(name, host) ?? this.guard.findInField(name, value, host)));
    parser.on('file', (_name, file) => file.resume());
    parser.on('error', () => undefined);
    const check = () => {
      if (match) throw this.refused(match);
    };
    return {
      write(chunk) {
        check();
        parser.write(chunk);
        check();
      },
      end() {
        parser.end();
        check();
      },
    };
  }

  private refused(match: CredentialMatch): AppError {
    this.onRefused(match.id);
    return new AppError(GrpcStatus.INVALID_ARGUMENT, 'production_credential_refused', refusalMessage(match));
  }

  /** Segment by segment: "/" is a base64 character, so a key between two slashes would not stand alone in the whole path. */
  private path(ctx: RouteContext, host: () => string): CredentialMatch | undefined {
    // Splitting allocates: only a path whose text might hold a secret is split (an encoded one is decoded first).
    if (!this.guard.mayHold(ctx.path) && !ctx.path.includes('%')) return undefined;
    for (const segment of ctx.path.split('/')) {
      const found = segment.length >= SHORTEST_MATCH ? this.guard.find(segment.includes('%') ? safeDecode(segment) : segment, host) : undefined;
      if (found) return found;
    }
    return undefined;
  }

  /** The query as sent, and decoded when it holds encoded characters (a secret's "/" travels as %2F). */
  private query(ctx: RouteContext, host: () => string): CredentialMatch | undefined {
    if (!ctx.rawQuery) return undefined;
    const found = this.guard.find(ctx.rawQuery, host);
    if (found || !/[%+]/.test(ctx.rawQuery)) return found;
    return this.guard.scanFields(ctx.query, host);
  }

  private headers(ctx: RouteContext, host: () => string): CredentialMatch | undefined {
    const raw = ctx.request.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const found = this.guard.findInField(raw[i], raw[i + 1], host);
      if (found) return found;
    }
    return undefined;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
