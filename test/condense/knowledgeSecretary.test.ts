import fs from 'node:fs';
import path from 'node:path';
import { readContext } from '../../src/condense/knowledge/contextFiles';
import { composePlaybook, renderPlaybook } from '../../src/condense/knowledge/playbookFile';
import { Secretary } from '../../src/condense/saga/secretary';
import type { CondenseTarget } from '../../src/condense/condensation/types';
import { parseMemory } from '../../src/memory/entries';
import type { ChannelRef } from '../../src/memory/paths';
import type { ModelClient } from '../../src/llm/types';
import type { ChannelStore } from '../../src/memory/store';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { knowledgeModel } from '../helpers/knowledgeModel';
import { manualClock } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';
import { FakePoster, msgs, sideDeps } from './helpers';

/**
 * Open questions and playbooks through the whole Secretary: the post names them, CONTEXT.md lists
 * them, MEMORY.md keeps the questions as open loops and each playbook as one entry, the playbook has
 * its file; a later condensation answers a question (struck in MEMORY.md in favour of how) and
 * changes the playbook (the old steps struck through in its file, and said in the channel).
 */
describe('the Secretary files open questions and playbooks', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let model: ModelClient;
  let store: ChannelStore;
  let sec: Secretary;
  const ref: ChannelRef = { kind: 'local', name: 'orders' };
  const target: CondenseTarget = { ref, channelName: 'orders', trigger: 'explicit' };

  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer({ handler: knowledgeModel() });
    const d = await sideDeps(tmp.dir, fake, manualClock('2026-11-21T09:00:00Z').now);
    model = d.model;
    store = d.store;
    sec = new Secretary({ deps: d.deps });
  });
  afterEach(async () => {
    await model.close();
    await fake.close();
    tmp.cleanup();
  });

  const read = (rel: string) => fs.readFileSync(path.join(store.paths(ref).channelDir, rel), 'utf8');
  const memoryLines = () => parseMemory(read('MEMORY.md')).filter((l) => l.kind === 'entry');

  it('files both, then answers a question and changes the playbook visibly', async () => {
    const poster = new FakePoster();
    const first = await sec.condense({
      target,
      poster,
      messages: msgs(
        [
          ['al', 'how do we ship from now on?'],
          ['bea', 'decision: releases go out from the release branch on Tuesdays'],
          ['al', 'question: who signs off a hotfix?'],
          ['cy', 'question: do we keep the staging soak?'],
          ['bea', 'playbook: Cut a release: freeze the release branch; run the checklist; tag and deploy'],
        ],
        { start: '2026-11-10T09:00:00Z' },
      ),
    });
    expect(first.status).toBe('done');
    expect(poster.posts[0].content).toContain(
      '**Open questions:** al: who signs off a hotfix?; cy: do we keep the staging soak?\n**Playbooks:** Cut a release: 1) freeze the release branch 2) run the checklist 3) tag and deploy\n**Supersedes:** none',
    );
    const ctx = await readContext(store, ref);
    const [q1, q2] = ctx.questions!;
    expect(read('CONTEXT.md')).toContain(
      `## Open Questions\n\n- \`${q1.id}\` who signs off a hotfix? — al _(from 2026-11-10)_\n- \`${q2.id}\` do we keep the staging soak? — cy _(from 2026-11-10)_\n\n## Playbooks\n\n- **Cut a release:** freeze the release branch → run the checklist → tag and deploy ([playbook](playbooks/cut-a-release.md)) _(from 2026-11-10)_\n`,
    );
    const pb = read('playbooks/cut-a-release.md');
    expect(pb).toMatch(/^# Playbook: Cut a release\n<!-- minutes:context-hash [0-9a-f]{12} /);
    expect(pb).toContain('## Steps\n\n1. freeze the release branch\n2. run the checklist\n3. tag and deploy\n');
    expect(pb).toContain(`- 2026-11-10: filed by [${first.status === 'done' && first.file}](../condensations/${first.status === 'done' && first.file})`);
    const openLoops = memoryLines().filter((l) => /^Open question q-/.test(l.text));
    expect(openLoops.map((l) => l.text)).toEqual([
      `Open question ${q1.id} (Release process): who signs off a hotfix? — asked by al`,
      `Open question ${q2.id} (Release process): do we keep the staging soak? — asked by cy`,
    ]);
    const pbEntry = memoryLines().find((l) => l.text.startsWith('Playbook "Cut a release"'));
    expect(pbEntry?.text).toBe(
      'Playbook "Cut a release" (3 steps, in playbooks/cut-a-release.md): freeze the release branch → run the checklist → tag and deploy',
    );
    expect(ctx.questions!.map((q) => q.memoryId)).toEqual(openLoops.map((l) => l.id));
    expect(ctx.playbooks![0].memoryId).toBe(pbEntry!.id);

    const second = await sec.condense({
      target,
      poster,
      messages: msgs(
        [
          ['bea', 'hotfixes need a rule'],
          ['al', 'answer: hotfix => the on-call lead signs off hotfixes'],
          ['al', 'answer-id: q-ffffff => an answer to a question never shown'],
          ['bea', 'decision: releases also need a changelog entry'],
          ['bea', 'playbook: cut a release: freeze the release branch; write the changelog; run the checklist; tag and deploy'],
        ],
        { start: '2026-11-17T09:00:00Z' },
      ),
    });
    expect(second.status).toBe('done');
    if (second.status !== 'done') return;
    expect(poster.posts[1].content).toContain(`**Answered:** ${q1.id} “who signs off a hotfix?” → the on-call lead signs off hotfixes\n`);
    expect(second.notices).toEqual(['Updated the playbook “cut a release”: playbooks/cut-a-release.md keeps its earlier steps, struck through.']);
    const after = await readContext(store, ref);
    expect(after.questions!.map((q) => [q.id, q.status])).toEqual([
      [q1.id, 'answered'],
      [q2.id, 'open'],
    ]);
    const md = read('CONTEXT.md');
    expect(md).toContain(`## Open Questions\n\n- \`${q2.id}\``);
    expect(md).not.toContain(q1.id);
    expect(md).toContain(
      '- **cut a release:** freeze the release branch → write the changelog → run the checklist → tag and deploy ([playbook](playbooks/cut-a-release.md)) _(changed 2026-11-17)_',
    );
    const changed = read('playbooks/cut-a-release.md');
    expect(changed).toContain('## Steps\n\n1. freeze the release branch\n2. write the changelog\n3. run the checklist\n4. tag and deploy\n');
    expect(changed).toContain(`- 2026-11-17: changed by [${second.file}](../condensations/${second.file})`);
    expect(changed).toContain(
      '## Earlier Versions\n\n### 2026-11-10 until 2026-11-17\n\n1. ~~freeze the release branch~~\n2. ~~run the checklist~~\n3. ~~tag and deploy~~\n',
    );
    // MEMORY.md: the open loop struck in favour of how it was answered; the playbook's entry replaced.
    const mem = memoryLines();
    const answer = mem.find((l) => l.text.startsWith(`Question ${q1.id} answered`));
    expect(answer?.text).toBe(`Question ${q1.id} answered (2026-11-17): who signs off a hotfix? → the on-call lead signs off hotfixes`);
    expect(mem.find((l) => l.id === q1.memoryId)).toMatchObject({ superseded: true, supersededBy: answer!.id });
    expect(mem.find((l) => l.id === pbEntry!.id)).toMatchObject({ superseded: true });
    expect(mem.filter((l) => !l.superseded && l.text.startsWith('Playbook "')).map((l) => l.text)).toEqual([
      'Playbook "cut a release" (4 steps, in playbooks/cut-a-release.md): freeze the release branch → write the changelog → run the checklist → tag and deploy',
    ]);
  });

  it("a replaced decision's open questions are closed with it, and said", async () => {
    await sec.condense({
      target,
      messages: msgs(
        [
          ['al', 'decision: the orders database stays on MySQL'],
          ['al', 'question: which MySQL version?'],
        ],
        { start: '2026-11-10T09:00:00Z' },
      ),
    });
    const r = await sec.condense({
      target,
      messages: msgs(
        [
          ['bea', 'This replaces the earlier decision.'],
          ['bea', 'decision: the orders database moves to Postgres'],
        ],
        { start: '2026-11-17T09:00:00Z' },
      ),
    });
    expect(r.status === 'done' && r.notices).toEqual([
      expect.stringMatching(/^Closed the open questions of the replaced decision: q-[0-9a-f]{6} \(which MySQL version\?\)\.$/),
    ]);
    const ctx = await readContext(store, ref);
    expect(ctx.questions![0]).toMatchObject({ status: 'dropped' });
    expect(read('CONTEXT.md')).toContain('## Open Questions\n\n_None open._');
    expect(memoryLines().find((l) => l.text.startsWith('Open question'))).toMatchObject({ superseded: true });
  });

  it("a person's edit to a playbook file is kept under Notes when the file is drawn again", () => {
    const v1 = { slug: 'deploy', name: 'Deploy', versions: [{ steps: ['build', 'ship'], date: '2026-11-10', decisionId: 'd-1' }] };
    const v2 = { ...v1, versions: [...v1.versions, { steps: ['build', 'test', 'ship'], date: '2026-11-17', decisionId: 'd-2' }] };
    const first = composePlaybook(null, undefined, v1);
    const edited = first.replace('2. ship', '2. ship (after 17:00 only)');
    const next = composePlaybook(edited, v1, v2);
    expect(next).toContain(renderPlaybook(v2).split('\n').slice(1).join('\n'));
    expect(next).toMatch(/## Notes \(hand-written\)\n\n2\. ship \(after 17:00 only\)\n$/);
    // Unedited: drawn again without notes.
    expect(composePlaybook(first, v1, v2)).not.toContain('## Notes');
  });
});
