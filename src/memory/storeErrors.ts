/** Why a write or a state read of the channel store was refused; the message says what to do. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** A `.minutes/` state file that does not parse: rewriting it from empty would drop its history. */
export class MalformedStateError extends StoreError {
  override name = 'MalformedStateError';
}
