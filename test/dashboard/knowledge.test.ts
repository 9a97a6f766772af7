import { Secretary } from '../../src/condense/saga/secretary';
import type { ChannelRef } from '../../src/memory/paths';
import { msgs, sideDeps } from '../condense/helpers';
import { knowledgeModel } from '../helpers/knowledgeModel';
import { manualClock } from '../helpers/runtime';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';
import { sectionOf, startDashboard } from './helpers';

/** The channel page shows the open questions and the playbooks, with a playbook's earlier steps struck through. */
describe('the dashboard shows open questions and playbooks', () => {
  const world = withTmpAndFakeModel();

  it('lists the open ones and each playbook, and CONTEXT.md links to the playbook on the page', async () => {
    world.fake.setHandler(knowledgeModel());
    const d = await sideDeps(world.tmp.dir, world.fake, manualClock().now);
    const sec = new Secretary({ deps: d.deps });
    const ref: ChannelRef = { kind: 'local', name: 'orders' };
    const target = { ref, channelName: 'orders', trigger: 'explicit' as const };
    await sec.condense({
      target,
      messages: msgs(
        [
          ['al', 'decision: releases go out on Tuesdays'],
          ['al', 'question: who signs off a <b>hotfix</b>?'],
          ['bea', 'question: do we keep the staging soak?'],
          ['bea', 'playbook: Cut a release: freeze; tag'],
        ],
        { start: '2026-11-10T09:00:00Z' },
      ),
    });
    await sec.condense({
      target,
      messages: msgs(
        [
          ['al', 'answer: soak => yes, one day'],
          ['al', 'decision: releases need a changelog'],
          ['al', 'playbook: Cut a release: freeze; changelog; tag'],
        ],
        { start: '2026-11-17T09:00:00Z' },
      ),
    });
    await d.model.close();
    const dash = await startDashboard(world.tmp.dir);
    try {
      const html = await (await fetch(`${dash.url}channel/local/orders`)).text();
      const questions = sectionOf(html, 'questions');
      expect(questions).toContain('<h2 id="h-questions">Open questions (1)</h2>');
      expect(questions).toMatch(
        /<li>who signs off a &lt;b&gt;hotfix&lt;\/b&gt;\? <span class="meta">asked by al · since 2026-11-10 · q-[0-9a-f]{6} · from<\/span>/,
      );
      // The answered one is no longer listed as open (MEMORY.md below still records how it was answered).
      expect(questions).not.toContain('do we keep the staging soak');
      const playbooks = sectionOf(html, 'playbooks');
      expect(playbooks).toContain('<h2 id="h-playbooks">Playbooks (1)</h2><div id="playbook-cut-a-release"><h3>Cut a release</h3>');
      expect(playbooks).toContain('<ol><li>freeze</li><li>changelog</li><li>tag</li></ol>');
      expect(playbooks).toContain('<details><summary>1 earlier version</summary>');
      expect(playbooks).toContain('<ol><li><del>freeze</del></li><li><del>tag</del></li></ol>');
      // Each once: CONTEXT.md is not rendered on the channel page again (it is one link away).
      expect(html.match(/Open questions/g)).toHaveLength(1);
      expect(html.match(/<h3>Cut a release<\/h3>/g)).toHaveLength(1);
      const context = await (await fetch(`${dash.url}channel/local/orders/context`)).text();
      // CONTEXT.md's link to the playbook's file opens it on this page.
      expect(context).toContain('href="/channel/local/orders#playbook-cut-a-release"');
    } finally {
      await dash.close();
    }
  });
});
