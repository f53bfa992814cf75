// The baseline: a bare node:http server answering every request with the same
// bytes and the same headers the gateway sends for that page. It runs in its
// own process, like the gateway, so both get a core of their own from the OS.
import http from 'node:http';

const body = Buffer.from(process.env.BODY_BASE64, 'base64');
const headers = JSON.parse(process.env.HEADERS_JSON);
const server = http.createServer((req, res) => {
  res.writeHead(200, { ...headers, 'Content-Length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('listening'));
