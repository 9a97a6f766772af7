import { Writable } from 'node:stream';
import { createLogger } from '../../src/log/logger';

describe('the logger', () => {
  it('logs errors one way, { err }, with type and stack, and never a secret from their message or stack', () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const log = createLogger({ level: 'info', format: 'json', destination });
    log.warn({ err: new Error('cannot connect to redis://:hunter2-secret@cache.internal:6379') }, 'limiter down');
    log.warn({ err: 'plain text with sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA inside' }, 'odd');
    const text = JSON.stringify(lines);
    expect(text).not.toContain('hunter2-secret');
    expect(text).not.toContain('sk-ant-api03-AAAA');
    const err = lines[0].err as { type: string; message: string; stack: string };
    expect(err.type).toBe('Error');
    expect(err.message).toMatch(/^cannot connect to redis:\/\//);
    expect(err.stack).toContain('logger.test.ts');
  });
});
