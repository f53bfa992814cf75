// Container health check for docker compose; Kubernetes uses its own grpc and
// httpGet probes instead. Exits 0 when healthy, 1 otherwise.
//   node deploy/docker/healthcheck.cjs grpc <port>          grpc.health.v1 Check for "" is SERVING, in
//                                                           plaintext: the service's <NAME>_HEALTH_PORT (its
//                                                           gRPC port wants a client certificate)
//   node deploy/docker/healthcheck.cjs http <port> [path]   GET http://127.0.0.1:<port><path> is 2xx
'use strict';

const [kind, port, path = '/health'] = process.argv.slice(2);
const TIMEOUT_MS = 2000;

function fail(why) {
  console.error(`unhealthy: ${why}`);
  process.exit(1);
}

if (kind === 'grpc' && port) {
  const grpc = require('@grpc/grpc-js');
  const { health } = require('@sandbox/contracts');
  const client = new health.HealthClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  client.check({ service: '' }, { deadline: Date.now() + TIMEOUT_MS }, (error, response) => {
    client.close();
    if (error) fail(error.message);
    if (response.status !== health.HealthCheckResponse_ServingStatus.SERVING) fail(`status ${response.status}`);
    process.exit(0);
  });
} else if (kind === 'http' && port) {
  require('node:http')
    .get({ host: '127.0.0.1', port: Number(port), path, timeout: TIMEOUT_MS }, (response) => {
      response.resume();
      if (response.statusCode >= 200 && response.statusCode < 300) process.exit(0);
      fail(`HTTP ${response.statusCode} from ${path}`);
    })
    .on('timeout', function onTimeout() {
      this.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`));
    })
    .on('error', (error) => fail(error.message));
} else {
  fail('usage: healthcheck.cjs grpc <port> | http <port> [path]');
}
