import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { explicitMemoryRequest } from '../../src/chat/explicitRequests';
import { blocks, runCli } from '../helpers/cli';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';

const MEMORY = [
  '# Channel Memory',
  '',
  '- [m-111111] The demo for Acme is on Friday [from: a, 2026-11-01]',
  '- [m-222222] The demo for Globex is on Monday [from: b, 2026-11-01]',
  '- [m-333333] Deploys happen from the release branch only [from: a, 2026-11-01]',
  'Staging database is db-staging-3 on port 6543',
  '',
].join('\n');

describe('which messages are requests to remember or forget', () => {
  it.each([
    'remember when we moved to Postgres?',
    'remember what port staging uses?',
    'note sure why the build failed',
    'do you remember that the demo moved?',
    'what do we remember about deploys?',
  ])('a question or a chance word is not an instruction: %s', (text) => {
    expect(explicitMemoryRequest(text, MEMORY, 's').ops).toEqual([]);
  });

  it.each([
    ['ok, remember that the demo is on Friday at 3pm', 'the demo is on Friday at 3pm'],
    ['Thanks! Please remember that the demo is on Friday', 'the demo is on Friday'],
    ['<@123> remember that the VPN config lives in ops/vpn', 'the VPN config lives in ops/vpn'],
    ['Great call. Note: invoices go out on the 1st. See you', 'invoices go out on the 1st'],
    ['could you remember that staging resets nightly?', 'staging resets nightly'],
  ])('a request anywhere in the message counts: %s', (text, saved) => {
    expect(explicitMemoryRequest(text, MEMORY, 's').ops).toEqual([expect.objectContaining({ op: 'add', text: saved, explicit: true })]);
  });

  // Issue 40: "hey, remember that …" was saved and "hi, remember that …" was not (the request had
  // to open a sentence after one of a list of openers). A request may open any clause.
  it.each([
    'hi, ',
    'hello there, ',
    'Hi Minutes, ',
    'good morning team, ',
    'yo, ',
    'one more request: ',
    'sorry to bother you again, ',
    'Thanks Ana — ',
    'ok so; ',
  ])('a greeting or any lead-in before the request: "%sremember that …"', (lead) => {
    expect(explicitMemoryRequest(`${lead}remember that the demo is on Friday`, MEMORY, 's').ops).toEqual([
      expect.objectContaining({ op: 'add', text: 'the demo is on Friday', explicit: true }),
    ]);
  });

  it('any lead-in of words, then a comma: the request is saved, with what follows it in the sentence', () => {
    const word = fc.stringMatching(/^[A-Za-z][a-z']{0,9}$/).filter((w) => !/remember|note|forget/i.test(w));
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), fc.constantFrom(', ', ': ', '; ', ' - ', ' — '), (words, sep) => {
        const r = explicitMemoryRequest(`${words.join(' ')}${sep}remember that the deploy window is Tuesday, not Monday`, MEMORY, 's');
        expect(r.ops).toEqual([expect.objectContaining({ op: 'add', text: 'the deploy window is Tuesday, not Monday' })]);
      }),
      { numRuns: 300 },
    );
  });

  it('"remember" inside a clause is overheard, not asked, whatever comes before it', () => {
    const word = fc
      .stringMatching(/^[a-z]{1,9}$/)
      .filter(
        (w) =>
          !/^(?:remember|note|forget|ok|okay|so|and|also|hey|great|cool|thanks|alright|right|oh|btw|fyi|please|pls|kindly|can|could|would|will|you|do|dont|never|not)$/.test(
            w,
          ),
      );
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
        expect(explicitMemoryRequest(`hi, ${words.join(' ')} remember that the demo is on Friday`, MEMORY, 's').ops).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    "I can't remember that, honestly",
    'hi, remember when we moved to Postgres?',
    'hello there, do you remember that the demo moved?',
    'we should all remember that the demo moved',
    'hi, note sure why the build failed',
  ])('a lead-in does not make an overheard word or a question a request: %s', (text) => {
    expect(explicitMemoryRequest(text, MEMORY, 's').ops).toEqual([]);
  });

  it('a long message full of clauses is read in linear time', () => {
    const t0 = Date.now();
    expect(explicitMemoryRequest(`${'a, '.repeat(300_000)}remember that the demo is on Friday`, MEMORY, 's').ops).toHaveLength(1);
    expect(explicitMemoryRequest('x, '.repeat(300_000), MEMORY, 's').ops).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it('a lead-in before "forget …" asks to forget', () => {
    const r = explicitMemoryRequest('hi there, forget that the Globex demo is on Monday', MEMORY, 's');
    expect(r.forgetAsked).toBe(true);
    expect(r.ops).toEqual([expect.objectContaining({ op: 'forget', id: 'm-222222' })]);
  });

  it.each([
    ["don't forget that the VPN is required for staging", 'the VPN is required for staging'],
    ['do not forget that invoices go out on the 1st', 'invoices go out on the 1st'],
    ['dont forget: the demo is on Friday at 3pm', 'the demo is on Friday at 3pm'],
    ['Never forget that prod deploys need two approvals!', 'prod deploys need two approvals'],
    ['ok, please don’t forget the staging VPN needs MFA', 'the staging VPN needs MFA'],
  ])('"don\'t forget that …" is a request to remember: %s', (text, saved) => {
    expect(explicitMemoryRequest(text, MEMORY, 's').ops).toEqual([expect.objectContaining({ op: 'add', text: saved, explicit: true })]);
  });

  it.each([
    "don't forget that the demo moved?",
    "don't forget to update the changelog",
    'never forget about the outage',
    'do not forget when we moved to Postgres',
  ])('a question or a chore is not a request to remember: %s', (text) => {
    expect(explicitMemoryRequest(text, MEMORY, 's').ops).toEqual([]);
  });

  it.each([2_500, 1_100_000])('a "remember that" longer than one entry may be (%i characters) is refused with a reason, not saved', (n) => {
    const long = 'x'.repeat(n);
    const r = explicitMemoryRequest(`remember that ${long}`, MEMORY, 's');
    expect(r.ops).toEqual([]);
    expect(r.notes).toEqual([expect.stringMatching(/^\(Not saved to memory: that is \d+ characters and one entry holds at most 300/)]);
  });

  it('"forget" with nothing matching says so', () => {
    const r = explicitMemoryRequest('forget about the weather report', MEMORY, 's');
    expect(r.ops).toEqual([]);
    expect(r.notes.join(' ')).toMatch(/Nothing forgotten: no memory entry matches "the weather report"/);
  });

  it('"forget" that matches two entries asks which one, naming both', () => {
    const r = explicitMemoryRequest('forget the demo date', MEMORY, 's');
    expect(r.ops).toEqual([]);
    const note = r.notes.join(' ');
    expect(note).toMatch(/2 entries match/);
    expect(note).toContain('[m-111111] The demo for Acme is on Friday');
    expect(note).toContain('[m-222222] The demo for Globex is on Monday');
    expect(note).toMatch(/forget m-111111/);
  });

  it('"forget" picks the one entry it names, by words or by id', () => {
    expect(explicitMemoryRequest('please forget that the Globex demo is on Monday', MEMORY, 's').ops).toEqual([
      expect.objectContaining({ op: 'forget', id: 'm-222222' }),
    ]);
    expect(explicitMemoryRequest('forget m-333333', MEMORY, 's').ops).toEqual([expect.objectContaining({ op: 'forget', id: 'm-333333' })]);
  });

  it('"forget" finds a hand-written line that has no id yet', () => {
    expect(explicitMemoryRequest('forget the staging database port', MEMORY, 's').ops).toEqual([
      expect.objectContaining({ op: 'forget', text: 'Staging database is db-staging-3 on port 6543' }),
    ]);
  });
});

describe('the reply says exactly what was saved or forgotten', () => {
  const world = withTmpAndFakeModel();

  it('saves, forgets a hand-written line, asks when two match, says when nothing does', async () => {
    const dir = path.join(world.tmp.dir, 'data', 'local', 'team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), MEMORY);
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: world.fake.anthropicBaseURL, MINUTES_DATA_DIR: path.join(world.tmp.dir, 'data') };
    const r = await runCli(['chat', '--channel', 'team'], {
      env,
      cwd: world.tmp.dir,
      input: [
        'Thanks! Please remember that the release freeze starts on the 18th',
        'remember what port staging uses?',
        'forget the staging database port',
        'forget the demo date',
        'forget about the weather report',
        'hello there, remember that the staging VPN needs MFA',
      ],
    });
    expect(r.code).toBe(0);
    const b = blocks(r.stdout);
    expect(b[0]).toMatch(/Saved to memory as m-[0-9a-f]{6}: "the release freeze starts on the 18th"/);
    expect(b[1]).not.toMatch(/Saved/);
    expect(b[2]).toMatch(/Forgot m-[0-9a-f]{6}: "Staging database is db-staging-3 on port 6543"/);
    expect(b[3]).toMatch(/2 entries match .*forget m-111111/);
    expect(b[4]).toMatch(/Nothing forgotten: no memory entry matches "the weather report"/);
    expect(b[5]).toMatch(/Saved to memory as m-[0-9a-f]{6}: "the staging VPN needs MFA"/);
    const memory = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8');
    expect(memory).toContain('the release freeze starts on the 18th');
    expect(memory).toContain('the staging VPN needs MFA');
    expect(memory).not.toContain('db-staging-3');
    expect(memory).not.toContain('port staging uses');
    expect(memory).toContain('The demo for Acme is on Friday');
    expect(memory).toContain('The demo for Globex is on Monday');
  });
});
