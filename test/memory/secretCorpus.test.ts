import corpus from './fixtures/secret-corpus.json';
import { containsSecret, redactSecrets } from '../../src/shared/secrets';

/*
 * The detector on sentences in many wordings (issue 22): every secret's value is removed and the
 * word that names it stays; every ordinary sentence about passwords, tokens, keys or secrets is
 * left exactly as written. "heldBack" was written after the rules and is scored the same way.
 */
interface Part {
  secret: { text: string; value: string }[];
  ordinary: string[];
}
const parts: [string, Part][] = [
  ['corpus', corpus],
  ['held back', corpus.heldBack],
];

describe('secret corpus', () => {
  it('is as large as the issue asks (60 secret, 40 ordinary sentences)', () => {
    expect(corpus.secret.length).toBeGreaterThanOrEqual(60);
    expect(corpus.ordinary.length).toBeGreaterThanOrEqual(40);
    expect(corpus.heldBack.secret.length).toBeGreaterThanOrEqual(15);
    expect(corpus.heldBack.ordinary.length).toBeGreaterThanOrEqual(15);
  });

  describe.each(parts)('%s', (_name, part) => {
    it.each(part.secret.map((s) => [s.text, s.value]))('catches: %s', (text, value) => {
      expect(containsSecret(text)).toBe(true);
      const out = redactSecrets(text);
      expect(out).not.toContain(value);
      expect(out).toContain('[redacted]');
    });

    it.each(part.ordinary)('leaves alone: %s', (text) => {
      expect(containsSecret(text)).toBe(false);
      expect(redactSecrets(text)).toBe(text);
    });
  });

  // Issue 40's held-back part (a credential noun followed directly by its value), written before the
  // rule for that shape and not used to tune it: no false alarm, and its misses named here, as
  // `npm run bench:secrets` reports them, so a change to them is seen.
  it('held back (noun, value): no false alarm, and the misses are the ones reported', () => {
    const part = corpus.heldBackNounValue;
    expect(part.ordinary.filter((t) => redactSecrets(t) !== t)).toEqual([]);
    expect(part.secret.filter((s) => redactSecrets(s.text).includes(s.value)).map((s) => s.text)).toEqual([
      'the hotspot pass is mulberry',
      'try user guest pass Tamarind',
    ]);
  });

  it.each([
    ['remember that my password is swordfish', 'remember that my password is [redacted]'],
    ['the test account is qa-bot with password Pumpernickel', 'the test account is qa-bot with password [redacted]'],
    ['staging: user ops, pw bramble', 'staging: user ops, pw [redacted]'],
    ['the wifi pass is swordfish', 'the wifi pass is [redacted]'],
    ['the secret for staging is hunter2, ask Priya', 'the secret for staging is [redacted], ask Priya'],
    ['the wifi passphrase is correct-horse-battery-staple', 'the wifi passphrase is [redacted]'],
    ['PIN is 1234 for the garage', 'PIN is [redacted] for the garage'],
    ['creds are admin / hunter2', 'creds are admin / [redacted]'],
    ['grafana login: viewer/blackbird', 'grafana login: viewer/[redacted]'],
    ['the SSH key passphrase is velvet thunder mango river', 'the SSH key passphrase is [redacted]'],
    ['ssh in with deploy:Starling88@10.1.2.3', 'ssh in with deploy:[redacted]@10.1.2.3'],
  ])('keeps the credential word and the rest of the line: %s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it('a long made-up string is caught without a word before it; hashes, UUIDs, identifiers and links are not', () => {
    const key = 'Zk4pQ9wLr2Tx8vNm3sYb';
    expect(redactSecrets(`set it to ${key} tonight`)).toBe('set it to [redacted] tonight');
    for (const text of [
      'fixed in 9fceb02d0ae598e95dc970b74767f19372d61af8',
      'trace 3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      'see XMLHttpRequestFactory2 and getUserByIdAndEmail2FA',
      `the doc is docs.example.com/d/${key}/edit`,
      'write to mailto:bob@example.com',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });
});
