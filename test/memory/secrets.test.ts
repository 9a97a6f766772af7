import { cannotHoldSecret, containsSecret, redactSecrets, redactValues } from '../../src/shared/secrets';
import * as statements from '../../src/shared/secretStatements';

// Credential-shaped strings built at run time, so this file holds nothing a scanner would flag.
const rnd = (n: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'): string =>
  Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');

describe('secrets', () => {
  const leaks: [string, string, string][] = [
    // [what, text, the secret part that must disappear]
    ['Anthropic key', `use sk-ant-api03-${rnd(40)} for prod`, `sk-ant-api03-${rnd(40)}`],
    ['OpenAI project key', `key sk-proj-${rnd(40)}`, rnd(40)],
    ['Stripe live key', `billing uses sk_live_${rnd(24)}`, rnd(24)],
    ['Stripe restricted key', `rk_live_${rnd(24)} in the dashboard`, rnd(24)],
    ['GitHub token', `ghp_${rnd(36)}`, rnd(36)],
    ['GitLab token', `glpat-${rnd(20)}`, rnd(20)],
    ['npm token', `npm_${rnd(36)}`, rnd(36)],
    ['Hugging Face token', `hf_${rnd(34)}`, rnd(34)],
    [
      'AWS secret in an env line',
      `AWS_SECRET_ACCESS_KEY=${rnd(40, 'abcdefghijklmnopqrstuvwxyz/+ABCDEFGHIJ')}`,
      rnd(40, 'abcdefghijklmnopqrstuvwxyz/+ABCDEFGHIJ'),
    ],
    ['prefixed API key variable', `MY_SERVICE_API_KEY=${rnd(20)}`, rnd(20)],
    ['password without digits', 'the staging password: correcthorsebattery', 'correcthorsebattery'],
    ['password with digits after "is"', 'the wifi password is hunter22', 'hunter22'],
    ['password in a database URL', 'db at postgres://app:s3cretpass@db.internal:5432/app', 's3cretpass'],
    ['client secret in quotes', `client_secret = "${rnd(24)}"`, rnd(24)],
    ['private key cut short', `-----BEGIN RSA PRIVATE KEY-----\nMIIE${rnd(60)}`, rnd(60)],
    ['password as a JSON key', '{"password": "hunter22"}', 'hunter22'],
    ['quoted password with spaces', 'password = "correct horse battery staple"', 'horse battery'],
    ['single-quoted secret without digits', "password = 'my secret value'", 'my secret value'],
    ['Redis URL with an empty user', 'REDIS_URL=redis://:s3cr3tpass@cache:6379', 's3cr3tpass'],
    ['URL password containing @', 'https://user:p@ss@host.example/x', 'p@ss'],
  ];

  it.each(leaks)('%s is found and redacted', (_what, text, secret) => {
    expect(containsSecret(text)).toBe(true);
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });

  // What a new user typed in a day (issue 15): passwords said in words, short names for them, a
  // login pair, a webhook URL and a quoted passphrase. Each was saved verbatim before.
  const spoken: [string, string, string][] = [
    ['password named for a system', 'the password for prod is Winter2026!Zebra', 'Winter2026!Zebra'],
    ['"pw"', 'the root pw is Tr0ub4dor&3x', 'Tr0ub4dor&3x'],
    ['"pass"', 'the wifi pass is CorrectHorse42', 'CorrectHorse42'],
    ['a login pair', 'prod login is admin / Winter2026!Zebra', 'Winter2026!Zebra'],
    ['Slack webhook URL', `alerts go to https://hooks.slack.com/services/T0${rnd(8).toUpperCase()}/B0${rnd(8).toUpperCase()}/${rnd(24)}`, rnd(24)],
    ['quoted passphrase with spaces', 'the SSH passphrase for deploy is "blue sky 42 tango"', 'blue sky 42 tango'],
    ['password for a longer name', 'the password for the prod db is Hunter22!', 'Hunter22!'],
    ['symbols without digits', 'the vault pw is p@ss#word', 'p@ss#word'],
    ['Discord webhook URL', `https://discord.com/api/webhooks/123456789012345678/${rnd(60)}`, rnd(60)],
  ];

  it.each(spoken)('%s said in words is found and redacted', (_what, text, secret) => {
    expect(containsSecret(text)).toBe(true);
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });

  it('a spoken password keeps the sentence readable', () => {
    expect(redactSecrets('the password for prod is Winter2026!Zebra, ask Priya')).toBe('the password for prod is [redacted], ask Priya');
    expect(redactSecrets('the wifi pass is CorrectHorse42')).toBe('the wifi pass is [redacted]');
  });

  it('keeps the words around a secret readable', () => {
    expect(redactSecrets('the staging password: correcthorsebattery, ask Priya')).toBe('the staging password: [redacted], ask Priya');
    expect(redactSecrets('db at postgres://app:s3cretpass@db.internal/app')).toBe('db at postgres://app:[redacted]@db.internal/app');
  });

  it.each([
    'the password is required for staging',
    'we rotate the API key every quarter',
    'token limits are 4096 per call',
    'Priya owns the auth service',
    'see https://example.com/docs/setup for the steps',
    'the secret sauce is the cache',
    'the password policy is 12 characters',
    'pass the salt',
    'we pass 100000 requests a day through the proxy',
    'the login page is slow / flaky since Monday',
    'the password for staging is in 1Password',
    'the build pass rate is 98 percent',
    'see https://hooks.slack.com/ for setup',
    'the password is wrong!',
    'the wifi pass is broken?!',
    'the password for the new hire is on the wiki',
    'pin the version: node 20.17.0',
  ])('leaves ordinary text alone: %s', (text) => {
    expect(containsSecret(text)).toBe(false);
    expect(redactSecrets(text)).toBe(text);
  });

  it('stays linear on long adversarial input (8× the text, well under 30× the time)', () => {
    const best = (text: string): number => {
      let min = Infinity;
      // Best of 15: on a loaded machine one run can be slowed many times over; the best of several is not.
      for (let k = 0; k < 15; k++) {
        const t0 = process.hrtime.bigint();
        redactSecrets(text);
        min = Math.min(min, Number(process.hrtime.bigint() - t0));
      }
      return min;
    };
    for (const unit of ['eyJ-', 'a:', '://', '_', 'password ', 'x://a:', 'password="', '@']) {
      // Large enough that the small text takes milliseconds, not a timer's granularity or one GC.
      const small = best(unit.repeat(Math.ceil(40_000 / unit.length)));
      const large = best(unit.repeat(Math.ceil(320_000 / unit.length)));
      // Linear work grows ~8×; the old quadratic JWT pattern grew ~64× (100 KB took 14 s).
      expect({ unit, ratio: Math.round(large / Math.max(small, 1)) < 30 }).toEqual({ unit, ratio: true });
    }
  });

  it('redactValues redacts inside a record and keeps it valid JSON', () => {
    const record = {
      author: 'alice',
      content: `-----BEGIN RSA PRIVATE KEY-----\nMIIE${rnd(40)}`,
      quoted: 'password: abc123"xyz and more',
      nested: [{ note: `key sk-ant-api03-${rnd(30)}` }, 42, null],
    };
    const line = JSON.stringify(redactValues(record));
    const back = JSON.parse(line) as typeof record;
    expect(back.author).toBe('alice');
    expect(back.content).not.toContain(rnd(40));
    expect(back.quoted).toBe('password: [redacted]"xyz and more');
    expect(JSON.stringify(back.nested)).not.toContain(rnd(30));
    expect(back.nested[1]).toBe(42);
    expect(record.content).toContain(rnd(40));
  });
});

describe('the fields of a log record the rules are not run on (issue 25)', () => {
  it('skips snowflakes, numbers, ISO times and the fields the bot names itself, nothing else', () => {
    expect(cannotHoldSecret('id', '1234567890123456789')).toBe(true);
    expect(cannotHoldSecret('inReplyTo', '1234567890123456789')).toBe(true);
    expect(cannotHoldSecret('at', '2026-11-21T09:00:00.000Z')).toBe(true);
    expect(cannotHoldSecret('type', 'message')).toBe(true);
    expect(cannotHoldSecret('model', 'claude-sonnet-4-20250514')).toBe(true);
    expect(cannotHoldSecret('channel', '111111111111111111/222222222222222222')).toBe(true);
    for (const key of ['content', 'name', 'error', 'note', undefined]) {
      expect(cannotHoldSecret(key, 'my password is swordfish')).toBe(false);
      expect(cannotHoldSecret(key, `sk-ant-api03-${rnd(30)}`)).toBe(false);
    }
    // An id or a time field holding anything but an id or a time is redacted like any other.
    expect(cannotHoldSecret('id', `sk-ant-api03-${rnd(30)}`)).toBe(false);
    expect(cannotHoldSecret('at', 'my password is swordfish')).toBe(false);
  });

  it('still redacts a secret in a field it does not know, at any depth, and in an id field that is not an id', () => {
    const record = {
      type: 'message',
      id: '1234567890123456789',
      at: '2026-11-21T09:00:00.000Z',
      author: { id: '9876543210987654321', name: 'alice' },
      somethingNew: 'the wifi pass is CorrectHorse42',
      deeper: { list: [{ whatever: `token sk-ant-api03-${rnd(30)}` }] },
      inReplyTo: ['1234567890123456789', `sk-ant-api03-${rnd(31)}`],
    };
    const back = JSON.parse(JSON.stringify(redactValues(record))) as typeof record;
    expect(back.somethingNew).toBe('the wifi pass is [redacted]');
    expect(JSON.stringify(back.deeper)).not.toContain(rnd(30));
    expect(back.inReplyTo[0]).toBe('1234567890123456789');
    expect(back.inReplyTo[1]).not.toContain(rnd(31));
    expect({ id: back.id, at: back.at, author: back.author, type: back.type }).toEqual({
      id: record.id,
      at: record.at,
      author: record.author,
      type: 'message',
    });
  });
});

describe('the first look before the rules (issue 25)', () => {
  it('does not run the rules on a message for the bot ("@Minutes …"); a password before an "@" is still found', () => {
    const rules = jest.spyOn(statements, 'statementSpans');
    try {
      const plain = '@Minutes what did we decide about the deploy pipeline? thanks @Minutes';
      expect(redactSecrets(plain)).toBe(plain);
      expect(rules).not.toHaveBeenCalled();
      const pw = rnd(12);
      expect(redactSecrets(`@Minutes connect with deploy:${pw}@10.0.0.5`)).not.toContain(pw);
      expect(redactSecrets(`@Minutes the db is postgres://app:${pw}@db.internal/app`)).not.toContain(pw);
      expect(rules).toHaveBeenCalled();
    } finally {
      rules.mockRestore();
    }
  });
});
