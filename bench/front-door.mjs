// A stand-in for a Kubernetes Service in front of the gateways, for the
// rolling-restart scenario: a TCP proxy that spreads new connections round
// robin over the gateways whose GET /health/serving answers 200 (polled as a
// readiness probe is, every 100 ms), and tries the next one when a connection
// is refused. It never retries a request: a connection already carried to a
// gateway lives and ends with it, as through kube-proxy.
import http from 'node:http';
import net from 'node:net';

const PROBE_EVERY_MS = 100;

export async function startFrontDoor(gatewayUrls) {
  const backends = gatewayUrls.map((url) => ({ url, port: Number(new URL(url).port), ready: true }));
  let next = 0;
  let closed = false;

  const probe = (backend) =>
    new Promise((resolve) => {
      const req = http.get(`${backend.url}/health/serving`, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
      req.setTimeout(1000, () => req.destroy());
    });
  const probing = (async () => {
    while (!closed) {
      await Promise.all(backends.map(async (backend) => (backend.ready = await probe(backend))));
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();

  /** The ready gateways in round-robin order from the next one (all of them when none is ready: better a refusal than nothing). */
  const candidates = () => {
    const start = next++ % backends.length;
    const ordered = backends.map((_, i) => backends[(start + i) % backends.length]);
    const ready = ordered.filter((backend) => backend.ready);
    return ready.length > 0 ? ready : ordered;
  };

  const connect = (client, [backend, ...rest]) => {
    const upstream = net.connect(backend.port, '127.0.0.1');
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream).pipe(client);
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    upstream.once('error', (error) => {
      if (!connected && rest.length > 0) return connect(client, rest);
      client.destroy(error);
    });
  };

  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    client.pause();
    connect(client, candidates());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async close() {
      closed = true;
      await probing;
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
