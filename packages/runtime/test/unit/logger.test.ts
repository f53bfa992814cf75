import { Writable } from 'node:stream';
import { createLogger, redactSecrets } from '@sandbox/runtime';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().trim().split('\n'));
      done();
    },
  });
  return { lines, stream };
}

describe('logger', () => {
  it('when a log object carries secrets at the top or one level down, then none of their values is written', async () => {
    const { lines, stream } = capture();
    const logger = createLogger('test', 'info', stream);
    logger.info(
      {
        authorization: 'Bearer bt_secret1',
        headers: { 'x-api-key': 'ak_secret2', accept: 'json' },
        body: { password: 'secret3', clientSecret: 'secret4' },
        appId: 'app_ok',
      },
      'with secrets',
    );
    await new Promise((r) => setImmediate(r));
    const line = lines.join('\n');
    for (const secret of ['bt_secret1', 'ak_secret2', 'secret3', 'secret4']) expect(line).not.toContain(secret);
    expect(JSON.parse(lines[0])).toMatchObject({
      service: 'test',
      appId: 'app_ok',
      headers: { 'x-api-key': '[redacted]', accept: 'json' },
      msg: 'with secrets',
    });
  });

  it('when nothing is secret, then the object is passed through unchanged', () => {
    const object = { requestId: 'r', path: '/x', status: 200 };
    expect(redactSecrets(object)).toBe(object);
  });

  it('does not change the caller-owned object it redacts', () => {
    const headers = { authorization: 'Basic abc' };
    redactSecrets({ headers });
    expect(headers.authorization).toBe('Basic abc');
  });
});
