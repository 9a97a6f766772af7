import { KeyedQueue, OncePerKey } from '../../src/shared/queue';

/** A promise with its resolve/reject, to hold a task open while the test looks. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('KeyedQueue', () => {
  it('runs one key in order and different keys side by side', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const gateA = deferred();
    const a1 = q.run('a', async () => {
      log.push('a1 start');
      await gateA.promise;
      log.push('a1 end');
    });
    const a2 = q.run('a', async () => {
      log.push('a2');
    });
    const b1 = q.run('b', async () => {
      log.push('b1');
    });
    await b1;
    expect(log).toEqual(['a1 start', 'b1']);
    gateA.resolve();
    await Promise.all([a1, a2]);
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
  });

  it('a failed task rejects its caller and does not stop the next one', async () => {
    const q = new KeyedQueue();
    const failed = q.run('a', async () => {
      throw new Error('disk full');
    });
    const next = q.run('a', async () => 'written');
    await expect(failed).rejects.toThrow('disk full');
    await expect(next).resolves.toBe('written');
  });

  it('a task that queues on its own key waits for itself to finish', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    let inner: Promise<void> | undefined;
    await q.run('a', async () => {
      inner = q.run('a', async () => {
        log.push('inner');
      });
      await Promise.resolve();
      log.push('outer done');
    });
    await inner;
    expect(log).toEqual(['outer done', 'inner']);
  });
});

describe('OncePerKey', () => {
  it('shares the first run of a key with every later caller', async () => {
    const once = new OncePerKey();
    let runs = 0;
    const gate = deferred();
    const task = async (): Promise<void> => {
      runs++;
      await gate.promise;
    };
    const first = once.run('c1', task);
    const second = once.run('c1', task);
    const other = once.run('c2', task);
    expect(second).toBe(first);
    expect(other).not.toBe(first);
    gate.resolve();
    await Promise.all([first, second, other]);
    await once.run('c1', task);
    expect(runs).toBe(2);
  });

  it('forgets a failed run so the next caller tries again', async () => {
    const once = new OncePerKey();
    let runs = 0;
    const failing = once.run('c1', async () => {
      runs++;
      throw new Error('EACCES');
    });
    await expect(failing).rejects.toThrow('EACCES');
    await once.run('c1', async () => {
      runs++;
    });
    expect(runs).toBe(2);
    expect(once.get('c1')).toBeDefined();
  });

  it('settled() waits for runs in flight and does not reject', async () => {
    const once = new OncePerKey();
    const gate = deferred();
    let finished = false;
    void once.run('c1', async () => {
      await gate.promise;
      finished = true;
    });
    once
      .run('c2', async () => {
        throw new Error('no');
      })
      .catch(() => undefined);
    const settled = once.settled();
    gate.resolve();
    await settled;
    expect(finished).toBe(true);
  });
});
