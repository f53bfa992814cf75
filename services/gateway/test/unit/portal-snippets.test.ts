import { DefaultSettings, ResultKind, TaskUtils } from '@microsoft/powerquery-parser';
import { redirectUriProblem as identityRedirectUriProblem } from '../../../identity/src/domain/validation';
import { fieldOfRefusal, redirectUriProblem } from '../../portal/src/redirect-uris';
import {
  AUTH_STYLES,
  authSnippet,
  baseUrlFromPage,
  dataTarget,
  LANGUAGES,
  PAGINATION_STYLES,
  paginationSnippet,
  PLACEHOLDERS,
  type Language,
  type ShownSecrets,
  type SnippetInput,
} from '../../portal/src/snippets';

/*
 * The portal's snippet generator and its redirect-URI check, as pure
 * functions. Whether the snippets actually work is proven by running them
 * against a real sandbox in test/integration/portal.test.ts; here, what they
 * contain: the right base URL and App ID, secrets only when on screen and only
 * the ones the style needs, Power Query in the form Power BI Service refreshes.
 */

const APP = { appId: 'app_Xq3V0d5yH2kq8Jr1mT9bWg', scopes: ['fpa:read', 'stocks:read', 'marketing:read', 'hr:read', 'cricket:read'], redirectUris: [] };
const SECRETS: Required<ShownSecrets> = {
  appSecret: 'as_SECRETsecretSECRETsecretSECRETsecretSECRET1',
  apiKey: 'ak_KEYkeyKEYkeyKEYkeyKEYkeyKEYkeyKEYkeyKEYkey12',
  bearerToken: 'bt_BEARERbearerBEARERbearerBEARERbearerBEARER1',
};
const BASE = 'https://class.example.org/sandbox';
const input = (overrides: Partial<SnippetInput> = {}): SnippetInput => ({ baseUrl: BASE, app: APP, ...overrides });

const everySnippet = (given: SnippetInput) => [
  ...AUTH_STYLES.flatMap((style) => LANGUAGES.map((language) => ({ style, language: language.id, code: authSnippet(style.id, language.id, given) }))),
  ...PAGINATION_STYLES.flatMap((style) =>
    LANGUAGES.map((language) => ({ style, language: language.id, code: paginationSnippet(style.id, language.id, given) })),
  ),
];

describe('baseUrlFromPage', () => {
  it.each([
    ['http://127.0.0.1:8080/portal/', 'http://127.0.0.1:8080'],
    ['http://127.0.0.1:8080/portal/#/apps/0123456789abcdef01234567/start', 'http://127.0.0.1:8080'],
    ['https://class.example.org/sandbox/portal/#/apps', 'https://class.example.org/sandbox'],
    ['https://class.example.org/sandbox/portal/index.html', 'https://class.example.org/sandbox'],
    ['https://class.example.org/a/portal/b/portal/', 'https://class.example.org/a/portal/b'],
    ['https://class.example.org/sandbox/portal', 'https://class.example.org/sandbox'],
  ])('when the page is at %s, then the base URL is %s', (href, base) => {
    expect(baseUrlFromPage(href)).toBe(base);
  });
});

describe('snippets', () => {
  it('when no secret is on screen, then every snippet has placeholders, the base URL and the App ID, and no secret', () => {
    for (const { style, language, code } of everySnippet(input())) {
      expect({ style: style.id, language, base: code.includes(BASE) }).toEqual({ style: style.id, language, base: true });
      for (const secret of Object.values(SECRETS)) expect(code).not.toContain(secret);
      for (const need of style.needs)
        expect({ style: style.id, language, placeholder: code.includes(PLACEHOLDERS[need]) }).toEqual({ style: style.id, language, placeholder: true });
      if (
        AUTH_STYLES.includes(style as (typeof AUTH_STYLES)[number]) &&
        style.id !== 'api_key_header' &&
        style.id !== 'api_key_query' &&
        style.id !== 'bearer'
      ) {
        expect({ style: style.id, language, appId: code.includes(APP.appId) }).toEqual({ style: style.id, language, appId: true });
      }
    }
  });

  it('when secrets are on screen, then a snippet holds exactly the ones its style needs, and no placeholder', () => {
    for (const { style, language, code } of everySnippet(input({ secrets: SECRETS }))) {
      const held = (Object.keys(SECRETS) as Array<keyof ShownSecrets>).filter((name) => code.includes(SECRETS[name]));
      expect({ style: style.id, language, held }).toEqual({ style: style.id, language, held: [...style.needs] });
      expect(code).not.toMatch(/<YOUR_[A-Z_]+>/);
    }
  });

  it('when only the rotated API key is on screen, then the other secrets stay placeholders', () => {
    const code = authSnippet('basic', 'curl', input({ secrets: { apiKey: SECRETS.apiKey } }));
    expect(code).toContain(PLACEHOLDERS.appSecret);
    expect(code).not.toContain(SECRETS.apiKey);
  });

  it('when the base URL holds a quote, then each language quotes it as a literal', () => {
    const odd = input({ baseUrl: `https://h.example/o'k"x` });
    expect(authSnippet('api_key_header', 'curl', odd)).toContain(`BASE='https://h.example/o'\\''k"x'`);
    expect(authSnippet('api_key_header', 'python', odd)).toContain('BASE = "https://h.example/o\'k\\"x"');
    expect(authSnippet('api_key_header', 'javascript', odd)).toContain('const BASE = "https://h.example/o\'k\\"x";');
    expect(authSnippet('api_key_header', 'powerquery', odd)).toContain('Web.Contents("https://h.example/o\'k""x"');
  });

  it('when the app holds hr:read, then the snippets read hr; else the first pack it holds; with none, they say it will be 403', () => {
    expect(dataTarget(APP.scopes)).toMatchObject({
      scope: 'hr:read',
      smallPath: '/playground/data/hr/departments',
      largePath: '/playground/data/hr/employees',
      held: true,
    });
    expect(dataTarget(['cricket:read', 'stocks:read'])).toMatchObject({ scope: 'stocks:read', smallPath: '/playground/data/stocks/tickers', held: true });
    expect(dataTarget([])).toMatchObject({ scope: 'hr:read', held: false });
    expect(authSnippet('api_key_header', 'curl', input({ app: { ...APP, scopes: [] } }))).toMatch(/holds no pack scope, so the data request answers 403/);
    expect(authSnippet('oauth2_client_credentials', 'python', input({ app: { ...APP, scopes: ['fpa:read'] } }))).toContain('"scope": "fpa:read"');
  });

  it('when the app has redirect URIs, then the authorization-code snippets use the first; without, they ask for one to be registered', () => {
    const withUri = input({ app: { ...APP, redirectUris: ['https://client.example/cb', 'http://127.0.0.1:8000/cb'] } });
    for (const language of ['curl', 'python', 'javascript', 'powerquery'] as Language[]) {
      const code = authSnippet('oauth2_authorization_code', language, withUri);
      expect(code).toContain('https://client.example/cb');
      expect(code).not.toMatch(/Register .* as a redirect URI/);
      expect(authSnippet('oauth2_authorization_code', language, input())).toMatch(
        /Register http:\/\/127\.0\.0\.1:9\/callback as a redirect URI of this app first/,
      );
    }
  });

  it('when Power Query calls the sandbox, then always with the fixed base URL and a RelativePath, so Power BI Service can refresh it', () => {
    for (const { style, language, code } of everySnippet(input())) {
      if (language !== 'powerquery') continue;
      const calls = [...code.matchAll(/Web\.Contents\(\s*([^,\n]+)\s*,/g)].map((match) => match[1].trim());
      expect({ style: style.id, calls: calls.length > 0 }).toEqual({ style: style.id, calls: true });
      for (const first of calls) expect({ style: style.id, first }).toEqual({ style: style.id, first: `"${BASE}"` });
      expect(code).toContain('RelativePath = ');
    }
  });

  it("when paging, then each language uses the style's own mechanism", () => {
    const code = (style: Parameters<typeof paginationSnippet>[0], language: Language) => paginationSnippet(style, language, input());
    expect(code('page', 'python')).toContain('"page": page');
    expect(code('offset', 'javascript')).toContain('offset += limit');
    expect(code('cursor', 'curl')).toContain('text next_url');
    expect(code('token', 'python')).toContain('params["pageToken"] = body["nextPageToken"]');
    expect(code('link', 'python')).toContain('answer.links.get("next"');
    expect(code('link', 'powerquery')).toContain('Value.Metadata(Response)[Headers]');
    expect(code('cursor', 'powerquery')).toContain('Uri.Parts(_[pagination][next_url])[Query]');
  });
});

describe("Power Query M snippets, read by Microsoft's own M parser", () => {
  /*
   * @microsoft/powerquery-parser is the grammar behind Microsoft's Power Query
   * tooling, not ours, so "it parses" means what Power BI Desktop would say.
   * Every M snippet the page can show: each auth and pagination style (taken
   * from the generator's own tables, so a new style is covered the day it
   * lands), with every subset of secrets on screen, with and without redirect
   * URIs and pack scopes (the notes and redirect URI differ), and under a base
   * URL that needs quoting.
   */
  const parseProblem = async (code: string): Promise<string | undefined> => {
    const task = await TaskUtils.tryLexParse(DefaultSettings, code);
    if (task.resultKind === ResultKind.Ok) return undefined;
    return `${task.stage}: ${task.error.message}`;
  };

  const secretNames = Object.keys(SECRETS) as Array<keyof ShownSecrets>;
  const secretSubsets = secretNames.reduce<ShownSecrets[]>(
    (subsets, name) => [...subsets, ...subsets.map((subset) => ({ ...subset, [name]: SECRETS[name] }))],
    [{}],
  );
  const inputs = secretSubsets.flatMap((secrets) =>
    [BASE, `https://h.example/o'k"x`].flatMap((baseUrl) =>
      [[], ['https://client.example/cb']].flatMap((redirectUris) =>
        [APP.scopes, []].map((scopes) => ({
          label: `secrets [${Object.keys(secrets).join(', ')}], base ${baseUrl}, ${redirectUris.length} redirect URI(s), ${scopes.length} scope(s)`,
          given: input({ baseUrl, app: { ...APP, scopes, redirectUris }, secrets }),
        })),
      ),
    ),
  );
  const powerQuery = LANGUAGES.find((language) => language.id === 'powerquery')!.id;
  const snippets = inputs.flatMap(({ label, given }) => [
    ...AUTH_STYLES.map((style) => ({ name: `auth ${style.id}, ${label}`, code: authSnippet(style.id, powerQuery, given) })),
    ...PAGINATION_STYLES.map((style) => ({ name: `pagination ${style.id}, ${label}`, code: paginationSnippet(style.id, powerQuery, given) })),
  ]);

  it('when the parser reads a snippet with a deliberate mistake, then it reports an error (so the test below cannot pass vacuously)', async () => {
    const good = authSnippet('api_key_header', 'powerquery', input({ secrets: SECRETS }));
    expect(await parseProblem(good)).toBeUndefined();
    // A binding without its comma, and a quote escaped the JSON way instead of M's "".
    const missingComma = good.replace(`ApiKey = "${SECRETS.apiKey}",`, `ApiKey = "${SECRETS.apiKey}"`);
    const jsonQuote = authSnippet('api_key_header', 'powerquery', input({ baseUrl: 'https://h.example/o"k' })).replace('o""k', 'o\\"k');
    expect(missingComma).not.toBe(good);
    expect(jsonQuote).toContain('o\\"k');
    expect(await parseProblem(missingComma)).toEqual(expect.any(String));
    expect(await parseProblem(jsonQuote)).toEqual(expect.any(String));
  });

  it(`when the page shows any of its ${AUTH_STYLES.length + PAGINATION_STYLES.length} styles in Power Query M, in any of ${inputs.length} states, then the M parser reads it without error`, async () => {
    expect(snippets.length).toBe((AUTH_STYLES.length + PAGINATION_STYLES.length) * inputs.length);
    const problems: Array<{ name: string; problem: string }> = [];
    for (const { name, code } of snippets) {
      const problem = await parseProblem(code);
      if (problem !== undefined) problems.push({ name, problem });
    }
    expect(problems).toEqual([]);
  });
});

describe("the page's redirect-URI check", () => {
  // The page's check must agree with identity's, which decides (docs/security.md, Redirect URIs).
  const corpus = [
    'https://client.example/callback',
    'https://client.example:8443/cb?x=1',
    'http://127.0.0.1:9/callback',
    'http://127.1/cb',
    'http://0x7f.0.0.1/cb',
    'http://localhost/cb',
    'http://[::1]:8080/cb',
    'http://[::ffff:127.0.0.1]/cb',
    'http://localhost./cb',
    'http://127.0.0.1.example/cb',
    'http://client.example/cb',
    'com.example.app:/callback',
    'myapp:/cb',
    'mailto:a@example.com',
    'javascript:alert(1)',
    'data:text/html,x',
    'https://a.example/cb#x',
    'https://a.example/cb#',
    'https://user:pass@a.example/',
    'https://@a.example/',
    'https://good.example@evil.example/',
    'https:evil.com',
    'https:/evil.com',
    'https:///evil.com',
    'https://evil.com\\@good.com/',
    ' https://a.example/',
    'https://a.example/a b',
    'java\tscript:alert(1)',
    'https://a.example/\u202e',
    '/callback',
    'client.example/cb',
    'https://a.example:99999/',
    '',
    `https://a.example/${'x'.repeat(2000)}`,
  ];

  const cases = corpus.map((uri) => [uri.length > 60 ? `${uri.slice(0, 40)}… (${uri.length} characters)` : uri, uri]);
  it.each(cases)('when the URI is %j, then the page and identity agree', (_shown, uri) => {
    expect(redirectUriProblem(uri) === undefined).toBe(identityRedirectUriProblem(uri) === undefined);
  });

  it('when the API names redirectUris[i], then the page knows the field', () => {
    expect(fieldOfRefusal('redirectUris[3] "http://x" is refused: http is allowed only …')).toBe(3);
    expect(fieldOfRefusal('redirectUris may hold at most 10 URIs (got 11).')).toBeUndefined();
  });
});
