import { createHash } from 'node:crypto';
import busboy from 'busboy';
import { HttpRefusal, invalidArgument, quoteInput } from '@sandbox/runtime';
import { jsonAnswer, type Answer } from './http';
import { parseMediaType } from './media-type';

const MiB = 1024 * 1024;

export interface UploadLimits {
  /** Largest file part, in bytes. */
  fileBytes: number;
  /** Largest request body (the multipart framing included), in bytes. */
  requestBytes: number;
  /** Most parts (files and plain fields together). */
  parts: number;
  /** Largest plain field value, in bytes: a field's value is held in memory and shown back, so it stays small. */
  fieldBytes: number;
}

export const UPLOAD_LIMITS: UploadLimits = { fileBytes: 10 * MiB, requestBytes: 25 * MiB, parts: 20, fieldBytes: 64 * 1024 };

/** A byte count in words: "10 MiB", "64 KiB", "1234 bytes". */
export function bytesInWords(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export interface FilePart {
  type: 'file';
  /** The form field's name. */
  name: string;
  /** As the client sent it (a path is kept); null when it sent none or an empty one (an application/octet-stream part). */
  filename: string | null;
  /** The part's Content-Type; text/plain when it names none (RFC 7578 4.4). */
  contentType: string;
  size: number;
  sha256: string;
}

export interface FieldPart {
  type: 'field';
  name: string;
  value: string;
}

export interface UploadReport {
  parts: Array<FilePart | FieldPart>;
  bodyBytes: number;
  limits: UploadLimits;
}

/**
 * Reads a multipart/form-data body as it arrives (busboy), hashing each file
 * part and counting its size without keeping it; plain fields are kept (up to
 * the field limit). The first limit crossed ends the read with a 413
 * HttpRefusal naming it; a malformed body ends it with a 400 saying why.
 */
export class MultipartReader {
  /** Settles once: the report after the closing boundary, or the refusal that stopped the read. */
  readonly result: Promise<UploadReport>;
  private readonly parser: busboy.Busboy;
  private readonly parts: Array<FilePart | FieldPart | undefined> = [];
  private bodyBytes = 0;
  private partCount = 0;
  private openFiles = 0;
  private parserFinished = false;
  private settled = false;
  private resolve!: (report: UploadReport) => void;
  private reject!: (error: unknown) => void;

  /** Refuses (400) a request that is not multipart/form-data with a boundary, before reading any body. */
  static open(contentType: string | undefined, limits: UploadLimits = UPLOAD_LIMITS): MultipartReader {
    const type = parseMediaType(contentType);
    if (!type || type.essence !== 'multipart/form-data') {
      throw invalidArgument(
        'not_multipart',
        contentType === undefined
          ? 'The request has no Content-Type; an upload is multipart/form-data (curl -F file=@photo.jpg, or a browser FormData).'
          : `The Content-Type is ${quoteInput(contentType)}; an upload is multipart/form-data (curl -F file=@photo.jpg, or a browser FormData).`,
      );
    }
    const boundary = type.params.boundary;
    // RFC 2046 5.1.1: 1 to 70 characters; without one, no part can be found.
    if (boundary === undefined || boundary.length < 1 || boundary.length > 70) {
      throw invalidArgument(
        'malformed_multipart',
        `The multipart/form-data Content-Type has ${boundary === undefined ? 'no' : 'an invalid'} boundary parameter (1 to 70 characters), so the parts cannot be found.`,
      );
    }
    return new MultipartReader(contentType!, limits);
  }

  private constructor(
    contentType: string,
    private readonly limits: UploadLimits,
  ) {
    this.result = new Promise<UploadReport>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.result.catch(() => undefined); // a caller that stopped listening leaves no unhandled rejection
    this.parser = busboy({
      headers: { 'content-type': contentType },
      // Exactly what the client sent: paths in file names kept, and names in UTF-8 as browsers and curl write them.
      preservePath: true,
      defParamCharset: 'utf8',
      // Room for a few 64 KiB chunks, so the call is paused only when the parser really falls behind.
      highWaterMark: 256 * 1024,
      // busboy reports a limit when a part *reaches* it; one byte more means "over the limit", so exactly the limit is allowed.
      limits: { fileSize: limits.fileBytes + 1, fieldSize: limits.fieldBytes + 1 },
    });
    this.parser.on('file', (name, stream, info) => {
      stream.on('error', (error: unknown) => this.fail(malformed(error)));
      if (!this.countPart()) {
        stream.resume();
        return;
      }
      // The part's place is taken now, so a field that ends before this file does still comes after it.
      const slot = this.parts.push(undefined) - 1;
      const hash = createHash('sha256');
      let size = 0;
      this.openFiles++;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
      });
      stream.on('limit', () =>
        this.fail(
          new HttpRefusal(
            413,
            'file_too_large',
            `The file part ${quoteInput(name)}${info.filename ? ` (${quoteInput(info.filename)})` : ''} is larger than the limit of ${bytesInWords(this.limits.fileBytes)} per file.`,
          ),
        ),
      );
      stream.on('end', () => {
        this.openFiles--;
        if (stream.truncated) return; // the limit already answered
        this.parts[slot] = { type: 'file', name, filename: info.filename ?? null, contentType: info.mimeType, size, sha256: hash.digest('hex') };
        this.maybeDone();
      });
    });
    this.parser.on('field', (name, value, info) => {
      if (!this.countPart()) return;
      if (info.valueTruncated) {
        this.fail(
          new HttpRefusal(
            413,
            'field_too_large',
            `The field ${quoteInput(name)} is longer than the limit of ${bytesInWords(this.limits.fieldBytes)} per field value; send large content as a file part.`,
          ),
        );
        return;
      }
      this.parts.push({ type: 'field', name, value });
    });
    this.parser.on('error', (error: unknown) => this.fail(malformed(error)));
    this.parser.on('finish', () => {
      this.parserFinished = true;
      this.maybeDone();
    });
  }

  /** Feeds the next bytes; false: wait for drained() before the next. */
  write(chunk: Buffer): boolean {
    if (this.settled) return true;
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > this.limits.requestBytes) {
      this.fail(new HttpRefusal(413, 'body_too_large', `The upload is larger than the limit of ${bytesInWords(this.limits.requestBytes)} per request.`));
      return true;
    }
    return this.parser.write(chunk);
  }

  /** Resolves when the parser can take more, or at once when the read is over. */
  drained(): Promise<void> {
    if (this.settled || !this.parser.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.parser.off('drain', done);
        this.parser.off('close', done);
        resolve();
      };
      this.parser.on('drain', done);
      this.parser.on('close', done);
    });
  }

  /** The body is complete. */
  end(): void {
    if (!this.settled) this.parser.end();
  }

  /** Stops reading (the call was cancelled or answered): nothing more is parsed or kept. */
  abort(): void {
    this.settled = true;
    this.stopParser();
  }

  private countPart(): boolean {
    if (this.settled) return false;
    this.partCount++;
    if (this.partCount > this.limits.parts) {
      this.fail(
        new HttpRefusal(413, 'too_many_parts', `The form has more than ${this.limits.parts} parts (files and fields together), the limit per request.`),
      );
      return false;
    }
    return true;
  }

  private maybeDone(): void {
    if (this.settled || !this.parserFinished || this.openFiles > 0) return;
    this.settled = true;
    this.resolve({ parts: this.parts.filter((part) => part !== undefined), bodyBytes: this.bodyBytes, limits: this.limits });
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
    this.stopParser();
  }

  /**
   * Destroys the parser once the current write has returned: a refusal is
   * often decided inside one of busboy's own callbacks, which must not find
   * the parser torn down under it. Nothing more is fed in meanwhile (settled).
   */
  private stopParser(): void {
    process.nextTick(() => this.parser.destroy());
  }
}

/** busboy's complaint about a body, as a 400 that says what was wrong. */
function malformed(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const reason =
    message === 'Unexpected end of form' ? 'the body ended before the closing boundary (--boundary--)' : message.replace(/^./, (c) => c.toLowerCase());
  return invalidArgument('malformed_multipart', `The multipart body is malformed: ${reason}.`);
}

/** The 200 of an upload: every part in the order it arrived. */
export function uploadAnswer(report: UploadReport): Answer {
  const files = report.parts.filter((part) => part.type === 'file').length;
  const notes: string[] = [];
  if (report.parts.length === 0) notes.push('The form had no parts (a part needs Content-Disposition: form-data; name="...").');
  if (report.parts.some((part) => part.type === 'file' && part.filename === null && part.size === 0)) {
    notes.push('A file part with no file name and no content is what a browser sends for a file input left empty.');
  }
  return jsonAnswer({
    parts: report.parts,
    files,
    fields: report.parts.length - files,
    bodyBytes: report.bodyBytes,
    limits: report.limits,
    notes,
  });
}
