import type { Clock } from '../../src/kernel/clock.js';
import { Mailbox, type MailboxOptions, type Priority } from './mailbox.js';
import { ActorTimers } from './timers.js';

export type ActorStatus = 'idle' | 'running' | 'stopping' | 'stopped';

/** The slice of a pino logger the runtime needs; a pino `Logger` fits. */
export interface ActorLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Optional per-message-type reply types, so `ask` is typed at the call site: `{ getCount: number }`. */
export type ReplyMap<Msg extends { type: string }> = { [K in Msg['type']]?: unknown };
export type ReplyOf<Replies, T extends string> = T extends keyof Replies ? Replies[T] : unknown;

export interface ActorOptions<State> {
  id: string;
  clock: Clock;
  log: ActorLogger;
  /** State before onStart runs; onStart usually replaces it with what the store holds. */
  initialState: State;
  mailbox?: MailboxOptions;
}

export interface SendOptions {
  priority?: Priority;
}

export interface StopOptions {
  /** true (default): handle everything already queued, then stop. false: reject queued asks with ActorStoppedError. */
  drain?: boolean;
}

export class ActorStoppedError extends Error {
  readonly code = 'actor_stopped' as const;
  constructor(readonly actorId: string) {
    super(`actor ${actorId} is stopped or stopping`);
    this.name = 'ActorStoppedError';
  }
}

/** Use in the `default:` branch of a handler's switch: it fails to compile when a message type is not handled. */
export function assertNever(msg: never): never {
  throw new Error(`unhandled message type ${JSON.stringify((msg as { type?: unknown })?.type)}`);
}

interface Envelope<Msg> {
  msg: Msg;
  resolve?: (value: unknown) => void;
  reject?: (err: unknown) => void;
}

/**
 * Base class for actors. Subclasses implement `handle(msg)` as one exhaustive switch over the message union;
 * its return value settles an `ask`, a thrown error rejects that ask only. State lives in `this.state` and is
 * only touched by the drain loop.
 */
export abstract class Actor<Msg extends { type: string }, State, Replies extends ReplyMap<Msg> = Record<never, never>> {
  readonly id: string;
  protected state: State;
  protected readonly clock: Clock;
  protected readonly log: ActorLogger;
  /** Per-actor timers; a due timer sends its message to this actor. All die when the actor stops. */
  protected readonly timers: ActorTimers<Msg>;

  private currentStatus: ActorStatus = 'idle';
  private readonly mailbox: Mailbox<Envelope<Msg>>;
  private lastActivity: number;
  private startPromise?: Promise<void>;
  private startedOk = false;
  private stopPromise?: Promise<void>;
  private handling = false;

  constructor(options: ActorOptions<State>) {
    this.id = options.id;
    this.clock = options.clock;
    this.log = options.log;
    this.state = options.initialState;
    this.lastActivity = options.clock.now();
    this.mailbox = new Mailbox<Envelope<Msg>>(
      (env) => this.process(env),
      (err, env) => this.log.error({ err, actorId: this.id, msgType: env.msg.type }, 'actor mailbox error'),
      options.mailbox,
    );
    // Timer messages skip the capacity check: they are bounded (one per name) and must not be lost to a flood.
    this.timers = new ActorTimers<Msg>(this.clock, (msg) => {
      this.lastActivity = this.clock.now();
      this.mailbox.enqueue({ msg }, { bypassLimit: true });
    });
  }

  /** Handles one message. Runs to completion (awaited) before the next message is taken. */
  protected abstract handle(msg: Msg): unknown;
  /** Runs once before the first message, e.g. to load state from the store. If it throws, the actor stops. */
  protected onStart(): void | Promise<void> {}
  /** Runs once after the last message, e.g. to flush state. */
  protected onStop(): void | Promise<void> {}
  /** Runs after a handler error is logged; override to turn the error into state or an event. */
  protected onHandlerError(_err: unknown, _msg: Msg): void | Promise<void> {}

  get status(): ActorStatus { return this.currentStatus; }
  /** Messages waiting in the mailbox. */
  get queued(): number { return this.mailbox.size; }
  /** True while a message is being handled. */
  get busy(): boolean { return this.handling; }
  /** Clock time of the last message sent, delivered by a timer, or finished. */
  get lastActivityAt(): number { return this.lastActivity; }

  /** Runs onStart, then begins draining (messages sent before start are kept). Idempotent. */
  start(): Promise<void> {
    if (this.currentStatus !== 'idle') return this.startPromise ?? Promise.resolve();
    this.startPromise ??= this.runStart();
    return this.startPromise;
  }

  /** Enqueues a message. Throws MailboxFullError when the mailbox is full, ActorStoppedError once stopping. */
  send(msg: Msg, options: SendOptions = {}): void {
    this.assertAccepting();
    this.mailbox.enqueue({ msg }, { priority: options.priority });
    this.lastActivity = this.clock.now();
  }

  /**
   * Enqueues a message and resolves with the handler's return value (rejects with its error, MailboxFullError
   * or ActorStoppedError). Never await an ask to yourself from inside a handler: it waits behind itself.
   */
  ask<M extends Msg>(msg: M, options: SendOptions = {}): Promise<ReplyOf<Replies, M['type']>> {
    return new Promise((resolve, reject) => {
      this.assertAccepting();
      this.mailbox.enqueue({ msg, resolve: resolve as (v: unknown) => void, reject }, { priority: options.priority });
      this.lastActivity = this.clock.now();
    });
  }

  /** Stops: cancels timers, refuses new messages, drains (or rejects) what is queued, runs onStop. Idempotent. */
  stop(options: StopOptions = {}): Promise<void> {
    this.stopPromise ??= this.runStop(options.drain ?? true);
    return this.stopPromise;
  }

  private assertAccepting(): void {
    if (this.currentStatus === 'stopping' || this.currentStatus === 'stopped') throw new ActorStoppedError(this.id);
  }

  /** Whether onStart's error is an expected refusal (logged as a warning without a stack). */
  protected expectedStartFailure(_err: unknown): boolean { return false; }

  private async runStart(): Promise<void> {
    try {
      await this.onStart();
    } catch (err) {
      // A refusal the actor expects (the caller reports it) is a warning without a stack; anything else an error.
      if (this.expectedStartFailure(err)) this.log.warn({ actorId: this.id, reason: (err as Error).message }, 'actor refused to start');
      else this.log.error({ err, actorId: this.id }, 'actor failed to start');
      this.timers.close();
      this.rejectQueued(err);
      this.currentStatus = 'stopped';
      throw err;
    }
    this.startedOk = true;
    if (this.currentStatus === 'idle') this.currentStatus = 'running';
    this.mailbox.start();
  }

  private async runStop(drain: boolean): Promise<void> {
    this.currentStatus = 'stopping';
    this.timers.close();
    if (this.startPromise) await this.startPromise.catch(() => undefined);
    if (!this.startedOk) {
      // Never started (or failed to): there is no loaded state to handle messages against.
      this.rejectQueued(new ActorStoppedError(this.id));
      this.currentStatus = 'stopped';
      return;
    }
    if (!drain) this.rejectQueued(new ActorStoppedError(this.id));
    await this.mailbox.whenIdle();
    try {
      await this.onStop();
    } catch (err) {
      this.log.error({ err, actorId: this.id }, 'actor onStop failed');
    }
    this.currentStatus = 'stopped';
  }

  private rejectQueued(err: unknown): void {
    for (const env of this.mailbox.clear()) env.reject?.(err);
  }

  /** Runs one message; synchronous handlers finish here without a promise (see Mailbox.drain). */
  private process(env: Envelope<Msg>): Promise<void> | void {
    this.handling = true;
    let result: unknown;
    try {
      result = this.handle(env.msg);
    } catch (err) {
      return this.failed(env, err);
    }
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      return (result as Promise<unknown>).then((value) => this.settled(env, value), (err) => this.failed(env, err));
    }
    this.settled(env, result);
  }

  private settled(env: Envelope<Msg>, result: unknown): void {
    this.handling = false;
    this.lastActivity = this.clock.now();
    env.resolve?.(result);
  }

  private async failed(env: Envelope<Msg>, err: unknown): Promise<void> {
    this.log.error({ err, actorId: this.id, msgType: env.msg.type }, 'actor message handler failed');
    env.reject?.(err);
    try {
      await this.onHandlerError(err, env.msg);
    } catch (hookErr) {
      this.log.error({ err: hookErr, actorId: this.id, msgType: env.msg.type }, 'actor onHandlerError failed');
    } finally {
      this.handling = false;
      this.lastActivity = this.clock.now();
    }
  }
}
