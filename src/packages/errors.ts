/**
 * Why a package operation was refused: one line saying what is wrong and what to do. Nothing was
 * changed when one is thrown (every check runs before the one write).
 */
export type PackageErrorKind =
  | 'bad-name'
  | 'not-found'
  | 'exists'
  | 'bad-budget'
  | 'no-recipe'
  | 'unknown-item'
  | 'nothing-found'
  | 'private-thread'
  | 'other-server'
  | 'too-many-active'
  | 'bad-format'
  | 'not-signed'
  | 'bad-key'
  | 'too-large'
  | 'secret'
  | 'changed'
  | 'not-admin'
  | 'usage';

export class PackageError extends Error {
  override name = 'PackageError';
  constructor(
    readonly kind: PackageErrorKind,
    message: string,
  ) {
    super(message);
  }
}
