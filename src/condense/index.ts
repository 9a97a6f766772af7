/** The Secretary's public API, for the Discord glue and the CLI. */
export type { TranscriptMessage, CondenseTarget, Poster, PinOutcome, CondensationDraft, CondensationFacts } from './types';
export { Secretary, PIN_NOT_ALLOWED_NOTICE, PINS_FULL_NOTICE } from './secretary';
export type { SecretaryOptions, CondenseRequest, CondenseResult, FaultPoint } from './secretary';
export { autoGate, AUTO_MIN_MESSAGES, AUTO_MIN_PEOPLE } from './gate';
export type { AutoGateInput, GateVerdict } from './gate';
export { humanMessages, ledgerKey, messagesSince, participantsOf } from './transcript';
export { readLedger, ensureFirstRun, listRetryable, retryableFailures, lastCondensedMessageId, latestForThread, mutateLedger, MAX_ATTEMPTS } from './ledger';
export type { Ledger, LedgerEntry, RetryableFailure } from './ledger';
export { auditChannel, listChannelRefs, formatAudit, auditIsClean } from './audit';
export type { ChannelAudit, StaleLine } from './audit';
export { markerFor, renderPost, renderCondensation, readFrontmatter } from './render';
export { currentDecisions, activeConstraints } from './contextDoc';
export type { ContextData, ContextDecision } from './contextDoc';
