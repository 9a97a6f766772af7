import type { Settings } from '../config/load';
import { ConfigError } from '../config/errors';
import { ModelError, type ModelErrorKind } from '../llm/errors';
import { ProviderConfigError } from '../llm/provider';
import type { ModelRequest, ProviderName, Usage } from '../llm/types';
import type { ChannelRef } from '../memory/paths';
import type { SearchRequest } from '../recall/service';
import type { InboundMessage, LogRecord } from '../chat/conversation';
import type { ChannelCommand } from '../chat/commands';
import type { UpkeepTuning } from '../upkeep/schedule';
import type { TraceStage } from './probes';

/**
 * The messages between the gateway's thread (turnHost.ts) and the turn worker (turnWorker.ts).
 * Everything in them survives structured cloning: data only, no functions or class instances
 * (Dates excepted, which clone as Dates).
 */

export interface TurnWorkerData {
  /** The bot's settings without the Discord token (the worker never talks to Discord). */
  settings: Settings;
  upkeep?: Partial<UpkeepTuning>;
  /** The host's logger level and bindings: the worker's lines are written through the host's logger. */
  logLevel: string;
  logBindings: Record<string, unknown>;
  /** Forward the engine's timing marks (the load benchmark's trace probe). */
  trace: boolean;
}

/** A model request as it crosses: the signal and the text callback stay with the caller. */
export type WireModelRequest = Omit<ModelRequest, 'signal' | 'onText'>;

/** Host → worker. Those with an `id` are answered with `done` or `failed` carrying it. */
export type HostMessage =
  | { type: 'respond'; id: number; ref: ChannelRef; messages: InboundMessage[] }
  | { type: 'forget'; id: number; ref: ChannelRef; messageId: string }
  | { type: 'command'; id: number; ref: ChannelRef; actor: string; command: ChannelCommand }
  | { type: 'model'; id: number; request: WireModelRequest; stream: boolean }
  | { type: 'abort'; id: number }
  | { type: 'search'; id: number; request: SearchRequest }
  | { type: 'recall-idle'; id: number }
  | { type: 'close'; id: number }
  | { type: 'usage'; ref: ChannelRef; model: string; usage: Usage; at: Date }
  /** log.jsonl lines, in the order the host was asked for them (one message per turn of its event loop). */
  | { type: 'append-logs'; lines: { ref: ChannelRef; record: LogRecord }[] }
  | { type: 'warm'; dirs: { channelDirs: string[]; workspaceDir: string } }
  | { type: 'warm-up'; guildIds: string[] }
  | { type: 'abort-all'; reason: string };

/** Worker → host. */
export type WorkerMessage =
  /** The runtime is built; the model client's provider and models, for the host's proxy. */
  | { type: 'ready'; provider: ProviderName; models: { chat: string; side: string } }
  | { type: 'start-failed'; error: WireError }
  | { type: 'done'; id: number; value: unknown }
  | { type: 'failed'; id: number; error: WireError }
  /** A turn's model request is leaving (the host starts "typing" from here). */
  | { type: 'model-request'; id: number }
  | { type: 'text'; id: number; delta: string }
  /** One log line, already redacted and formatted by the worker's logger. */
  | { type: 'log'; line: string }
  /** Timing marks; `at` is the epoch in ms (timeOrigin + now): each thread has its own performance clock. */
  | { type: 'trace'; marks: { messageId: string; stage: TraceStage; at: number }[] };

/** An error as it crosses: what the host needs to word it and to log it. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  model?: {
    kind: ModelErrorKind;
    provider?: ProviderName;
    status?: number;
    retryAfterMs?: number;
    retryable: boolean;
    hint?: string;
    received?: string;
    /** What the channel is told (ModelErrorAfterNotes adds its notes to the provider's line). */
    userMessage: string;
  };
}

export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const wire: WireError = { name: err.name, message: err.message, stack: err.stack };
  if (err instanceof ModelError) {
    const { kind, provider, status, retryAfterMs, retryable, hint, received } = err;
    wire.model = { kind, provider, status, retryAfterMs, retryable, hint, received, userMessage: err.userMessage() };
  }
  return wire;
}

/** The error again, as the classes the host's code tests for (ModelError and the start-up errors). */
export function fromWire(w: WireError): Error {
  let err: Error;
  if (w.model) {
    const m = w.model;
    err = new ModelError(m.kind, w.message, {
      provider: m.provider,
      status: m.status,
      retryAfterMs: m.retryAfterMs,
      retryable: m.retryable,
      received: m.received,
      // The worded line as the worker made it (it may carry notes about memory already changed).
      hint: m.userMessage,
    });
  } else if (w.name === 'ProviderConfigError') err = new ProviderConfigError(w.message);
  else if (w.name === 'ConfigError') err = new ConfigError(w.message);
  else {
    err = new Error(w.message);
    err.name = w.name;
  }
  if (w.stack) err.stack = w.stack;
  return err;
}
