/**
 * The one list of live-secret shapes the production-credential guard refuses
 * (spec: "the sandbox must never receive production credentials").
 *
 * Each row: an id (stable, for tests and logs), the kind of secret as the
 * refusal names it ("This looks like <kind>."), the literal triggers of the
 * pre-filter, the shortest possible match, the pattern, an optional
 * confirmation and one line of rotation advice. Adding a shape is adding a row
 * here and a positive test in test/unit/credential-guard.test.ts (a test fails
 * until every id has one).
 *
 * Rules every row keeps, so that the guard stays fast and never refuses the
 * sandbox's own values:
 * - `triggers` are case-sensitive literals at least one of which occurs in
 *   every match: text containing none of them is never run through `pattern`.
 * - A token-shaped secret starts at a boundary: not preceded by a base64url
 *   character (`(?<![A-Za-z0-9_-])`). The sandbox's own credentials (`ak_…`,
 *   `as_…`, `bt_…`, `rt_…`, `app_…`), codes, page tokens and nonces are runs of
 *   base64url characters, so no shape can start inside one; and a pattern can
 *   only start at the beginning of a run, which also keeps every scan linear
 *   (no start position re-reads another's run).
 * - Secrets with a short prefix that a random 40-character base64url value
 *   could begin with (GitHub's `ghp_`, npm's `npm_`) must pass their checksum;
 *   fixed-length keys (AWS, Google) must also end at a boundary.
 * - `minLength` is the shortest string the pattern can match; strings shorter
 *   than the smallest of them are not scanned at all.
 */

export type Confirmation =
  /** GitHub's and npm's token checksum: CRC-32 of the random part, base62, in the last six characters. */
  | 'crc32-base62-checksum'
  /** A JWT whose `iss` is an https URL of a host that is not the sandbox's, nor a reserved example name. */
  | 'foreign-jwt-issuer';

export interface SecretPattern {
  readonly id: string;
  /** Completes "This looks like <kind>."; for `foreign-jwt-issuer` the guard names the issuing host instead. */
  readonly kind: string;
  readonly triggers: readonly string[];
  readonly minLength: number;
  /** Not global, not sticky: `test` keeps no state between calls. */
  readonly pattern: RegExp;
  readonly confirm?: Confirmation;
  /** The same secret recognised from a field's name and its value apart (a JSON key, a form field, a header). */
  readonly field?: { readonly name: RegExp; readonly value: RegExp };
  readonly advice: string;
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    id: 'aws-access-key-id',
    kind: 'an AWS access key ID',
    // AKIA long-term, ASIA temporary (STS), ABIA and ACCA service-specific keys.
    triggers: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    minLength: 20,
    // Exactly 20 characters and not inside a longer base64 or base64url run, so
    // it cannot match inside a Basic header's base64 or a longer random value.
    pattern: /(?<![A-Za-z0-9+/_-])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9+/_-])/,
    advice: "Deactivate the key in AWS IAM (the user's or role's security credentials), create a new one, and look in CloudTrail for use of the old one.",
  },
  {
    id: 'aws-secret-access-key',
    kind: 'an AWS secret access key',
    // 40 base64 characters are too common to refuse on their own; the name in
    // front of them (aws_secret_access_key=, "SecretAccessKey": …) is the signal.
    triggers: ['ecret', 'ECRET'],
    minLength: 53,
    pattern: /(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)["']?\s*(?:=>|[:=])\s*["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/i,
    field: {
      name: /aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key/i,
      value: /^[A-Za-z0-9/+]{40}$/,
    },
    advice: 'Deactivate the access key pair in AWS IAM, create a new one, and look in CloudTrail for use of the old one.',
  },
  {
    id: 'github-pat',
    kind: 'a GitHub personal access token',
    triggers: ['ghp_'],
    minLength: 40,
    pattern: /(?<![A-Za-z0-9_-])ghp_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_-])/,
    confirm: 'crc32-base62-checksum',
    advice: 'Delete the token in GitHub under Settings → Developer settings → Personal access tokens, and create a new one.',
  },
  {
    id: 'github-oauth-token',
    kind: 'a GitHub OAuth access token',
    triggers: ['gho_'],
    minLength: 40,
    pattern: /(?<![A-Za-z0-9_-])gho_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_-])/,
    confirm: 'crc32-base62-checksum',
    advice: "Revoke the OAuth app's authorization in GitHub under Settings → Applications, and authorize again.",
  },
  {
    id: 'github-user-to-server-token',
    kind: 'a GitHub App user access token',
    triggers: ['ghu_'],
    minLength: 40,
    pattern: /(?<![A-Za-z0-9_-])ghu_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_-])/,
    confirm: 'crc32-base62-checksum',
    advice: "Revoke the GitHub App's authorization in GitHub under Settings → Applications, and authorize again.",
  },
  {
    id: 'github-server-to-server-token',
    kind: 'a GitHub App installation access token',
    triggers: ['ghs_'],
    minLength: 40,
    pattern: /(?<![A-Za-z0-9_-])ghs_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_-])/,
    confirm: 'crc32-base62-checksum',
    advice:
      "Revoke the installation token through GitHub's API (DELETE /installation/token) and, if the App's private key may be exposed too, replace that key.",
  },
  {
    id: 'github-refresh-token',
    kind: 'a GitHub App refresh token',
    triggers: ['ghr_'],
    minLength: 40,
    pattern: /(?<![A-Za-z0-9_-])ghr_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_-])/,
    confirm: 'crc32-base62-checksum',
    advice: "Revoke the GitHub App's authorization in GitHub under Settings → Applications, and authorize again.",
  },
  {
    id: 'github-fine-grained-pat',
    kind: 'a GitHub fine-grained personal access token',
    triggers: ['github_pat_'],
    minLength: 93,
    pattern: /(?<![A-Za-z0-9_-])github_pat_[A-Za-z0-9]{22,}_[A-Za-z0-9]{59,}/,
    advice: 'Delete the token in GitHub under Settings → Developer settings → Fine-grained tokens, and create a new one.',
  },
  {
    id: 'gitlab-pat',
    kind: 'a GitLab access token',
    // Personal, project and group access tokens, legacy and routable formats.
    triggers: ['glpat-'],
    minLength: 26,
    pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/,
    advice: "Revoke the token in GitLab (your user settings, or the project's or group's Access tokens page) and create a new one.",
  },
  {
    id: 'gitlab-token',
    kind: 'a GitLab token',
    // GitLab's other documented prefixes: pipeline trigger, deploy, runner,
    // feed, SCIM, OAuth application secret, CI/CD job, agent, incoming mail, feature flags.
    triggers: ['glptt-', 'gldt-', 'glrt-', 'glft-', 'glsoat-', 'gloas-', 'glcbt-', 'glagent-', 'glimt-', 'glffct-'],
    minLength: 25,
    pattern: /(?<![A-Za-z0-9_-])(?:glptt|gldt|glrt|glft|glsoat|gloas|glcbt|glagent|glimt|glffct)-[A-Za-z0-9_-]{20,}/,
    advice: 'Revoke or reset the token where GitLab issued it (project, group or user settings) and create a new one.',
  },
  {
    id: 'slack-token',
    kind: 'a Slack token',
    // xoxb- bot, xoxp- user, xoxa-/xoxr- workspace (legacy), xoxe- rotating,
    // xoxo-/xoxs- legacy: every format continues with a number and a dash.
    triggers: ['xox'],
    minLength: 17,
    pattern: /(?<![A-Za-z0-9_-])xox[abeoprs]-\d+-[A-Za-z0-9-]{10,}/,
    advice: "Revoke the token in the Slack app's settings (OAuth & Permissions), or rotate it, and reinstall the app if needed.",
  },
  {
    id: 'slack-app-token',
    kind: 'a Slack app-level token',
    triggers: ['xapp-'],
    minLength: 41,
    pattern: /(?<![A-Za-z0-9_-])xapp-\d-[A-Za-z0-9]{6,}-\d{6,}-[A-Za-z0-9]{20,}/,
    advice: "Revoke the app-level token in the Slack app's Basic Information settings and generate a new one.",
  },
  {
    id: 'slack-webhook-url',
    kind: 'a Slack webhook URL',
    triggers: ['hooks.slack.com'],
    minLength: 53,
    pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/T[A-Za-z0-9]{6,}\/[A-Za-z0-9/_-]{20,}/,
    advice: "Remove the webhook in the Slack app's Incoming Webhooks settings (or the workflow) and create a new one.",
  },
  {
    id: 'stripe-live-key',
    kind: 'a Stripe live-mode secret key',
    // sk_live_ secret and rk_live_ restricted keys; test-mode (sk_test_) and
    // publishable (pk_live_) keys are not production secrets.
    triggers: ['_live_'],
    minLength: 24,
    pattern: /(?<![A-Za-z0-9_-])[sr]k_live_[A-Za-z0-9]{16,}/,
    advice: 'Roll the key in the Stripe Dashboard under Developers → API keys, and practise with test-mode keys.',
  },
  {
    id: 'google-api-key',
    kind: 'a Google API key',
    triggers: ['AIza'],
    minLength: 39,
    // Exactly 39 characters, not inside a longer base64 or base64url run.
    pattern: /(?<![A-Za-z0-9+/_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9+/_-])/,
    advice: 'Regenerate or delete the key in the Google Cloud console under APIs & Services → Credentials, and restrict the new one.',
  },
  {
    id: 'google-oauth-client-secret',
    kind: 'a Google OAuth client secret',
    triggers: ['GOCSPX-'],
    minLength: 35,
    pattern: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/,
    advice: "Reset the client's secret in the Google Cloud console under APIs & Services → Credentials.",
  },
  {
    id: 'private-key',
    kind: 'a private key',
    // PKCS#8, RSA, EC, DSA, OPENSSH, ENCRYPTED and PGP blocks; the header alone
    // suffices (the sandbox never needs a private key). Public keys and certificates pass.
    triggers: ['PRIVATE KEY'],
    minLength: 27,
    pattern: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/,
    advice: 'Treat the key pair as compromised: replace it, revoke any certificate issued for it, and remove the old public key wherever it is trusted.',
  },
  {
    id: 'jwt-foreign-issuer',
    kind: 'a JWT issued by another identity provider',
    // A JWT (a JSON header with alg, "eyJ" in base64url) whose iss is an https
    // URL of another host: a real identity provider's token. The sandbox's own
    // tokens, made-up ones (no iss, a non-URL or http iss, a reserved example
    // host) and the configured portal identity provider's pass.
    triggers: ['eyJ'],
    minLength: 29,
    // Header and payload only: the signature is never read.
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}\./,
    confirm: 'foreign-jwt-issuer',
    advice: 'Sign out of the session it belongs to or revoke it at its identity provider: until it expires, it lets anyone act as its subject.',
  },
  {
    id: 'npm-token',
    kind: 'an npm access token',
    triggers: ['npm_'],
    minLength: 40,
    pattern: /(?<![A-Za-z0-9_-])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_-])/,
    confirm: 'crc32-base62-checksum',
    advice: 'Delete the token on npm (Access Tokens in your account) and create a new one.',
  },
  {
    id: 'pypi-token',
    kind: 'a PyPI API token',
    // A macaroon whose first field names pypi.org.
    triggers: ['pypi-AgEIcHlwaS5vcmc'],
    minLength: 70,
    pattern: /(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/,
    advice: 'Remove the token on PyPI (Account settings → API tokens) and create a new one.',
  },
  {
    id: 'openai-api-key',
    kind: 'an OpenAI API key',
    // Every format (sk-, sk-proj-, sk-svcacct-, sk-admin-) carries "T3BlbkFJ", base64 of "OpenAI".
    triggers: ['T3BlbkFJ'],
    minLength: 51,
    pattern: /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}/,
    advice: "Revoke the key in the OpenAI platform's API keys page and create a new one.",
  },
  {
    id: 'anthropic-api-key',
    kind: 'an Anthropic API key',
    triggers: ['sk-ant-'],
    minLength: 93,
    pattern: /(?<![A-Za-z0-9_-])sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}/,
    advice: "Delete the key in the Anthropic Console's API keys page and create a new one.",
  },
  {
    id: 'sendgrid-api-key',
    kind: 'a SendGrid API key',
    triggers: ['SG.'],
    minLength: 69,
    pattern: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/,
    advice: 'Delete the key in SendGrid under Settings → API Keys and create a new one.',
  },
  {
    id: 'shopify-token',
    kind: 'a Shopify access token or shared secret',
    // shpat_ Admin API, shpca_ custom app, shppa_ private app tokens; shpss_ shared secrets.
    triggers: ['shpat_', 'shpca_', 'shppa_', 'shpss_'],
    minLength: 38,
    pattern: /(?<![A-Za-z0-9_-])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9_-])/,
    advice: "Rotate the token or secret in the app's settings in the Shopify admin (or the Partner Dashboard).",
  },
];
