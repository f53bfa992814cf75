import mongoose from 'mongoose';
import { createApp, isolatedMongoUrl, rawRequest, registerUser, requireStoreUrls, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

/*
 * What a request must write, its request-log entry and its usage count, is
 * held by the gateway that answered it and sent to identity in a batch about
 * once a second (docs/state.md). A gateway stopped cleanly sends what it holds
 * before it exits, after any batch still on its way: nothing counted is lost.
 * Read back from the store itself, with the real stores.
 */
describe('request logs and usage counts when a gateway stops cleanly (real stores)', () => {
  let system: RunningSystem;
  let mongoUrl: string;
  let db: mongoose.Connection;

  // Per test, as graceful-stop.test.ts: the system (and its watch of the answers) ends before the contract check asks a stopped gateway.
  beforeEach(async () => {
    mongoUrl = isolatedMongoUrl('records_stop');
    system = await startSystem({ MONGO_URL: mongoUrl, REDIS_URL: requireStoreUrls().redisUrl, GRPC_DEADLINE_MS: '30000' });
    db = await mongoose.createConnection(mongoUrl).asPromise();
  });
  afterEach(async () => {
    await system?.stop();
    await db?.db?.dropDatabase();
    await db?.close();
  });

  it('when a gateway is stopped right after a burst spread over flushes, then every request it answered is in the app’s log and its usage, once', async () => {
    const token = await registerUser(system.baseUrl);
    const app = await createApp(system.baseUrl, token);
    const statuses: number[] = [];
    // Ten rounds of 20 at once, 150 ms apart: the burst spans flushes, so one is likely under way at the stop.
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => rawRequest(`${system.baseUrl}/playground/auth/api-key`, { headers: { 'x-api-key': app.apiKey } })),
      );
      statuses.push(...answers.map((a) => a.status));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    await system.stopService('gateway');

    // The gateway has exited: whatever it sent was stored before identity answered.
    const logged = await db.collection('request_logs').countDocuments({ app: app.id });
    const usage = await db.collection('usage').find({ app: app.id }).toArray();
    const counted = usage.reduce((total, doc) => total + Number(doc.requests), 0);
    expect({ logged, counted }).toEqual({ logged: 200, counted: 200 });
  });
});
