/*
 * The gateway serves the project's guides, docs/*.md rendered to HTML, at
 * /guides/<name>.html (scripts/build-guides.cjs), each heading with the id
 * GitHub gives it. An exercise names its section as a path in the repository,
 * `docs/auth-playground.md#jwt`; these map it to the page's address. Relative
 * (the portal is at …/portal/), so it works behind a proxy prefix. Pure, so
 * the unit test reads it as the page does.
 */

const DOC_PATH = /^docs\/([a-z0-9][a-z0-9-]*)\.md(?:#([^#\s]*))?$/;

/** `docs/auth-playground.md#jwt` → `../guides/auth-playground.html#jwt`; undefined for anything that is not a guide. */
export function guideHref(docs: string): string | undefined {
  const match = DOC_PATH.exec(docs);
  if (!match) return undefined;
  const anchor = match[2] ? `#${encodeURIComponent(match[2])}` : '';
  return `../guides/${match[1]}.html${anchor}`;
}
