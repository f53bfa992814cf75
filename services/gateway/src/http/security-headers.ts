import helmet from 'helmet';

type CspDirectives = Record<string, string[]>;

/**
 * The security headers every answer of the API carries, as helmet (the
 * maintained set of these headers and their values) writes them for a JSON
 * API: no content of ours may be framed (frame-ancestors 'none', X-Frame-
 * Options DENY), loaded as a script or style (default-src 'none'), or
 * sniffed into another type (nosniff), and no Referer leaves with a link
 * that holds an api_key. Cross-Origin-Resource-Policy stays cross-origin:
 * learners' pages on any origin read our answers (CORS). HSTS is left to the
 * TLS-terminating ingress, which knows whether the sandbox is on HTTPS (a
 * learner's localhost is not).
 *
 * helmet is express middleware; it is run once here against a recorder, so
 * answers get the headers in their one writeHead instead of a setHeader
 * call each.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(
  recordHelmet({ defaultSrc: ["'none'"], frameAncestors: ["'none'"] }, 'cross-origin'),
);

/**
 * The portal's page and assets: the same headers, with a policy that lets the
 * page run its own files and nothing else. No inline script or style, no
 * other origin (its one API is same-origin), never framed, no <base>
 * rewriting, forms only to itself. Its resources are for this origin alone.
 */
export const PORTAL_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(
  recordHelmet(
    {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    'same-origin',
  ),
);

function recordHelmet(directives: CspDirectives, resourcePolicy: 'cross-origin' | 'same-origin'): Record<string, string> {
  const headers: Record<string, string> = {};
  const middleware = helmet({
    contentSecurityPolicy: { useDefaults: false, directives },
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: { policy: resourcePolicy },
    originAgentCluster: false,
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
    xContentTypeOptions: true,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: false,
    xPoweredBy: false,
    xXssProtection: false,
  });
  const recorder = {
    setHeader: (name: string, value: string) => void (headers[name] = String(value)),
    removeHeader: (name: string) => void delete headers[name],
  };
  middleware({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}
