import newman, { type NewmanRunSummary } from 'newman';
import { createApp, rawRequest, registerUser, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(240_000);

/*
 * The Postman collection and environment the build generates from the
 * OpenAPI document (openapi-to-postmanv2), downloaded from the gateway and
 * run with newman, Postman's own command-line runner, against the running
 * system with a real app's credentials: every request is sent and answered,
 * and none meets a server error.
 */

/** The one endpoint whose 5xx answers are on purpose: it answers the status it is asked for. */
const ANSWERS_WHAT_IS_ASKED = '/playground/response';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Postman's collection format, checked by newman
type Json = Record<string, any>;

function run(collection: Json, environment: Json): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => {
    newman.run({ collection, environment, timeoutRequest: 75_000, reporters: [] }, (error, summary) => (error ? reject(error) : resolve(summary)));
  });
}

describe('the Postman collection', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(() => system?.stop());

  it('when downloaded, then the collection and environment come as attachments, named, and GET / links them', async () => {
    const links = (await rawRequest(`${system.baseUrl}/`)).json().links;
    for (const url of [links.postmanCollection, links.postmanEnvironment]) {
      const res = await rawRequest(url);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="training-sandbox\.postman_(collection|environment)\.json"$/);
    }
  });

  it("when newman runs every request with a real app's credentials, then each is answered and none with a server error", async () => {
    const links = (await rawRequest(`${system.baseUrl}/`)).json().links;
    const collection = (await rawRequest(links.postmanCollection)).json() as Json;
    const environment = (await rawRequest(links.postmanEnvironment)).json() as Json;
    const session = await registerUser(system.baseUrl);
    const app = await createApp(system.baseUrl, session);
    const values: Record<string, string> = {
      baseUrl: system.baseUrl,
      apiKey: app.apiKey,
      bearerToken: app.bearerToken,
      portalSessionToken: session,
      basicAuthUsername: app.appId,
      basicAuthPassword: app.appSecret,
      digestAuthUsername: app.appId,
      digestAuthPassword: app.apiKey,
      clientId: app.appId,
      clientSecret: app.appSecret,
    };
    expect(environment.values.map((v: Json) => v.key).sort()).toEqual(Object.keys(values).sort());
    for (const variable of environment.values) variable.value = values[variable.key];

    const summary = await run(collection, environment);
    const executions = summary.run.executions as Json[];
    // Every item ran (Digest's challenge and answer are two executions of one item).
    const items: string[] = [];
    const walk = (list: Json[]) => list.forEach((entry) => (entry.item ? walk(entry.item) : items.push(entry.id)));
    walk(collection.item);
    expect(new Set(executions.map((e) => e.item.id)).size).toBe(items.length);
    const unanswered = executions.filter((e) => e.requestError).map((e) => `${e.item.name}: ${e.requestError.message}`);
    expect(unanswered).toEqual([]);
    const serverErrors = executions
      .filter((e) => e.response.code >= 500 && !e.request.url.getPath().startsWith(ANSWERS_WHAT_IS_ASKED))
      .map((e) => `${e.request.method} ${e.request.url.getPath()} -> ${e.response.code}`);
    expect(serverErrors).toEqual([]);
    // The environment's credentials really reached the sandbox: the auth playground accepted each style.
    const answered = (path: string) => executions.find((e) => e.request.method === 'GET' && e.request.url.getPath() === path)?.response.code;
    expect({
      health: answered('/health'),
      apiKey: answered('/playground/auth/api-key'),
      bearer: answered('/playground/auth/bearer'),
      basic: answered('/playground/auth/basic'),
    }).toEqual({ health: 200, apiKey: 200, bearer: 200, basic: 200 });
  });
});
