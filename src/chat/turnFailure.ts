import path from 'node:path';
import { ModelError } from '../llm/errors';
import { NotUtf8FileError, StoreError } from '../memory/storeErrors';

/**
 * A model call that failed after the turn had already changed memory ("remember that …" is applied
 * before the call): the person must still learn what was saved or forgotten, so the notes ride
 * along with the provider's one line. Still a ModelError, so every transport words it the same way.
 */
export class ModelErrorAfterNotes extends ModelError {
  constructor(
    private readonly failure: ModelError,
    readonly notes: string[],
  ) {
    super(failure.kind, failure.message, {
      provider: failure.provider,
      status: failure.status,
      retryAfterMs: failure.retryAfterMs,
      retryable: false,
      hint: failure.hint,
      received: failure.received,
      cause: failure,
    });
  }

  override userMessage(): string {
    return `${this.failure.userMessage()} ${this.notes.join(' ')}`;
  }
}

/**
 * Why an explicit memory request changed nothing, in a line the person in the channel can act on.
 * The store's refusals already say what to do; anything else is for the operator's log.
 */
export function memoryRequestFailedNote(err: unknown): string {
  if (err instanceof NotUtf8FileError) {
    const name = path.basename(err.file);
    return `(Memory not changed: ${name} is not valid UTF-8, so Minutes will not rewrite it. Re-save ${name} as UTF-8 (any editor's "save with encoding"), then ask again.)`;
  }
  if (err instanceof StoreError) return `(Memory not changed: ${err.message.replace(/[.\s]+$/, '')}.)`;
  return '(Could not update memory just now; the operator can find why in the log.)';
}
