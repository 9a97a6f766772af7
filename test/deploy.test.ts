import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTmpDir } from './helpers/tmp';

/**
 * The deployment files, checked as far as this machine allows: no Docker engine runs here, so the
 * Dockerfile is read, not built; systemd's own checker reads the unit when it is installed. The
 * production install itself runs in CI (.ci/production).
 */
const root = path.join(__dirname, '..');
const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; engines: { node: string } };

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

/** The unit's keys per section; a key given twice keeps every value. */
function unitKeys(text: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[(\w+)\]$/.exec(line);
    if (head) {
      section = head[1];
      out[section] = {};
      continue;
    }
    const kv = /^(\w+)=(.*)$/.exec(line);
    if (!kv || !section) throw new Error(`not a unit file line: ${line}`);
    (out[section][kv[1]] ??= []).push(kv[2]);
  }
  return out;
}

describe('Dockerfile', () => {
  const ins = instructions(read('Dockerfile'));
  const stages = ins.filter((i) => i.op === 'FROM');
  const final = ins.slice(ins.lastIndexOf(stages[stages.length - 1]));

  it('builds in one stage and runs a slim Node 20 image with only the production dependencies', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.args).toMatch(/^node:20[-.\w]*/);
    expect(stages[stages.length - 1].args).toMatch(/^node:20[-.\w]*slim/);
    const build = ins.slice(0, ins.indexOf(stages[1]));
    expect(build.filter((i) => i.op === 'RUN').map((i) => i.args)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^npm ci\b(?!.*--omit)/), 'npm run build']),
    );
    const runs = final.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs).toEqual(expect.arrayContaining([expect.stringMatching(/^npm ci --omit=dev\b/)]));
    expect(final.find((i) => i.op === 'COPY' && /--from=\S+ \/app\/dist/.test(i.args))).toBeDefined();
  });

  it('runs as a user that is not root, with the data root as its volume', () => {
    const user = final.filter((i) => i.op === 'USER').map((i) => i.args);
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    const dataDir = /MINUTES_DATA_DIR=(\S+)/.exec(
      final
        .filter((i) => i.op === 'ENV')
        .map((i) => i.args)
        .join(' '),
    )?.[1];
    expect(dataDir).toBe('/data');
    expect(final.filter((i) => i.op === 'VOLUME').map((i) => i.args)).toEqual([dataDir]);
    // The volume's folder belongs to that user, or the bot cannot write its memory.
    expect(final.some((i) => i.op === 'RUN' && i.args.includes(`chown ${user[0]}`) && i.args.includes(dataDir!))).toBe(true);
  });

  it('every file it copies exists, the npm scripts it runs exist, and it starts the bot', () => {
    for (const i of ins.filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
      const sources = i.args.split(/\s+/).slice(0, -1);
      for (const s of sources) expect([s, fs.existsSync(path.join(root, s))]).toEqual([s, true]);
    }
    for (const i of ins.filter((x) => x.op === 'RUN')) for (const m of i.args.matchAll(/npm run (\S+)/g)) expect(pkg.scripts[m[1]]).toBeDefined();
    const cmd = final.filter((i) => i.op === 'CMD').map((i) => JSON.parse(i.args) as string[]);
    expect(cmd).toEqual([['node', 'bin/minutes.js', 'start']]);
    expect(pkg.scripts.start).toBe('node bin/minutes.js start');
  });

  it('.dockerignore keeps secrets, data and installed or built files out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['.env', 'node_modules', 'dist', 'channels', '.git']));
    // Nothing the Dockerfile copies is ignored.
    for (const i of ins.filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
      for (const s of i.args.split(/\s+/).slice(0, -1)) expect(ignored).not.toContain(s.split('/')[0]);
    }
  });
});

describe('deploy/minutes.service', () => {
  const text = read('deploy/minutes.service');
  const unit = unitKeys(text);
  const service = unit.Service;

  it('runs the bot as a dedicated user from the project folder, with .env, the data root and a restart on failure', () => {
    expect(Object.keys(unit)).toEqual(['Unit', 'Service', 'Install']);
    expect(service.User).toEqual(['minutes']);
    expect(service.WorkingDirectory).toHaveLength(1);
    const wd = service.WorkingDirectory[0];
    expect(service.EnvironmentFile).toEqual([`${wd}/.env`]);
    expect(service.ExecStart).toEqual(['/usr/bin/node bin/minutes.js start']);
    expect(service.Restart).toEqual(['on-failure']);
    const dataDir = service.Environment.map((e) => /^MINUTES_DATA_DIR=(\S+)$/.exec(e)?.[1]).find(Boolean);
    expect(dataDir).toMatch(/^\//);
    // With the file system read-only, the data root is the one place it writes.
    expect(service.ProtectSystem).toEqual(['strict']);
    expect(service.ReadWritePaths).toEqual([dataDir]);
    expect(unit.Install.WantedBy).toEqual(['multi-user.target']);
  });

  it('stops within its budget: the bot finishes turns in flight (about 20 s) before systemd kills it', () => {
    expect(service.KillSignal ?? ['SIGTERM']).toEqual(['SIGTERM']);
    expect(Number(service.TimeoutStopSec[0])).toBeGreaterThan(20);
  });

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  (analyze.status === 0 ? it : it.skip)('systemd-analyze verify accepts it (and rejects a broken copy, so the check is real)', () => {
    const tmp = makeTmpDir('minutes-unit-');
    try {
      const ok = spawnSync('systemd-analyze', ['verify', path.join(root, 'deploy', 'minutes.service')], { encoding: 'utf8' });
      expect({ status: ok.status, stderr: ok.stderr }).toEqual({ status: 0, stderr: '' });
      const broken = path.join(tmp.dir, 'minutes.service');
      fs.writeFileSync(broken, text.replace(/^ExecStart=.*$/m, 'ExecStart=bin/minutes.js start'));
      expect(spawnSync('systemd-analyze', ['verify', broken], { encoding: 'utf8' }).status).not.toBe(0);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('the production install', () => {
  it('prepare builds when TypeScript is there, and otherwise says how to build and succeeds (npm ci --omit=dev)', () => {
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.js');
    const tmp = makeTmpDir('minutes-prepare-');
    try {
      // A copy of the project without node_modules: what `npm ci --omit=dev` leaves for prepare.
      fs.mkdirSync(path.join(tmp.dir, 'scripts'));
      fs.copyFileSync(path.join(root, 'scripts', 'prepare.js'), path.join(tmp.dir, 'scripts', 'prepare.js'));
      fs.writeFileSync(path.join(tmp.dir, 'package.json'), '{"name": "x", "private": true}');
      const r = spawnSync(process.execPath, ['scripts/prepare.js'], { cwd: tmp.dir, encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('for a production install run `npm ci && npm run build && npm prune --omit=dev`');
      expect(fs.existsSync(path.join(tmp.dir, 'dist'))).toBe(false);
    } finally {
      tmp.cleanup();
    }
  });

  it('the manual (docs/operations.md) names the one production path the check in CI runs', () => {
    const readme = read('docs/operations.md');
    expect(readme).toContain('## Running in production');
    expect(readme).toContain('npm ci && npm run build && npm prune --omit=dev');
    expect(read('.ci/production')).toContain('npm prune --omit=dev');
    expect(read('.ci/run')).toMatch(/^\.ci\/production$/m);
  });
});
