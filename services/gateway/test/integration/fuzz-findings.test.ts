import { rawRequest, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(60_000);

/*
 * What Schemathesis found by generating requests from the OpenAPI document
 * (schemathesis.test.ts), each kept as a case so it cannot come back: every
 * one was a 500 where the API owes the learner a 4xx that says why.
 */
describe('inputs a fuzzer found', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(() => system?.stop());

  it.each([
    ['the CORS lab steered to an origin with a control character', 'GET', '/playground/cors/simple?allow_origin=%0Ahttps://x.example'],
    ['the CORS lab steered to an origin with a DEL character', 'POST', '/playground/cors/preflight?allow_origin=https://x.example%7F'],
  ])('when %s, then the answer is a 400 naming the parameter, never a 500', async (_label, method, path) => {
    const res = await rawRequest(`${system.baseUrl}${path}`, {
      method,
      headers: { Origin: 'https://learner.example', 'Content-Type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
    });
    expect(res.status).toBe(400);
    expect(res.json().error.message).toMatch(/allow_(origin|methods)/);
    // The refusal still carries the lab's headers, reflecting the caller's origin.
    expect(res.headers['access-control-allow-origin']).toBe('https://learner.example');
  });

  it('when a preflight is steered with a value no header can hold, then the steering is ignored and the preflight still answers', async () => {
    const res = await rawRequest(`${system.baseUrl}/playground/cors/preflight?allow_origin=%0Abad`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://learner.example', 'Access-Control-Request-Method': 'PUT' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://learner.example');
  });

  it('when a multipart upload has a part without a name, then it is screened and answered, never a 500', async () => {
    const boundary = 'fuzz-boundary';
    const body = [`--${boundary}`, 'Content-Disposition: form-data', '', 'just a value', `--${boundary}--`, ''].join('\r\n');
    const res = await rawRequest(`${system.baseUrl}/playground/upload`, {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect({ status: res.status, body: res.body.slice(0, 300) }).toEqual({ status: expect.any(Number), body: expect.any(String) });
    expect(res.status).toBeLessThan(500);
  });
});
