// The echo baseline: a bare node:http server answering what /playground/echo
// answers for a GET (method, query, content type, no body), in its own process.
const http = require('node:http');

http
  .createServer((req, res) => {
    const q = req.url.indexOf('?');
    const query = Object.fromEntries(new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1)));
    const body = JSON.stringify({ method: req.method, query, contentType: req.headers['content-type'] ?? null, body: null });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.send('listening'));
