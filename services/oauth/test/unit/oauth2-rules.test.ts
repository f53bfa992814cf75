import { createHash } from 'node:crypto';
import { GrpcStatus, quoteInput } from '@sandbox/runtime';
import { BASIC_CHALLENGE, describable, invalidClient, oauthError } from '../../src/domain/oauth2/errors';
import { challengeProblem, s256, verifierProblem } from '../../src/domain/oauth2/pkce';
import { differenceFromNearest } from '../../src/domain/oauth2/redirect-uri';
import { inOrderOf, requestedScopes, requireSubset, stillHeld } from '../../src/domain/oauth2/scope';
import { appErrorThrownBy as refusal } from '../support/refusals';

describe('OAuth 2.0 rules without I/O', () => {
  describe('error messages', () => {
    it('when a message holds characters RFC 6749 5.2 forbids in error_description, then they become ?', () => {
      expect(describable('a "quoted" \\ caf\u00e9 \u2019 \n ok')).toBe('a ?quoted? ? caf? ? ? ok');
      expect(oauthError('invalid_request', 'bad "x"').message).toBe('bad ?x?');
    });

    it('when a value is quoted back in single quotes, then the message still passes describable() unchanged', () => {
      const quoted = quoteInput('a "quoted" \\ caf\u00e9 \n', { quotes: 'single' });
      expect(quoted).toBe("'a ?quoted? ? caf? ?'");
      expect(describable(quoted)).toBe(quoted);
    });

    it('when invalid_client answers a Basic or a credential-less client, then it challenges Basic; a body client gets no challenge', () => {
      expect(invalidClient('no', 'basic')).toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code: 'invalid_client', challenge: BASIC_CHALLENGE });
      expect(invalidClient('no', '').challenge).toBe(BASIC_CHALLENGE);
      expect(invalidClient('no', 'body').challenge).toBeUndefined();
      expect(oauthError('invalid_grant', 'no').status).toBe(GrpcStatus.INVALID_ARGUMENT);
    });
  });

  describe('scope', () => {
    it('when scope is absent, empty or blank, then none was requested', () => {
      expect(requestedScopes('')).toBeUndefined();
      expect(requestedScopes('   ')).toBeUndefined();
    });

    it('when scopes repeat or are separated by several spaces, then each counts once', () => {
      expect(requestedScopes('hr:read  hr:read stocks:read')).toEqual(['hr:read', 'stocks:read']);
    });

    it('when a scope holds a double quote or a control character, then invalid_scope names RFC 6749 3.3', () => {
      const error = refusal(() => requestedScopes('hr:read "x"'));
      expect(error).toMatchObject({ code: 'invalid_scope', message: expect.stringContaining('RFC 6749 3.3') });
      expect(refusal(() => requestedScopes('hr:read\tx')).code).toBe('invalid_scope');
    });

    it('when a scope is not held, then invalid_scope lists what is held; commas get a hint', () => {
      const error = refusal(() => requireSubset(['hr:read,stocks:read'], ['hr:read', 'stocks:read'], 'the app holds', 'Ask for fewer.'));
      expect(error.code).toBe('invalid_scope');
      expect(error.message).toContain('(hr:read stocks:read)');
      expect(error.message).toContain('not commas');
      expect(() => requireSubset(['hr:read'], ['hr:read', 'stocks:read'], 'the app holds', '')).not.toThrow();
    });

    it('orders scopes as the app lists them, and keeps only those the app still holds', () => {
      expect(inOrderOf(['stocks:read', 'fpa:read'], ['fpa:read', 'stocks:read', 'hr:read'])).toEqual(['fpa:read', 'stocks:read']);
      expect(stillHeld(['hr:read', 'stocks:read'], ['stocks:read', 'fpa:read'])).toEqual(['stocks:read']);
    });
  });

  describe('PKCE (RFC 7636)', () => {
    it('computes S256 as the RFC 7636 appendix B example does', () => {
      expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
      expect(s256('x'.repeat(43))).toBe(createHash('sha256').update('x'.repeat(43)).digest('base64url'));
    });

    it('when a challenge is padded or uses + and /, then the problem says base64url without padding', () => {
      expect(challengeProblem('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBeUndefined();
      expect(challengeProblem('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM=')).toMatch(/without padding/);
      expect(challengeProblem('short')).toMatch(/43-character.*it has 5 characters/);
    });

    it('when a verifier is too short, too long or holds a reserved character, then the problem says which', () => {
      expect(verifierProblem('a'.repeat(43))).toBeUndefined();
      expect(verifierProblem('a'.repeat(128))).toBeUndefined();
      expect(verifierProblem('a'.repeat(42))).toMatch(/43 to 128 .* it has 42/);
      expect(verifierProblem('a'.repeat(129))).toMatch(/it has 129/);
      expect(verifierProblem(`${'a'.repeat(43)}+`)).toMatch(/holds '\+'/);
    });
  });

  describe('how a redirect URI differs from the registered ones', () => {
    const registered = ['https://app.example/callback', 'http://127.0.0.1:8000/cb?x=1'];

    it('when only a trailing slash differs, then it says so', () => {
      expect(differenceFromNearest('https://app.example/callback/', registered)).toBe(
        'The nearest registered URI differs only by a trailing slash at the end of the path.',
      );
    });

    it('when only the letter case of the path differs, then it says so', () => {
      expect(differenceFromNearest('https://app.example/Callback', registered)).toMatch(/letter case of the path/);
    });

    it('when scheme, host, port or query differ, then it names those parts and never the registered value', () => {
      const scheme = differenceFromNearest('http://app.example/callback', registered);
      expect(scheme).toBe('The nearest registered URI differs in the scheme.');
      expect(differenceFromNearest('http://localhost:8000/cb?x=1', registered)).toBe('The nearest registered URI differs in the host.');
      expect(differenceFromNearest('http://127.0.0.1:8001/cb?x=1', registered)).toBe('The nearest registered URI differs in the port.');
      expect(differenceFromNearest('http://127.0.0.1:8000/cb', registered)).toBe('The nearest registered URI differs in the query.');
      const many = differenceFromNearest('https://elsewhere.example/other', registered);
      expect(many).toBe('The nearest registered URI differs in the host and path.');
      for (const text of [scheme, many]) for (const uri of registered) expect(text).not.toContain(uri);
    });

    it('when the difference is one URL parsing erases, then it says the comparison is of exact strings', () => {
      expect(differenceFromNearest('HTTPS://APP.EXAMPLE/callback', registered)).toMatch(/exact strings/);
      expect(differenceFromNearest('https://app.example:443/callback', registered)).toMatch(/explicit default port/);
    });

    it('when the URI is not absolute, then it says so', () => {
      expect(differenceFromNearest('/callback', registered)).toMatch(/not an absolute URI/);
    });
  });
});
