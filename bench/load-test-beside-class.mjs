// What a load test does to a class sharing the sandbox (docs/load-testing.md),
// measured: a class of learners, each with their own app and their own client
// address (127.0.1.x: all of 127.0.0.0/8 is loopback), makes a steady trickle
// of requests while a load test hammers the cached data page from 127.0.0.1,
// in four phases:
//
//   alone     the class by itself: its latency to compare against
//   limited   plus a load test with an ordinary app: fair share holds it to its app's budget
//   exempt    plus a load test with an app an operator exempted: as fast as the machine goes
//   paced     plus the exempt load test held to a fixed rate (autocannon --overallRate, k6's
//             constant-arrival-rate): what docs/load-testing.md recommends
//
// The limits are the chart's (deploy/helm values: 50/s burst 100 per app,
// 200/s burst 400 per address). The exemption is made as an operator would,
// through PUT /api/admin/apps/{appId}/limit.
//
//   npm run build && node bench/load-test-beside-class.mjs [--learners 30] [--duration 20] [--connections 50] [--paced-rate 400]
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import { median, numberArg, rssMiB, cpuSeconds, startSandbox } from './lib.mjs';

const learners = numberArg('learners', 30);
const duration = numberArg('duration', 20);
const connections = numberArg('connections', 50);
const pacedRate = numberArg('paced-rate', 400);
/** Each learner's pace: a request every 500 ms, like someone stepping through pages in a notebook, a little fast. */
const LEARNER_INTERVAL_MS = 500;
const OPERATOR = 'operator@example.org';
const PASSWORD = 'bench-password-1';
const PAGE = '/playground/data/hr/employees?page=1&page_size=50';

const sandbox = await startSandbox({
  RATE_LIMIT_APP_PER_SECOND: '50',
  RATE_LIMIT_APP_BURST: '100',
  RATE_LIMIT_ADDRESS_PER_SECOND: '200',
  RATE_LIMIT_ADDRESS_BURST: '400',
  SLOW_REQUESTS_PER_APP: '10',
  SLOW_REQUESTS_PER_ADDRESS: '100',
  OPERATOR_EMAILS: OPERATOR,
});

/** One JSON call from a given client address. */
function call(method, path, { body, headers = {}, agent } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      new URL(path, sandbox.baseUrl),
      { method, agent, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode, ms: performance.now() - started, json: () => JSON.parse(text), headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

async function account(email, agent) {
  const signedUp = await call('POST', '/api/auth/register', { body: { email, password: PASSWORD }, agent });
  if (signedUp.status !== 201) throw new Error(`register ${email}: ${signedUp.status}`);
  const session = { authorization: `Bearer ${signedUp.json().token}` };
  const app = await call('POST', '/api/apps', { body: { name: 'bench' }, headers: session, agent });
  if (app.status !== 201) throw new Error(`create app: ${app.status}`);
  return { session, app: app.json() };
}

const summary = (samples) => {
  const ms = samples.map((s) => s.ms);
  const statuses = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const sorted = [...ms].sort((a, b) => a - b);
  return { requests: samples.length, statuses, p50: +median(ms).toFixed(1), p99: +(sorted[Math.floor(sorted.length * 0.99)] ?? 0).toFixed(1) };
};

try {
  const operator = await account(OPERATOR);
  const tester = await account(`load-tester-${Date.now()}@example.org`);
  const exemptTester = await account(`exempt-tester-${Date.now()}@example.org`);
  const exempted = await call('PUT', `/api/admin/apps/${exemptTester.app.appId}/limit`, { body: { exempt: true }, headers: operator.session });
  if (exempted.status !== 200) throw new Error(`exempting the load-test app: ${exempted.status} ${JSON.stringify(exempted.json())}`);

  const classroom = [];
  for (let i = 0; i < learners; i++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: `127.0.1.${i + 10}` });
    classroom.push({ agent, ...(await account(`learner-${i}-${Date.now()}@example.org`, agent)) });
  }
  // The polled app limits reach every gateway within about a second.
  await new Promise((resolve) => setTimeout(resolve, 2500));

  /** The class's trickle for `ms`: each learner a request every LEARNER_INTERVAL_MS, offset so they do not march in step. */
  async function classFor(ms) {
    const samples = [];
    const until = Date.now() + ms;
    await Promise.all(
      classroom.map(async (learner, i) => {
        await new Promise((resolve) => setTimeout(resolve, (i * LEARNER_INTERVAL_MS) / classroom.length));
        while (Date.now() < until) {
          const next = Date.now() + LEARNER_INTERVAL_MS;
          samples.push(await call('GET', PAGE, { headers: { 'x-api-key': learner.app.apiKey }, agent: learner.agent }));
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
        }
      }),
    );
    return summary(samples);
  }

  function loadTest(apiKey, overallRate) {
    return autocannon({
      url: `${sandbox.baseUrl}${PAGE}`,
      headers: { 'x-api-key': apiKey },
      connections,
      duration,
      ...(overallRate ? { overallRate } : {}),
    }).then((r) => ({
      requests: r.requests.total,
      rps: Math.round(r.requests.average),
      statuses: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, { count }]) => [code, count])),
      errors: r.errors,
      p50: r.latency.p50,
      p99: r.latency.p99,
    }));
  }

  const gateway = sandbox.processes().gateway;
  const phases = {};
  const phase = async (name, test) => {
    const cpuBefore = cpuSeconds(gateway);
    const [classroomFigures, loadFigures] = await Promise.all([classFor(duration * 1000), test?.()]);
    phases[name] = {
      class: classroomFigures,
      loadTest: loadFigures,
      gatewayCpuPercent: Math.round(((cpuSeconds(gateway) - cpuBefore) / duration) * 100),
      gatewayRssMiB: Math.round(rssMiB(gateway)),
    };
    console.error(
      `${name}: class p50 ${classroomFigures.p50} ms p99 ${classroomFigures.p99} ms ${JSON.stringify(classroomFigures.statuses)}; load test ${loadFigures ? `${loadFigures.rps}/s ${JSON.stringify(loadFigures.statuses)}` : '-'}`,
    );
  };
  await phase('alone');
  await phase('limited', () => loadTest(tester.app.apiKey));
  await phase('exempt', () => loadTest(exemptTester.app.apiKey));
  await phase('paced', () => loadTest(exemptTester.app.apiKey, pacedRate));

  const report = {
    when: new Date().toISOString(),
    learners,
    learnerIntervalMs: LEARNER_INTERVAL_MS,
    duration,
    connections,
    pacedRate,
    route: `GET ${PAGE} (x-api-key)`,
    limits: 'app 50/s burst 100, address 200/s burst 400 (the chart)',
    phases,
  };
  console.log(JSON.stringify(report, null, 2));
  for (const learner of classroom) learner.agent.destroy();
} finally {
  await sandbox.stop();
}
