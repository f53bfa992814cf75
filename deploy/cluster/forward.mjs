// A byte-for-byte TCP/unix-socket forwarder: node forward.mjs LISTEN CONNECT,
// each `tcp:HOST:PORT` or `unix:PATH`. A unix socket is a file, so it crosses
// network namespaces: one forwarder in the host's namespace and one in the
// node's join them without any route between the two, so nothing the cluster
// does can send a packet anywhere but the node namespace and this machine's
// loopback. Used for the API server (host loopback -> node) and for the test
// stores (node -> host loopback).
import net from 'node:net';
import fs from 'node:fs';

const parse = (spec) => {
  const [kind, ...rest] = spec.split(':');
  if (kind === 'unix') return { path: rest.join(':') };
  if (kind === 'tcp') return { host: rest.slice(0, -1).join(':'), port: Number(rest.at(-1)) };
  throw new Error(`forward: bad address ${spec}`);
};
const [listenSpec, connectSpec] = process.argv.slice(2);
const listen = parse(listenSpec);
const target = parse(connectSpec);
if (listen.path) fs.rmSync(listen.path, { force: true });
const server = net.createServer((client) => {
  const upstream = net.connect(target);
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
  client.on('close', close);
  upstream.on('close', close);
});
server.on('error', (err) => {
  console.error(`forward ${listenSpec}: ${err.message}`);
  process.exit(1);
});
server.listen(listen, () => {
  if (listen.path) fs.chmodSync(listen.path, 0o600);
  console.error(`forward: ${listenSpec} -> ${connectSpec}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
