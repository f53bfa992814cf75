import { playgroundApi } from '@sandbox/contracts';
import { everyService } from './fake-clients';
import { expectApiError, startGateway, type Harness } from './harness';

const ORIGIN = 'https://learner.example';
const preflight = (h: Harness, url: string, headers: Record<string, string> = {}) =>
  h.inject({ method: 'OPTIONS', url, headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'PUT', ...headers } });

/** The API's open policy, and the CORS lab's steerable one (docs/http-practice.md, "CORS lab"). */
describe('CORS', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startGateway(everyService());
  });
  afterEach(async () => h.stop());

  describe('the open policy', () => {
    it('when any origin reads an answer, then * without credentials, with the paging, tracing, challenge and batch headers exposed', async () => {
      const answer = await h.get('/health', { Origin: ORIGIN });
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(answer.headers['access-control-expose-headers']).split(', ')).toEqual(
        expect.arrayContaining(['Link', 'ETag', 'X-Request-Id', 'WWW-Authenticate', 'Retry-After', 'X-Batch-Budget-Ms', 'X-Batch-Order']),
      );
    });

    it('when a preflight asks for a method and headers, then 204 with the path’s methods, the asked headers and a 10-minute max age, and no service call', async () => {
      const answer = await preflight(h, '/playground/echo', { 'Access-Control-Request-Headers': 'content-type, x-api-key' });
      expect({ status: answer.status, body: answer.reply.body }).toEqual({ status: 204, body: undefined });
      expect(answer.headers).toMatchObject({
        'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
        'access-control-allow-headers': 'content-type, x-api-key',
        'access-control-max-age': '600',
        'access-control-allow-origin': '*',
      });
      expect(h.calls).toEqual([]);
    });

    it('when a refusal is answered, then it is readable cross-origin too (a 401 with its challenge)', async () => {
      const answer = await h.get('/playground/data/hr/employees', { Origin: ORIGIN });
      expect({ status: answer.status, origin: answer.headers['access-control-allow-origin'] }).toEqual({ status: 401, origin: '*' });
    });
  });

  describe('the CORS lab', () => {
    it('when a simple GET comes from an origin, then that origin is reflected (never *), with Vary: Origin and the lab’s exposed headers', async () => {
      const answer = await h.get('/playground/cors/simple', { Origin: ORIGIN });
      expect(answer.json).toMatchObject({ cors: 'simple', origin: ORIGIN });
      expect(answer.headers).toMatchObject({
        'access-control-allow-origin': ORIGIN,
        vary: 'Origin',
        'access-control-expose-headers': playgroundApi.LAB_EXPOSED_HEADERS.join(', '),
      });
      expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it('when allow_origin and allow_credentials steer it, then the answer allows what they say', async () => {
      const answer = await h.get('/playground/cors/simple?allow_origin=https://other.example&allow_credentials=true', { Origin: ORIGIN });
      expect(answer.headers).toMatchObject({ 'access-control-allow-origin': 'https://other.example', 'access-control-allow-credentials': 'true' });
    });

    it('when a preflight asks, then exactly the requested method and headers are allowed, the default max age, and the verdict says allowed', async () => {
      const answer = await preflight(h, '/playground/cors/preflight', {
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'Content-Type, X-Custom',
      });
      expect(answer.status).toBe(204);
      expect(answer.headers).toMatchObject({
        'access-control-allow-origin': ORIGIN,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type, x-custom',
        'access-control-max-age': String(playgroundApi.LAB_DEFAULT_MAX_AGE),
        'x-cors-verdict': `allowed: POST from ${ORIGIN} with content-type, x-custom`,
      });
    });

    it('when the preflight is steered to allow less, then the verdict names each problem a browser will refuse', async () => {
      const answer = await preflight(h, '/playground/cors/preflight?allow_origin=https://other.example&allow_methods=GET&allow_headers=content-type', {
        'Access-Control-Request-Headers': 'content-type, x-custom',
      });
      expect(answer.headers['x-cors-verdict']).toBe(
        `refused: origin ${ORIGIN} is not the allowed https://other.example; method PUT is not in the allowed GET; header x-custom not in the allowed content-type`,
      );
    });

    it('when allow_origin=* comes with credentials, then the verdict says a browser refuses that', async () => {
      const answer = await preflight(h, '/playground/cors/preflight?allow_origin=*&allow_credentials=true&allow_methods=PUT');
      expect(answer.headers['x-cors-verdict']).toBe('refused: allow_origin=* cannot be used with credentials');
    });

    it('when max_age is steered, then the preflight carries it; out of range, the preflight is a 400 saying why', async () => {
      expect((await preflight(h, '/playground/cors/preflight?max_age=0')).headers['access-control-max-age']).toBe('0');
      const refused = await preflight(h, '/playground/cors/preflight?max_age=90000');
      expectApiError(refused, 400, 'invalid_parameter');
      expect(refused.headers['x-cors-verdict']).toBe(`refused: max_age must be from 0 to ${playgroundApi.MAX_AGE_LIMIT} seconds; got 90000.`);
    });

    it('when the preflighted POST arrives, then its JSON body is read and reflected with the origin', async () => {
      const answer = await h.post('/playground/cors/preflight', { hello: 'lab' }, { Origin: ORIGIN });
      expect(answer.json).toMatchObject({ cors: 'preflighted', origin: ORIGIN, received: { hello: 'lab' } });
      expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    });
  });
});
