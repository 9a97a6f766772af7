import type { FakeRequest } from '../fakes/model/types';

/**
 * A scripted Secretary that also reads open questions, answers and playbooks from the transcript,
 * as a careful model would:
 * - `decision: X` is the decision (the last one wins); "replaces the earlier decision" supersedes
 *   every current decision it was shown;
 * - `question: X` said by al is the open question "al: X";
 * - `answer: WORDS => X` answers the open question it was shown whose text has WORDS;
 * - `answer-id: q-… => X` answers that id as given (an id it may not have been shown);
 * - `playbook: NAME: step; step; step` files or changes a playbook.
 * Other requests (chat, side tasks) get `chat(req)`.
 */
export function knowledgeModel(chat: (req: FakeRequest) => string = () => 'ok'): (req: FakeRequest) => string {
  return (req) => {
    if (!/Secretary of a team/.test(req.system)) return chat(req);
    const input = req.messages[0].text;
    const said = (label: string) => [...input.matchAll(new RegExp(`^\\[[^\\]]+\\] ([^:]+): ${label}: (.*)$`, 'gim'))].map((m) => ({ who: m[1], text: m[2] }));
    const decision = said('decision').pop()?.text ?? 'none';
    const shownQuestions = [...input.matchAll(/^- (q-[0-9a-f]{6}) \[[^\]]+\] (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
    const current = [...input.matchAll(/^- (d-[0-9a-f]{10}) /gm)].map((m) => m[1]);
    const answered = said('answer').flatMap(({ text }) => {
      const [words, answer] = text.split(' => ');
      const q = shownQuestions.find((x) => x.text.toLowerCase().includes(words.toLowerCase()));
      return q ? [{ id: q.id, answer }] : [];
    });
    const byId = said('answer-id').map(({ text }) => ({ id: text.split(' => ')[0], answer: text.split(' => ')[1] }));
    const playbooks = said('playbook').map(({ text }) => {
      const [name, steps] = [text.slice(0, text.indexOf(':')), text.slice(text.indexOf(':') + 1)];
      return { name: name.trim(), steps: steps.split(';').map((s) => s.trim()) };
    });
    return JSON.stringify({
      topic: /release/i.test(decision) ? 'Release process' : /database|postgres|mysql/i.test(decision) ? 'Orders database' : 'Open discussion',
      context: 'The team discussed the options.',
      decision,
      rationale: 'It was the simplest option.',
      action_items: said('todo').map((t) => t.text),
      supersedes: /replaces the earlier decision/i.test(input) ? current : [],
      constraints: said('constraint').map((t) => t.text),
      current_state: decision === 'none' ? '' : `Going with: ${decision}`,
      open_questions: said('question').map((q) => `${q.who}: ${q.text}`),
      answered_questions: [...answered, ...byId],
      playbooks,
    });
  };
}
