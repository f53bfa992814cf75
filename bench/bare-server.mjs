// The baselines: a server answering every request with the same bytes and the
// same headers the gateway sends for that page, in its own process like the
// gateway. FRAMEWORK=node is bare node:http (the target's baseline);
// FRAMEWORK=express is express 5 with one route and no middleware, which shows
// what express alone costs on this machine.
import http from 'node:http';
import express from 'express';

const body = Buffer.from(process.env.BODY_BASE64, 'base64');
const headers = { ...JSON.parse(process.env.HEADERS_JSON), 'Content-Length': body.length };

let listener;
if (process.env.FRAMEWORK === 'express') {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.get('/', (_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  listener = app;
} else {
  listener = (_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  };
}
const server = http.createServer(listener);
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('listening'));
