import { guideHref } from '../../portal/src/guides';

/*
 * The exercises' links into the guides (portal/src/guides.ts): an exercise's
 * `docs` path in the repository becomes the address of its section under
 * /guides/, relative to the portal's own address (so a proxy prefix is kept).
 * That every such anchor is an id in its page is proven against the served
 * pages by test/integration/guides.test.ts.
 */
describe('portal links to the guides', () => {
  it.each([
    ['docs/auth-playground.md#jwt', '../guides/auth-playground.html#jwt'],
    ['docs/http-practice.md#batch-post-playgroundbatch', '../guides/http-practice.html#batch-post-playgroundbatch'],
    ['docs/errors.md', '../guides/errors.html'],
  ])('when %s is linked, then the link is %s', (docs, href) => {
    expect(guideHref(docs)).toBe(href);
  });

  it('when the link is resolved against the portal behind a proxy prefix, then it stays under that prefix', () => {
    expect(new URL(guideHref('docs/oauth.md#pkce')!, 'https://host.example/sandbox/portal/#/exercises').href).toBe(
      'https://host.example/sandbox/guides/oauth.html#pkce',
    );
  });

  it('when a path is not a guide (outside docs/, not Markdown, climbing out, a full URL), then there is no link', () => {
    for (const docs of [
      'bench/README.md',
      'docs/notes.txt',
      'docs/../package.json',
      'docs/sub/x.md',
      'https://example.org/x.md',
      'javascript:alert(1)//docs/x.md',
      '',
    ])
      expect({ docs, href: guideHref(docs) }).toEqual({ docs, href: undefined });
  });
});
