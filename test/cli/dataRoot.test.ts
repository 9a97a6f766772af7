import fs from 'node:fs';
import path from 'node:path';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

describe('the data root is checked at start', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer();
  });
  afterEach(async () => {
    await fake.close();
    tmp.cleanup();
  });

  it('chat with MINUTES_DATA_DIR naming a file: one line, exit 2, no model call, nothing answered', async () => {
    const file = path.join(tmp.dir, 'passwd');
    fs.writeFileSync(file, 'root:x:0:0::/root:/bin/sh\n');
    const r = await runCli(['chat', '--channel', 'ops'], {
      env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: file },
      cwd: tmp.dir,
      input: ['hello'],
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/data root .*passwd.* is not a folder.*MINUTES_DATA_DIR/);
    expect(fake.requests).toHaveLength(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('root:x:0:0::/root:/bin/sh\n');
  });
});
