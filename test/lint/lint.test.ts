import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The formatter and the linter run as tests, so `npm test` counts their
 * findings with everything else and names each one. They run the same
 * binaries a developer runs (`npx prettier --write .`, `npx eslint .`).
 */
const ROOT = resolve(__dirname, '../..');
const bin = (name: string) => resolve(ROOT, 'node_modules/.bin', name);
const run = (name: string, args: string[]) => spawnSync(bin(name), args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

interface EslintFile {
  filePath: string;
  messages: { ruleId: string | null; line: number; message: string }[];
}

describe('the code as it is written', () => {
  it('when Prettier checks every file it formats, then none needs reformatting (fix with npx prettier --write .)', () => {
    const result = run('prettier', ['--list-different', '.']);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([]);
  });

  it('when ESLint reads the tree, then it finds no import cycle, no import against the layers and nothing else (docs/decisions.md, "Layers")', () => {
    const result = run('eslint', ['--format', 'json', '.']);
    const files = JSON.parse(result.stdout) as EslintFile[];
    const findings = files.flatMap((file) =>
      file.messages.map((m) => `${file.filePath.slice(ROOT.length + 1)}:${m.line} ${m.ruleId ?? 'parse'}: ${m.message}`),
    );
    expect(findings).toEqual([]);
  });
});
