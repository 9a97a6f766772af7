import type { FaultPoint } from '../condense/saga/secretary';

/** Where a message is in its turn, for the load benchmark's timing marks. */
export type TraceStage = 'received' | 'model-sent' | 'model-done' | 'send-issued' | 'send-done';

/**
 * Instruments a benchmark or a test hands to the composition root (createRuntime, launchBot) once;
 * the parts are wired to the components from there, so no caller of the engine, the bot or the
 * Secretary sees them. Production passes none.
 */
export interface Probes {
  /** A triggering message reached a stage of its turn, at `performance.now()` time `at`. */
  trace?(messageId: string, stage: TraceStage, at: number): void;
  /** A condensation reached a step (the crash-safety test kills the process there). */
  fault?(point: FaultPoint): void | Promise<void>;
}
