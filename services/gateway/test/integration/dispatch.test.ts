import { createApp, rawRequest, registerUser, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';
import { start, type RunningGateway } from '../../src/composition';
import { loadGatewayConfig } from '../../src/config';
import type { Reply } from '../../src/http/reply';

jest.setTimeout(60_000);

/**
 * The route table served without a socket: an in-process gateway's inject()
 * runs the same dispatcher the HTTP server runs, here against the real
 * services of a running system, so its answer is byte for byte the socket's.
 * What the pipeline answers (health, HEAD, 401 challenges, 405 and OPTIONS,
 * 404, bad bodies) is tested in-process with faked clients
 * (test/unit/in-process/http-edge.test.ts).
 */
describe('dispatch, called directly', () => {
  let system: RunningSystem;
  let gateway: RunningGateway;
  let app: CreatedApp;
  const text = (reply: Reply) => Buffer.from(reply.body ?? '').toString('utf8');
  const parsed = (reply: Reply) => JSON.parse(text(reply));

  beforeAll(async () => {
    system = await startSystem();
    gateway = await start(loadGatewayConfig({ ...system.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }));
    app = await createApp(system.baseUrl, await registerUser(system.baseUrl), { scopes: ['hr:read'] });
  });
  afterAll(async () => {
    await gateway?.stop();
    await system?.stop();
  });

  it('when a data page is dispatched with an API key, then its bytes and ETag are those the socket serves', async () => {
    const url = '/playground/data/hr/employees?page_size=3&paginate=cursor';
    const reply = await gateway.inject({ method: 'GET', url, headers: { 'x-api-key': app.apiKey, Host: new URL(system.baseUrl).host } });
    const overHttp = await rawRequest(`${system.baseUrl}${url}`, { headers: { 'x-api-key': app.apiKey } });
    expect(reply.status).toBe(200);
    expect(text(reply)).toBe(overHttp.body);
    expect(reply.headers.ETag).toBe(overHttp.headers.etag);
    expect(parsed(reply).data).toHaveLength(3);
  });
});
