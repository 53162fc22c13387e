export { Mailbox, MailboxFullError, isMailboxFullError, type MailboxOptions, type EnqueueOptions, type Priority } from './mailbox.js';
export { ActorTimers } from './timers.js';
export {
  Actor, ActorStoppedError, assertNever,
  type ActorStatus, type ActorLogger, type ActorOptions, type ReplyMap, type ReplyOf, type SendOptions, type StopOptions,
} from './actor.js';
export { ActorRegistry, type AnyActor, type ActorFactory, type ActorFactoryContext, type ActorRegistryOptions, type ActorRegistryMetrics } from './registry.js';
