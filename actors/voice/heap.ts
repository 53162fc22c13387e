import { setFlagsFromString } from 'node:v8';

let live = 0;

/**
 * While voice sessions are live, V8's old generation may grow to twice its live size before a full GC
 * (`--heap-growing-percent=100`): the audio buffers the relay passes through count against that limit until
 * they are freed, so at the default the limit was met every few seconds and each full GC paused the relay
 * (docs/decisions.md, "Voice relay session 3"). Set only while voice runs, so a server of idle chat sockets keeps
 * V8's tighter default (about 1.5 KB more RSS per idle socket with it). V8 reads the flag each time it sets a
 * new limit, after a full GC.
 */
export function holdVoiceHeap(): void {
  if (live++ === 0) setFlagsFromString('--heap-growing-percent=100');
}

/** Once for each holdVoiceHeap (a session's end, which runs once). */
export function releaseVoiceHeap(): void {
  if (--live === 0) setFlagsFromString('--heap-growing-percent=0');
}
