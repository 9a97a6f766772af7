import fc from 'fast-check';
import corpus from './fixtures/secret-corpus.json';
import { redactSecrets, redactValues } from '../../src/shared/secrets';

/*
 * Redaction runs again over what it already redacted: log.jsonl records a stored turn, an error
 * quotes a redacted line, upkeep rewrites a redacted entry. Each pass must leave a redacted text as
 * it is (issue 40: "admin / [redacted]]" and "[redacted]]]" grew in log.jsonl, one bracket a pass).
 */

// Credential-shaped strings built at run time, so this file holds nothing a scanner would flag.
const made = (n: number, seed: number): string => Array.from({ length: n }, (_, i) => 'aB3dE5gH7jK9mN1pQ3sT5vXz'[(i * 7 + seed) % 24]).join('');

const values = [...corpus.secret, ...corpus.heldBack.secret].map((s) => s.value);
const WORDS = [
  ...'the my our a is are was to for of with and or user admin login creds credentials password passphrase pw pwd pass secret token key api PIN code door wifi account staging prod remember that note ask Sam in vault'.split(
    ' ',
  ),
  ...values,
  '[redacted]',
  '[redacted]]',
  '[[redacted]',
  '[',
  ']',
  '/',
  ':',
  '=',
  '@',
  '"',
  "'",
  '://',
  'postgres://app:',
  '@db.internal',
  'Bearer',
  'Basic',
  'sk-ant-',
  'ghp_',
  'eyJ',
  made(24, 1),
  made(36, 5),
  `deploy:${made(8, 2)}@10.0.0.5`,
];
const SEPARATORS = [' ', ' ', ' ', '', ', ', '\n', ': ', ' / ', '='];

/** Text made of the pieces the rules look at, in any order, with any separators, and some noise. */
const text = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)).map(([w, s]) => w + s) },
      { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
    ),
    {
      maxLength: 24,
    },
  )
  .map((parts) => parts.join(''));

describe('redaction is idempotent', () => {
  it.each([
    ['creds are admin / hunter2', 'creds are admin / [redacted]'],
    ['creds are admin / [redacted]', 'creds are admin / [redacted]'],
    ['the staging creds are deploy:[redacted]', 'the staging creds are deploy:[redacted]'],
    ['grafana login: viewer/[redacted]', 'grafana login: viewer/[redacted]'],
  ])('the two seen in log.jsonl: %s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
    expect(redactSecrets(redactSecrets(input))).toBe(expected);
  });

  it('every corpus sentence, redacted twice, is what it was redacted once', () => {
    for (const t of [...corpus.secret, ...corpus.heldBack.secret, ...corpus.heldBackNounValue.secret].map((s) => s.text)) {
      const once = redactSecrets(t);
      expect({ t, twice: redactSecrets(once) }).toEqual({ t, twice: once });
    }
  });

  it('redact(redact(x)) === redact(x) over generated text', () => {
    fc.assert(
      fc.property(text, (x) => {
        const once = redactSecrets(x);
        expect(redactSecrets(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  it('over any string, and over records (log.jsonl) too', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (x) => {
        const once = redactSecrets(x);
        expect(redactSecrets(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('text', 'content', 'err'), text), (rec) => {
        const once = redactValues(rec);
        expect(redactValues(once)).toEqual(once);
      }),
      { numRuns: 500 },
    );
  });
});
