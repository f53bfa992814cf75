// `npm run build:guides` (part of `npm run build`, after build:docs): the
// project's guides, docs/*.md, rendered to HTML with marked (GFM, tables on)
// and written to services/gateway/dist/guides, which the gateway serves at
// /guides/ under the pages' Content-Security-Policy (so: no inline script or
// style; one stylesheet, guides/guides.css, copied beside the pages).
//
// - Every heading gets the id GitHub gives it (github-slugger, per page), so
//   an exercise's `docs` (`docs/auth-playground.md#basic`) is also the address
//   of its section here (`auth-playground.html#basic`); the identity service's
//   unit test checks the anchors with the same rule.
// - Links between guides (`oauth.md#x`, `./oauth.md`) point at the pages
//   (`oauth.html#x`); links that leave docs/ (`../bench/…`) become plain text,
//   since those files are not served.
// - Raw HTML in the Markdown is escaped, shown as the text it is: our guides
//   use `<release>`-style placeholders in prose, which a browser would
//   otherwise swallow as unknown tags (and the CSP would block any script).
// - Every URL is relative, so the pages work behind a proxy prefix.
'use strict';

const { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const DOCS = join(__dirname, '..', '..', '..', 'docs');
const OUT = join(__dirname, '..', 'dist', 'guides');
const STYLESHEET = join(__dirname, '..', 'guides', 'guides.css');

const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A heading's text as GitHub slugs it: the inline tokens' text, without Markdown (code spans, links, emphasis). */
function plainText(tokens) {
  return tokens.map((t) => (t.tokens ? plainText(t.tokens) : (t.text ?? ''))).join('');
}

/** `oauth.md#x` → `oauth.html#x`; undefined for a link that leaves docs/ (the file is not served). */
function guideHref(href, guides) {
  if (/^([a-z][a-z0-9+.-]*:|#)/i.test(href)) return href;
  const match = /^(?:\.\/)?([^/#?]+)\.md(#.*)?$/.exec(href);
  if (match && guides.has(match[1])) return `${match[1]}.html${match[2] ?? ''}`;
  return undefined;
}

function page({ title, body }) {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)} · Training Sandbox guides</title>
    <link rel="stylesheet" href="guides.css" />
  </head>
  <body>
    <header class="site">
      <nav aria-label="Site">
        <a href="../portal/">Training Sandbox portal</a>
        <a href="index.html">Guides</a>
        <a href="../docs/">API reference</a>
      </nav>
    </header>
    <main>
${body}
    </main>
  </body>
</html>
`;
}

async function main() {
  const { Marked, Renderer } = await import('marked');
  const { default: GithubSlugger } = await import('github-slugger');

  const files = readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .sort();
  const guides = new Set(files.map((f) => f.slice(0, -'.md'.length)));
  // index.html is the list of guides; a docs/index.md would overwrite it.
  if (guides.has('index')) throw new Error('docs/index.md would be served as the guides index: rename it');
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });

  const index = [];
  for (const file of files) {
    const name = file.slice(0, -'.md'.length);
    const slugger = new GithubSlugger();
    let title;
    /** The latest heading's text and the tables so far: what names a table's scrolling box. */
    let section;
    let tables = 0;
    const marked = new Marked({
      gfm: true,
      renderer: {
        heading({ tokens, depth }) {
          const text = plainText(tokens);
          if (depth === 1 && title === undefined) title = text;
          section = text;
          return `<h${depth} id="${escapeHtml(slugger.slug(text))}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
        },
        link({ href, title: linkTitle, tokens }) {
          const inner = this.parser.parseInline(tokens);
          const target = guideHref(href, guides);
          if (target === undefined) return inner;
          return `<a href="${escapeHtml(target)}"${linkTitle ? ` title="${escapeHtml(linkTitle)}"` : ''}>${inner}</a>`;
        },
        html({ text }) {
          return escapeHtml(text);
        },
        // A wide table or code block scrolls inside its own box at phone
        // width; the box takes focus so it can be scrolled from the keyboard.
        // Each box is a region named after its section and place, unique in the page.
        table(token) {
          tables += 1;
          const label = `Table ${tables}${section ? `, in “${section}”` : ''}`;
          return `<div class="scroll" tabindex="0" role="region" aria-label="${escapeHtml(label)}">${Renderer.prototype.table.call(this, token)}</div>\n`;
        },
        // An empty header cell (a table's blank corner) is a plain cell: a header names something.
        tablecell(token) {
          if (token.header && token.text.trim() === '') return `<td></td>\n`;
          return Renderer.prototype.tablecell.call(this, token);
        },
        code({ text, lang }) {
          const language = (lang ?? '').match(/^\S*/)[0];
          const cls = language ? ` class="language-${escapeHtml(language)}"` : '';
          return `<pre tabindex="0"><code${cls}>${escapeHtml(text)}</code></pre>\n`;
        },
      },
    });
    const body = marked.parse(readFileSync(join(DOCS, file), 'utf8'));
    title ??= name;
    writeFileSync(join(OUT, `${name}.html`), page({ title, body }));
    index.push({ name, title });
  }

  const list = index.map((g) => `        <li><a href="${g.name}.html">${escapeHtml(g.title)}</a> <span class="file">${g.name}.md</span></li>`).join('\n');
  writeFileSync(
    join(OUT, 'index.html'),
    page({
      title: 'Guides',
      body: `      <h1 id="guides">Guides</h1>
      <p>The project's documentation, as in its repository's <code>docs/</code> directory: how each part works and why.</p>
      <ul class="guides">
${list}
      </ul>`,
    }),
  );
  copyFileSync(STYLESHEET, join(OUT, 'guides.css'));
  console.log(`guides: ${index.length} pages in ${OUT}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
