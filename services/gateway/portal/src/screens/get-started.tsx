import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Issued } from '../api';
import { CopyButton } from '../components/copy';
import { LoadingOrError } from '../components/error-text';
import { useApp } from '../components/hooks';
import {
  AUTH_STYLES,
  authSnippet,
  baseUrlFromPage,
  dataTarget,
  LANGUAGES,
  PAGINATION_STYLES,
  paginationSnippet,
  snippetRedirectUri,
  type AuthStyle,
  type PaginationStyle,
  type SnippetInput,
} from '../snippets';

const isAuthStyle = (id: string | undefined): id is AuthStyle => AUTH_STYLES.some((s) => s.id === id);
const isPageStyle = (id: string | undefined): id is PaginationStyle => PAGINATION_STYLES.some((s) => s.id === id);

/** `style`: the snippet to show first (#/apps/<id>/start/<style>, from an exercise); its section's heading gets the focus. */
export function GetStartedScreen({ id, style, revealed }: { id: string; style?: string; revealed?: Issued }) {
  const { app, loadError } = useApp(id);
  const [authStyle, setAuthStyle] = useState<AuthStyle>(isAuthStyle(style) ? style : 'api_key_header');
  const [pageStyle, setPageStyle] = useState<PaginationStyle>(isPageStyle(style) ? style : 'page');
  const heading = useRef<HTMLHeadingElement>(null);
  const authHeading = useRef<HTMLHeadingElement>(null);
  const pageHeading = useRef<HTMLHeadingElement>(null);
  const baseUrl = useMemo(() => baseUrlFromPage(location.href), []);

  useEffect(() => {
    if (isAuthStyle(style)) setAuthStyle(style);
    if (isPageStyle(style)) setPageStyle(style);
  }, [style]);

  useEffect(() => {
    const target = app && isAuthStyle(style) ? authHeading.current : app && isPageStyle(style) ? pageHeading.current : heading.current;
    target?.focus();
    if (target !== heading.current) target?.scrollIntoView({ block: 'start' });
  }, [app === undefined, style]);

  if (!app) {
    return (
      <>
        <p class="crumbs">
          <a href={`#/apps/${id}`}>← Back to the app</a>
        </p>
        <h1 ref={heading} tabIndex={-1}>
          Get started
        </h1>
        <LoadingOrError error={loadError} loading="Loading the app…" />
      </>
    );
  }

  const input: SnippetInput = { baseUrl, app, secrets: revealed };
  const target = dataTarget(app.scopes);
  const redirect = snippetRedirectUri(app);
  const auth = AUTH_STYLES.find((s) => s.id === authStyle)!;
  const paging = PAGINATION_STYLES.find((s) => s.id === pageStyle)!;
  const filled = revealed && (revealed.appSecret || revealed.apiKey || revealed.bearerToken);

  return (
    <>
      <p class="crumbs">
        <a href={`#/apps/${app.id}`}>← Back to {app.name}</a>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Get started with {app.name}
      </h1>
      <dl class="facts">
        <div>
          <dt>Base URL</dt>
          <dd>
            <code>{baseUrl}</code>
          </dd>
        </div>
        <div>
          <dt>App ID</dt>
          <dd>
            <code>{app.appId}</code>
          </dd>
        </div>
        <div>
          <dt>Data used</dt>
          <dd>
            <code>{target.smallPath}</code> and, for paging, <code>{target.largePath}</code> ({target.scope})
          </dd>
        </div>
      </dl>
      {filled ? (
        <p class="warning">The code below holds the credentials you have on screen right now. Keep it to yourself: anyone with it can act as {app.name}.</p>
      ) : (
        <p class="notice">
          Secrets appear as placeholders such as <code>&lt;YOUR_API_KEY&gt;</code>: put in the values you saved when the app was created or its credentials were
          rotated.
        </p>
      )}
      {!target.held && <p class="warning">This app holds no pack scope, so every data request answers 403. Add one under Scopes on the app's page.</p>}
      {app.status === 'revoked' && <p class="warning">This app is revoked: every snippet here will be refused (401).</p>}

      <section aria-labelledby="auth-title">
        <h2 id="auth-title" ref={authHeading} tabIndex={-1}>
          Authentication styles
        </h2>
        <div class="field">
          <label for="auth-style">Style</label>
          <select id="auth-style" value={authStyle} onChange={(e) => setAuthStyle(e.currentTarget.value as AuthStyle)}>
            {AUTH_STYLES.map((style) => (
              <option key={style.id} value={style.id}>
                {style.title}
              </option>
            ))}
          </select>
        </div>
        <p>{auth.how}</p>
        {authStyle === 'oauth2_authorization_code' && !redirect.registered && (
          <p class="warning">
            Register <code>{redirect.uri}</code> (or your own) as a redirect URI of this app first: the code below uses it.
          </p>
        )}
        {authStyle === 'hmac' && (
          <p class="hint">Behind a proxy that adds a path prefix, sign the path as the sandbox receives it (below the base URL), as the code does.</p>
        )}
        {LANGUAGES.map((language) => (
          <Snippet
            key={`auth-${authStyle}-${language.id}`}
            id={`auth-${language.id}`}
            title={language.title}
            code={authSnippet(authStyle, language.id, input)}
          />
        ))}
      </section>

      <section aria-labelledby="paging-title">
        <h2 id="paging-title" ref={pageHeading} tabIndex={-1}>
          Pagination styles
        </h2>
        <div class="field">
          <label for="page-style">Style</label>
          <select id="page-style" value={pageStyle} onChange={(e) => setPageStyle(e.currentTarget.value as PaginationStyle)}>
            {PAGINATION_STYLES.map((style) => (
              <option key={style.id} value={style.id}>
                {style.title}
              </option>
            ))}
          </select>
        </div>
        <p>{paging.how} Each page is read with the API key in the x-api-key header.</p>
        {LANGUAGES.map((language) => (
          <Snippet
            key={`page-${pageStyle}-${language.id}`}
            id={`page-${language.id}`}
            title={language.title}
            code={paginationSnippet(pageStyle, language.id, input)}
          />
        ))}
      </section>
    </>
  );
}

function Snippet({ id, title, code }: { id: string; title: string; code: string }) {
  return (
    <div class="snippet">
      <div class="snippet-head">
        <h3 id={`${id}-title`}>{title}</h3>
        <CopyButton text={code} what={`${title} code`} targetId={`${id}-code`} />
      </div>
      <pre aria-labelledby={`${id}-title`}>
        <code id={`${id}-code`}>{code}</code>
      </pre>
    </div>
  );
}
