import { Inbox, Pending } from '../../src/bot/intake/inbox';
import type { InboundMessage } from '../../src/chat/conversation';
import type { ChannelRef } from '../../src/memory/paths';

/**
 * A turn whose work throws is reported, not left as an unhandled rejection (which ends the
 * process: nothing in src/ handles 'unhandledRejection'), and the conversation's next trigger
 * still starts a turn.
 */

const ref: ChannelRef = { kind: 'local', name: 'general' };
const msg = (id: string): InboundMessage => ({ id, authorName: 'alice', content: `message ${id}`, at: new Date('2026-11-21T12:00:00Z') });

describe('Inbox: a failing turn', () => {
  it('goes to onError, and the next trigger of the conversation is answered', async () => {
    const errors: unknown[] = [];
    const done: string[][] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (r: unknown) => unhandled.push(r);
    process.on('unhandledRejection', onUnhandled);
    try {
      const inbox = new Inbox<null>(
        async (batch: Pending<null>) => {
          if (batch.messages.some((m) => m.id === 'bad')) throw new Error('the model call failed');
          done.push(batch.messages.map((m) => m.id));
        },
        () => 'general',
        (err) => errors.push(err),
      );
      inbox.trigger(ref, msg('bad'), null);
      await inbox.idle();
      inbox.trigger(ref, msg('good'), null);
      await inbox.idle();
      await new Promise((r) => setImmediate(r));
      expect(errors.map((e) => (e as Error).message)).toEqual(['the model call failed']);
      expect(done).toEqual([['good']]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
