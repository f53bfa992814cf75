import type { IncomingMessage } from 'node:http';
import { publicBaseUrl } from '../../src/http/public-url';

function request(headers: Record<string, string>, encrypted = false): IncomingMessage {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { headers: { host: 'localhost:8080', ...lower }, socket: { encrypted } } as unknown as IncomingMessage;
}

describe('publicBaseUrl', () => {
  it('when nothing is configured, then the connection scheme and Host are used', () => {
    expect(publicBaseUrl(request({ Host: 'sandbox.local:8080' }), { trustProxy: false })).toBe('http://sandbox.local:8080');
    expect(publicBaseUrl(request({ Host: 'sandbox.local' }, true), { trustProxy: false })).toBe('https://sandbox.local');
  });

  it('when a public base URL is configured, then it wins over every header', () => {
    const req = request({ 'X-Forwarded-Prefix': '/evil', 'X-Forwarded-Host': 'evil.example' });
    expect(publicBaseUrl(req, { trustProxy: true, publicBaseUrl: 'https://sandbox.example.org/api' })).toBe('https://sandbox.example.org/api');
  });

  it('when the proxy is trusted, then X-Forwarded-Proto, Host and Prefix are used (first value of each)', () => {
    const req = request({ 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-Host': 'edu.example.org, inner', 'X-Forwarded-Prefix': '/sandbox/' });
    expect(publicBaseUrl(req, { trustProxy: true })).toBe('https://edu.example.org/sandbox');
  });

  it('when the proxy is not trusted, then forwarded headers are ignored', () => {
    const req = request({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'edu.example.org', 'X-Forwarded-Prefix': '/sandbox' });
    expect(publicBaseUrl(req, { trustProxy: false })).toBe('http://localhost:8080');
  });

  it('when a forwarded prefix or host is not plain, then it is ignored', () => {
    expect(publicBaseUrl(request({ 'X-Forwarded-Prefix': '//evil.example.com' }), { trustProxy: true })).toBe('http://localhost:8080');
    expect(publicBaseUrl(request({ 'X-Forwarded-Host': 'evil.example/path?x' }), { trustProxy: true })).toBe('http://localhost');
    expect(publicBaseUrl(request({ 'X-Forwarded-Proto': 'javascript' }), { trustProxy: true })).toBe('http://localhost:8080');
  });
});
