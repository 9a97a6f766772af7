import { confirmInChannel, reopenInChannel } from '../../src/condense/knowledge/ratifyFiles';
import { readContext } from '../../src/condense/knowledge/contextFiles';
import { Secretary } from '../../src/condense/saga/secretary';
import type { ChannelRef } from '../../src/memory/paths';
import { msgs, sideDeps } from '../condense/helpers';
import { knowledgeModel } from '../helpers/knowledgeModel';
import { manualClock } from '../helpers/runtime';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';
import { sectionOf, startDashboard } from './helpers';

/** The channel page says what members said of each decision (issue 43 §1): ratified by whom, reopened by whom, or proposed. */
describe("the dashboard shows each decision's status", () => {
  const world = withTmpAndFakeModel();

  it('beside each condensation, and in CONTEXT.md; a display name is text, never markup', async () => {
    world.fake.setHandler(knowledgeModel());
    const d = await sideDeps(world.tmp.dir, world.fake, manualClock().now);
    const sec = new Secretary({ deps: d.deps });
    const ref: ChannelRef = { kind: 'local', name: 'orders' };
    const target = { ref, channelName: 'orders', trigger: 'explicit' as const };
    await sec.condense({ target, messages: msgs([['al', 'decision: releases go out on Tuesdays']], { start: '2026-11-10T09:00:00Z' }) });
    await sec.condense({ target, messages: msgs([['al', 'decision: the changelog is written by the on-call lead']], { start: '2026-11-11T09:00:00Z' }) });
    await sec.condense({ target, messages: msgs([['bea', 'decision: staging soaks for one day']], { start: '2026-11-12T09:00:00Z' }) });
    await d.model.close();
    const [tuesdays, changelog] = (await readContext(d.store, ref)).decisions;
    const settings = { minConfirmations: 1 };
    const at = new Date('2026-11-28T12:00:00Z');
    expect(await confirmInChannel(d.store, ref, { decisionId: tuesdays.id, member: { id: '111', name: 'Ana <b>Lopez</b>' }, at, settings })).toMatchObject({
      ok: true,
    });
    expect(await reopenInChannel(d.store, ref, { decisionId: changelog.id, member: { id: '222', name: 'Ben' }, at, settings })).toMatchObject({ ok: true });
    const dash = await startDashboard(world.tmp.dir);
    try {
      const html = await (await fetch(`${dash.url}channel/local/orders`)).text();
      const list = sectionOf(html, 'decisions');
      expect(list).toContain('<span class="badge s-ratified">ratified</span> <span class="meta">by Ana &lt;b&gt;Lopez&lt;/b&gt; (2026-11-28)</span>');
      expect(list).toContain('<span class="badge s-disputed">disputed</span> <span class="meta">reopened by Ben (2026-11-28)</span>');
      expect(list).toContain('<span class="badge s-proposed">proposed</span>');
      expect(html).not.toContain('<b>Lopez</b>');
      // The timeline's marks say the same, in words for a screen reader.
      expect(sectionOf(html, 'timeline')).toMatch(/aria-label="2026-11-10 [^"]*: ratified"/);
      // CONTEXT.md, on its own page, says the same.
      const context = await (await fetch(`${dash.url}channel/local/orders/context`)).text();
      expect(sectionOf(context, 'context')).toMatch(/ratified by Ana (\\)?&lt;b(\\)?&gt;Lopez/);
    } finally {
      await dash.close();
    }
  });
});
