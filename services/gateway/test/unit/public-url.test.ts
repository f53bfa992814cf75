import type { Request } from 'express';
import { publicBaseUrl } from '../../src/http/public-url';

function request(parts: { protocol?: string; host?: string; headers?: Record<string, string> }): Request {
  const headers = Object.fromEntries(Object.entries(parts.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return { protocol: parts.protocol ?? 'http', host: parts.host ?? 'localhost:8080', get: (name: string) => headers[name.toLowerCase()] } as unknown as Request;
}

describe('publicBaseUrl', () => {
  it('when nothing is configured, then the request scheme and host are used', () => {
    expect(publicBaseUrl(request({ host: 'sandbox.local:8080' }), { trustProxy: false })).toBe('http://sandbox.local:8080');
  });

  it('when a public base URL is configured, then it wins over every header', () => {
    const req = request({ headers: { 'X-Forwarded-Prefix': '/evil' } });
    expect(publicBaseUrl(req, { trustProxy: true, publicBaseUrl: 'https://sandbox.example.org/api' })).toBe('https://sandbox.example.org/api');
  });

  it('when the proxy is trusted, then X-Forwarded-Prefix is appended', () => {
    const req = request({ protocol: 'https', host: 'edu.example.org', headers: { 'X-Forwarded-Prefix': '/sandbox/' } });
    expect(publicBaseUrl(req, { trustProxy: true })).toBe('https://edu.example.org/sandbox');
  });

  it('when the proxy is not trusted, then X-Forwarded-Prefix is ignored', () => {
    const req = request({ headers: { 'X-Forwarded-Prefix': '/sandbox' } });
    expect(publicBaseUrl(req, { trustProxy: false })).toBe('http://localhost:8080');
  });

  it('when the forwarded prefix is not a plain path, then it is ignored', () => {
    const req = request({ headers: { 'X-Forwarded-Prefix': '//evil.example.com' } });
    expect(publicBaseUrl(req, { trustProxy: true })).toBe('http://localhost:8080');
  });
});
