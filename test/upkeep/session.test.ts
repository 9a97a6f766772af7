import fs from 'node:fs';
import path from 'node:path';
import type { ConversationState } from '../../src/shared/conversation';
import type { ModelClient } from '../../src/llm/types';
import type { ChannelRef } from '../../src/memory/paths';
import { TEMPLATES } from '../../src/memory/templates';
import { refreshSession } from '../../src/upkeep/session';
import type { SideTaskDeps } from '../../src/llm/sideTask';
import { sideDeps } from '../condense/helpers';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { manualClock } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

const ref: ChannelRef = { kind: 'discord', guildId: '111111111111111111', channelId: '222222222222222222' };
const PERSON = '# Session\n\n## Goal\n\nwritten by a person while the model was working\n';
const conv: ConversationState = {
  version: 1,
  compactedTurns: 0,
  turns: [
    { role: 'user', content: 'goal: ship the importer', at: '2026-11-21T09:00:00Z' },
    { role: 'assistant', content: 'On it.', at: '2026-11-21T09:00:05Z' },
  ],
};

describe('SESSION.md refresh', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let model: ModelClient;
  let deps: SideTaskDeps;
  /** What a person does to SESSION.md while the model is answering. */
  let duringModel: (file: string) => void;

  beforeEach(async () => {
    tmp = makeTmpDir();
    duringModel = () => undefined;
    fake = await startFakeModelServer({
      handler: () => {
        duringModel(d.store.paths(ref).session);
        return JSON.stringify({ goal: 'ship the importer', current_state: 'started', next_steps: ['write the parser'] });
      },
    });
    const d = await sideDeps(tmp.dir, fake, manualClock('2026-11-21T09:01:00Z').now);
    ({ deps, model } = d);
  });
  afterEach(async () => {
    await model.close();
    await fake.close();
    tmp.cleanup();
  });

  const session = () => fs.readFileSync(deps.store.paths(ref).session, 'utf8');

  it('keeps a SESSION.md a person wrote during the refresh when the file was missing at the start', async () => {
    duringModel = (file) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, PERSON);
    };
    await refreshSession(deps, ref, conv, 0);
    expect(session()).toBe(PERSON);
  });

  it("keeps a person's edit made during the refresh", async () => {
    await deps.store.ensureChannel(ref);
    duringModel = (file) => fs.writeFileSync(file, PERSON);
    await refreshSession(deps, ref, conv, 0);
    expect(session()).toBe(PERSON);
  });

  it('writes the refresh over the file it started from, over the template, and into a missing file', async () => {
    await refreshSession(deps, ref, conv, 0);
    expect(session()).toContain('write the parser');
    fs.writeFileSync(deps.store.paths(ref).session, TEMPLATES['SESSION.md']);
    await refreshSession(deps, ref, { ...conv, turns: [...conv.turns] }, 0);
    expect(session()).toContain('write the parser');
    fs.rmSync(deps.store.paths(ref).session);
    duringModel = (file) => fs.writeFileSync(file, TEMPLATES['SESSION.md']);
    await refreshSession(deps, ref, conv, 0);
    expect(session()).toContain('write the parser');
  });
});
