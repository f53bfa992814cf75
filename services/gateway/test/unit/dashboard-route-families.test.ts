import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UNMATCHED } from '../../src/http/server';
import { routeTable } from '../../src/openapi/offline-document';

// The chart's Grafana dashboard (deploy/helm/training-sandbox/files/dashboard.json)
// shows traffic by route family. The family is not a label of the HTTP series
// (docs/metrics.md), so the panel derives it from the route pattern with a
// chain of label_replace calls; this checks that chain against the family
// every row declares, so a new route or family cannot drift from the panel.

const DASHBOARD = join(__dirname, '..', '..', '..', '..', 'deploy', 'helm', 'training-sandbox', 'files', 'dashboard.json');
const PANEL = 'Requests by route family';

/** The panel's (family, pattern) pairs, in the order PromQL applies them (innermost first). */
function familyRules(): { family: string; pattern: RegExp }[] {
  const panel = (JSON.parse(readFileSync(DASHBOARD, 'utf8')).panels as { title: string; targets?: { expr: string }[] }[]).find((p) => p.title === PANEL);
  if (!panel?.targets?.[0]) throw new Error(`no panel "${PANEL}" with a query in the dashboard`);
  const calls = [...panel.targets[0].expr.matchAll(/"family", "(\w+)", "route", "((?:[^"\\]|\\.)*)"/g)];
  // A PromQL string unescaped (\\ is one backslash), and anchored at both ends as label_replace anchors it.
  return calls.map(([, family, pattern]) => ({ family: family!, pattern: new RegExp(`^(?:${pattern!.replace(/\\\\/g, '\\')})$`) }));
}

/** What the panel makes of a route label: each matching label_replace overwrites the family. */
function familyOf(route: string): string | undefined {
  let family: string | undefined;
  for (const rule of familyRules()) if (rule.pattern.test(route)) family = rule.family;
  return family;
}

describe("the dashboard's route families", () => {
  it('when the panel is read, then it names every family once', () => {
    const families = familyRules().map((rule) => rule.family);
    expect([...families].sort()).toEqual(['auth', 'data', 'http', 'oauth1', 'oauth2', 'operators', 'portal', 'system']);
  });

  it("when every row's pattern is classified as the panel does, then it gets the family the row declares", () => {
    const rows = routeTable();
    expect(rows.length).toBeGreaterThan(40);
    const wrong = rows.map((row) => ({ route: row.path, declared: row.family, panel: familyOf(row.path) })).filter((one) => one.panel !== one.declared);
    expect(wrong).toEqual([]);
  });

  it('when no row served the request, then the panel counts it as system, as the usage counts do', () => {
    expect(familyOf(UNMATCHED)).toBe('system');
  });
});
