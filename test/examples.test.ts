import fs from 'node:fs';
import path from 'node:path';
import { makeTmpDir } from './helpers/tmp';

/**
 * examples/ is what a newcomer looks at first (README, "Try it first"). It is made by the product's
 * own pipeline (scripts/make-example.js, `npm run example`), so a change in what Minutes writes
 * must come with the example regenerated: this test makes it again and compares every file, byte
 * for byte, hidden state included. The script needs dist/ (`npm test` builds it first).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeExample } = require('../scripts/make-example.js') as { makeExample: (out: string) => Promise<void> };

const EXAMPLES = path.join(__dirname, '..', 'examples');

function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p).split(path.sep).join('/'), fs.readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

describe('the example data root', () => {
  const tmp = makeTmpDir();
  afterAll(() => tmp.cleanup());

  it('is what `npm run example` makes, byte for byte (run it after changing what Minutes writes)', async () => {
    const fresh = path.join(tmp.dir, 'examples');
    await makeExample(fresh);
    const want = tree(fresh);
    const have = tree(EXAMPLES);
    expect([...have.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [file, bytes] of want) expect({ file, text: have.get(file)?.toString('utf8') }).toEqual({ file, text: bytes.toString('utf8') });
    // What the README promises a newcomer sees: a replaced decision, open action items, an open
    // question (and one answered), a playbook, memory.
    const context = fs.readFileSync(path.join(EXAMPLES, 'local', 'orders-team', 'CONTEXT.md'), 'utf8');
    expect(context).toMatch(/## Superseded Decisions\n\n- ~~/);
    // A decision a member ratified (issue 43 §1), and one the Secretary recorded that nobody confirmed yet.
    expect(context).toMatch(/^\d\. .*Postgres 16.* — ratified by bea \(2026-11-16\)$/m);
    expect(context).toMatch(/^\d\. .*releases go out.* — proposed$/m);
    expect(context).toMatch(/## Open Action Items\n\n- `a-[0-9a-f]{6}`/);
    expect(context).toMatch(/## Open Questions\n\n- `q-[0-9a-f]{6}`/);
    expect(context).toMatch(/## Playbooks\n\n- \*\*Cut a release:\*\*/);
    expect(fs.readFileSync(path.join(EXAMPLES, 'local', 'orders-team', 'MEMORY.md'), 'utf8')).toMatch(/Question q-[0-9a-f]{6} answered/);
    expect(fs.readdirSync(path.join(EXAMPLES, 'local', 'orders-team', 'condensations')).length).toBeGreaterThanOrEqual(3);
  });
});
