import { APP, everyService } from './fake-clients';
import { expectApiError, startGateway, type Harness } from './harness';

type Result = { status: number; headers: Record<string, string>; body: { error?: { code: string; message: string }; [key: string]: unknown } };

/** POST /playground/batch: items run in order through the gateway's own pipeline (docs/http-practice.md, "Batch"). */
describe('the batch endpoint', () => {
  let h: Harness;
  const batch = async (requests: unknown, headers: Record<string, string> = {}) => h.post('/playground/batch', { requests }, headers);
  beforeEach(async () => {
    h = await startGateway(everyService());
  });
  afterEach(async () => h.stop());

  it('when items are sent, then each runs with its own auth, in order, and a failing item never fails the batch', async () => {
    const answer = await batch([
      { method: 'GET', path: '/health' },
      { method: 'GET', path: '/playground/data/hr/employees?page_size=2', headers: { 'x-api-key': APP.apiKey } },
      { method: 'GET', path: '/playground/data/hr/employees' },
      { method: 'POST', path: '/playground/echo', body: { n: 1 } },
      { method: 'GET', path: 'https://elsewhere.example/' },
      { method: 'GET', path: '/playground/../api/me' },
      { method: 'POST', path: '/playground/batch', body: { requests: [] } },
    ]);
    expect(answer.status).toBe(200);
    const results = answer.json as Result[];
    expect(results.map((r) => r.status)).toEqual([200, 200, 401, 200, 400, 400, 400]);
    expect(results.map((r) => r.body.error?.code)).toEqual([
      undefined,
      undefined,
      'missing_credentials',
      undefined,
      'invalid_path',
      'invalid_path',
      'nested_batch',
    ]);
    expect(results[1]!.body).toMatchObject({ pack: 'hr', entity: 'employees' });
    // The echo got the item's body as JSON, with the batch's address.
    expect(h.callsOf('playground', 'echo')[0]!.request).toMatchObject({ http: { method: 'POST', path: '/playground/echo', body: Buffer.from('{"n":1}') } });
    expect({ budget: answer.headers['x-batch-budget-ms'], order: answer.headers['x-batch-order'] }).toEqual({ budget: '60000', order: 'sequential' });
  });

  it('when an item carries a refusal’s challenge, then its result keeps the header as sent', async () => {
    const [result] = (await batch([{ method: 'GET', path: '/playground/auth/basic' }])).json as Result[];
    expect(result!.headers['WWW-Authenticate']).toBe('Basic realm="training-sandbox", charset="UTF-8"');
  });

  it('when the batch has a field it does not read, then 400 naming it', async () => {
    const answer = await h.post('/playground/batch', { requests: [], parallel: true });
    expectApiError(answer, 400, 'invalid_body');
    expect(answer.json.error.message).toBe('Unknown field "parallel"; this endpoint accepts requests.');
  });

  it('when an item has a field it does not read, then that item alone is refused by name, and the batch goes on', async () => {
    const answer = await batch([
      { method: 'GET', path: '/playground/auth/api-key', hedaers: { 'x-api-key': APP.apiKey } },
      { method: 'GET', path: '/health' },
    ]);
    const [misspelt, fine] = answer.json as Result[];
    expect({ status: misspelt!.status, code: misspelt!.body.error?.code, message: misspelt!.body.error?.message }).toEqual({
      status: 400,
      code: 'invalid_item',
      message: 'requests[0] has the unknown field "hedaers"; an item accepts method, path, headers, body.',
    });
    expect(fine!.status).toBe(200);
    expect(h.calls).toEqual([]);
  });

  it('when more than 20 items are sent, then 400 too_many_requests and none runs', async () => {
    expectApiError(await batch(Array.from({ length: 21 }, () => ({ method: 'GET', path: '/health' }))), 400, 'too_many_requests');
  });

  it('when an item’s answer builds links, then they point where the batch was sent', async () => {
    const answer = await batch([{ method: 'GET', path: '/playground/data/hr/employees', headers: { 'x-api-key': APP.apiKey } }], {
      Host: 'sandbox.example.org',
    });
    expect((answer.json as Result[])[0]!.body.nextLink).toBe('http://sandbox.example.org/playground/data/hr/employees?cursor=next');
  });

  it('when an item authenticated as an app, then it lands in that app’s request log, as identity is sent it', async () => {
    await batch([{ method: 'GET', path: '/playground/auth/api-key', headers: { 'x-api-key': APP.apiKey } }]);
    await h.gateway.stop();
    const entries = h
      .callsOf('identity', 'recordRequests')
      .flatMap((call) => (call.request as { entries: { path: string; app: string; authStyle: string; status: number }[] }).entries);
    expect(entries).toEqual([expect.objectContaining({ path: '/playground/auth/api-key', app: APP.id, authStyle: 'api_key_header', status: 200 })]);
  });
});
