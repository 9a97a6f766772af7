import fs from 'node:fs';
import path from 'node:path';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { runCli } from '../helpers/cli';
import { knowledgeModel } from '../helpers/knowledgeModel';
import { makeTmpDir } from '../helpers/tmp';

/** `minutes condense` writes a playbook's file with --apply, and its dry run shows what a change would do to it. */
describe('offline condense with a playbook', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer({ handler: knowledgeModel() });
  });
  afterEach(async () => {
    await fake.close();
    tmp.cleanup();
  });

  const transcript = (name: string, start: string, lines: [string, string][]) => {
    const file = path.join(tmp.dir, name);
    fs.writeFileSync(
      file,
      lines.map(([author, content], i) => JSON.stringify({ author, timestamp: new Date(Date.parse(start) + i * 60_000).toISOString(), content })).join('\n') +
        '\n',
    );
    return file;
  };

  it('lists the playbook among the files written, and the dry run of a change shows the old steps struck through', async () => {
    const dir = path.join(tmp.dir, 'chan');
    fs.mkdirSync(dir);
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL };
    const first = transcript('a.jsonl', '2026-11-10T09:00:00Z', [
      ['al', 'decision: releases go out on Tuesdays'],
      ['bea', 'playbook: Cut a release: freeze; tag'],
    ]);
    const applied = await runCli(['condense', '--channel-dir', dir, '--transcript', first, '--apply'], { env, cwd: tmp.dir });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('  playbooks/cut-a-release.md\n');
    const before = fs.readFileSync(path.join(dir, 'playbooks', 'cut-a-release.md'), 'utf8');
    const second = transcript('b.jsonl', '2026-11-17T09:00:00Z', [
      ['al', 'decision: releases need a changelog'],
      ['bea', 'playbook: Cut a release: freeze; changelog; tag'],
    ]);
    const dry = await runCli(['condense', '--channel-dir', dir, '--transcript', second], { env, cwd: tmp.dir });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('playbooks/cut-a-release.md');
    expect(dry.stdout).toContain('+1. ~~freeze~~');
    expect(dry.stdout).toContain('+2. changelog');
    expect(fs.readFileSync(path.join(dir, 'playbooks', 'cut-a-release.md'), 'utf8')).toBe(before);
  });
});
