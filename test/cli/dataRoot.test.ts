import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';

describe('the data root is checked at start', () => {
  const world = withTmpAndFakeModel();

  it('chat with MINUTES_DATA_DIR naming a file: one line, exit 2, no model call, nothing answered', async () => {
    const file = path.join(world.tmp.dir, 'passwd');
    fs.writeFileSync(file, 'root:x:0:0::/root:/bin/sh\n');
    const r = await runCli(['chat', '--channel', 'ops'], {
      env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: world.fake.anthropicBaseURL, MINUTES_DATA_DIR: file },
      cwd: world.tmp.dir,
      input: ['hello'],
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/data root .*passwd.* is not a folder.*MINUTES_DATA_DIR/);
    expect(world.fake.requests).toHaveLength(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('root:x:0:0::/root:/bin/sh\n');
  });
});
