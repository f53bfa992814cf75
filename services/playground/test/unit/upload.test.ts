import { createHash } from 'node:crypto';
import { AppError, GrpcStatus, HttpRefusal } from '@sandbox/runtime';
import { refusalOf } from '@sandbox/testing';
import { MultipartReader, uploadAnswer, UPLOAD_LIMITS, type UploadLimits } from '../../src/domain/upload';
import { read } from './support/requests';

const BOUNDARY = '----sandbox7MA4YWxkTrZu0gW';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: string | Buffer;
}

/** A multipart/form-data body as RFC 7578 writes it. */
function form(parts: Part[], boundary = BOUNDARY): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.type) head += `Content-Type: ${part.type}\r\n`;
    pieces.push(Buffer.from(`${head}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

/** Feeds the body in chunks of `size` bytes, honouring backpressure, and returns the outcome. */
async function parse(body: Buffer, { size = 64 * 1024, limits = UPLOAD_LIMITS, type = TYPE }: { size?: number; limits?: UploadLimits; type?: string } = {}) {
  const reader = MultipartReader.open(type, limits);
  for (let at = 0; at < body.length; at += size) {
    if (!reader.write(body.subarray(at, at + size))) await reader.drained();
  }
  reader.end();
  return reader.result;
}

async function refusedWith(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpRefusal) return { status: error.httpStatus, code: error.code, message: error.message };
    if (error instanceof AppError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('multipart upload parsing', () => {
  const file = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));

  // An empty filename="" is read as no filename (busboy), so such a part is a file only with a Content-Type, as browsers send it.
  it('when fields and files arrive, then each is reported in order with size and sha256, names as sent', async () => {
    const report = await parse(
      form([
        { name: 'title', data: 'Quarterly numbers' },
        { name: 'document', filename: 'reports/résumé.bin', type: 'application/pdf', data: file },
        { name: 'note', data: 'ünïcode' },
        { name: 'raw', type: 'application/octet-stream', data: 'no filename' },
        { name: 'empty', filename: '', type: 'application/octet-stream', data: '' },
        { name: 'plain', filename: 'a.txt', data: 'hello' },
      ]),
    );
    expect(report.parts).toEqual([
      { type: 'field', name: 'title', value: 'Quarterly numbers' },
      { type: 'file', name: 'document', filename: 'reports/résumé.bin', contentType: 'application/pdf', size: 5000, sha256: sha(file) },
      { type: 'field', name: 'note', value: 'ünïcode' },
      { type: 'file', name: 'raw', filename: null, contentType: 'application/octet-stream', size: 11, sha256: sha('no filename') },
      { type: 'file', name: 'empty', filename: null, contentType: 'application/octet-stream', size: 0, sha256: sha('') },
      { type: 'file', name: 'plain', filename: 'a.txt', contentType: 'text/plain', size: 5, sha256: sha('hello') },
    ]);
    const answer = read(uploadAnswer(report));
    expect(answer.json).toMatchObject({
      files: 4,
      fields: 2,
      bodyBytes: report.bodyBytes,
      limits: { fileBytes: 10485760, requestBytes: 26214400, parts: 20, fieldBytes: 65536 },
    });
    expect(answer.json.notes).toEqual(['A file part with no file name and no content is what a browser sends for a file input left empty.']);
  });

  it('when the body arrives one byte at a time, then the result is the same', async () => {
    const body = form([
      { name: 'a', data: 'x' },
      { name: 'f', filename: 'f.bin', data: file },
    ]);
    const report = await parse(body, { size: 1 });
    expect(report.parts.map((p) => (p.type === 'file' ? p.sha256 : p.value))).toEqual(['x', sha(file)]);
  });

  it('when a form has no parts, then 200 with none and a note', async () => {
    const answer = read(uploadAnswer(await parse(Buffer.from(`--${BOUNDARY}--\r\n`))));
    expect(answer.json).toMatchObject({ parts: [], files: 0, fields: 0 });
    expect(answer.json.notes[0]).toContain('The form had no parts');
  });

  describe('limits', () => {
    const small: UploadLimits = { fileBytes: 1000, requestBytes: 4000, parts: 3, fieldBytes: 100 };

    it('when a file is exactly the limit, then it passes; one byte more, then 413 file_too_large naming the limit', async () => {
      const exact = await parse(form([{ name: 'f', filename: 'ok.bin', data: Buffer.alloc(1000, 1) }]), { limits: small });
      expect(exact.parts[0]).toMatchObject({ size: 1000 });
      await expect(refusedWith(parse(form([{ name: 'f', filename: 'big.bin', data: Buffer.alloc(1001, 1) }]), { limits: small }))).resolves.toEqual({
        status: 413,
        code: 'file_too_large',
        message: 'The file part "f" ("big.bin") is larger than the limit of 1000 bytes per file.',
      });
    });

    it('when the real 10 MiB file limit is crossed, then 413 says 10 MiB', async () => {
      const refusal = await refusedWith(parse(form([{ name: 'f', filename: 'big.bin', data: Buffer.alloc(10 * 1024 * 1024 + 1) }])));
      expect(refusal).toMatchObject({
        status: 413,
        code: 'file_too_large',
        message: 'The file part "f" ("big.bin") is larger than the limit of 10 MiB per file.',
      });
    });

    it('when the body is larger than the request limit, then 413 body_too_large', async () => {
      const body = form([1, 2, 3].map((i) => ({ name: `f${i}`, filename: `${i}.bin`, data: Buffer.alloc(900) })).concat([]), BOUNDARY);
      expect(body.length).toBeLessThan(4000);
      const large: UploadLimits = { ...small, requestBytes: body.length - 1 };
      await expect(refusedWith(parse(body, { limits: large, size: 100 }))).resolves.toEqual({
        status: 413,
        code: 'body_too_large',
        message: `The upload is larger than the limit of ${body.length - 1} bytes per request.`,
      });
      expect((await parse(body, { limits: { ...small, requestBytes: body.length } })).parts).toHaveLength(3);
    });

    it('when there are more parts than the limit, then 413 too_many_parts; exactly the limit passes', async () => {
      const three = Array.from({ length: 3 }, (_, i) => ({ name: `p${i}`, data: 'v' }));
      expect((await parse(form(three), { limits: small })).parts).toHaveLength(3);
      await expect(refusedWith(parse(form([...three, { name: 'p3', filename: 'x', data: 'v' }]), { limits: small }))).resolves.toEqual({
        status: 413,
        code: 'too_many_parts',
        message: 'The form has more than 3 parts (files and fields together), the limit per request.',
      });
    });

    it('when a plain field is longer than its limit, then 413 field_too_large; exactly the limit passes', async () => {
      expect((await parse(form([{ name: 'f', data: 'a'.repeat(100) }]), { limits: small })).parts[0]).toMatchObject({ value: 'a'.repeat(100) });
      await expect(refusedWith(parse(form([{ name: 'f', data: 'a'.repeat(101) }]), { limits: small }))).resolves.toMatchObject({
        status: 413,
        code: 'field_too_large',
      });
    });
  });

  describe('refusals of what is not a multipart body', () => {
    it.each([
      [undefined, 'not_multipart', 'The request has no Content-Type; an upload is multipart/form-data (curl -F file=@photo.jpg, or a browser FormData).'],
      [
        'application/json',
        'not_multipart',
        'The Content-Type is "application/json"; an upload is multipart/form-data (curl -F file=@photo.jpg, or a browser FormData).',
      ],
      ['multipart/mixed; boundary=x', 'not_multipart', expect.stringContaining('"multipart/mixed; boundary=x"')],
      [
        'multipart/form-data',
        'malformed_multipart',
        'The multipart/form-data Content-Type has no boundary parameter (1 to 70 characters), so the parts cannot be found.',
      ],
      [`multipart/form-data; boundary=${'b'.repeat(71)}`, 'malformed_multipart', expect.stringContaining('an invalid boundary')],
    ])('when the Content-Type is %j, then 400 %s', async (type, code, message) => {
      await expect(refusalOf(() => MultipartReader.open(type))).resolves.toEqual({ status: GrpcStatus.INVALID_ARGUMENT, code, message });
    });

    it.each([
      [
        'the closing boundary is missing',
        form([{ name: 'a', data: 'x' }]).subarray(0, -(BOUNDARY.length + 6)),
        'The multipart body is malformed: the body ended before the closing boundary (--boundary--).',
      ],
      ['the body is empty', Buffer.alloc(0), 'The multipart body is malformed: the body ended before the closing boundary (--boundary--).'],
      [
        'the boundary never appears',
        Buffer.from('just some text'),
        'The multipart body is malformed: the body ended before the closing boundary (--boundary--).',
      ],
      [
        'a part header has no colon',
        Buffer.from(`--${BOUNDARY}\r\nnot a header\r\n\r\nx\r\n--${BOUNDARY}--\r\n`),
        'The multipart body is malformed: malformed part header.',
      ],
      [
        'a file stops mid-way',
        Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\nhalf a fi`),
        expect.stringMatching(/^The multipart body is malformed: /),
      ],
    ])('when %s, then 400 malformed_multipart saying why', async (_case, body, message) => {
      await expect(refusedWith(parse(body))).resolves.toEqual({ status: GrpcStatus.INVALID_ARGUMENT, code: 'malformed_multipart', message });
    });
  });
});
