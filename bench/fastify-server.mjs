// The fastify baseline of bench/vs-fastify.mjs, in a process of its own (like
// the gateway and bench/bare-routes.mjs): each path answers the bytes and
// content type the gateway answered for it (captured by the parent and sent
// over IPC), through fastify's pipeline (routing, request and reply objects,
// hooks, its serialisation of a Buffer), with its logger off as a load test
// would run it.
//
// Parent → child: { port, routes: { [path]: { headers, bodyBase64 } } }
// Child → parent: 'listening'.
import Fastify from 'fastify';

process.once('message', async ({ port, routes }) => {
  const app = Fastify({ logger: false });
  for (const [path, { headers, bodyBase64 }] of Object.entries(routes)) {
    const body = Buffer.from(bodyBase64, 'base64');
    app.route({ method: ['GET', 'POST'], url: path, handler: (_request, reply) => reply.headers(headers).send(body) });
  }
  await app.listen({ port, host: '127.0.0.1' });
  process.send('listening');
});
