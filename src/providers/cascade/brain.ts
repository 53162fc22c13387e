/**
 * One round of the brain in cascade voice: the bot's text model streams a reply, which is cut into speakable
 * sentences as it comes (each handed on at once, so speech starts on the first), and ends with the round's tool
 * calls and token usage. A model that goes quiet for longer than the time limit fails the round.
 */
import type { ChatMessage, ChatRequest, ToolCall } from '../types.js';
import type { CascadeParts } from './parts.js';
import { SpeakableSplitter } from './speakable.js';

export interface RoundResult {
  /** The sentences of the round, as handed on (the words the visitor hears). */
  pieces: string[];
  calls: ToolCall[];
  usage: { inputTokens: number; outputTokens: number };
}

export async function brainRound(input: {
  brain: CascadeParts['brain'];
  system: string;
  messages: ChatMessage[];
  tools: ChatRequest['tools'];
  maxOutputTokens: number;
  signal: AbortSignal;
  timeoutMs: number;
  onPiece(text: string): void;
}): Promise<RoundResult> {
  const { brain } = input;
  const splitter = new SpeakableSplitter();
  const out: RoundResult = { pieces: [], calls: [], usage: { inputTokens: 0, outputTokens: 0 } };
  const piece = (text: string) => { out.pieces.push(text); input.onPiece(text); };
  const quiet = new AbortController();
  const timeout = new Error(`${brain.label} sent nothing for ${Math.round(input.timeoutMs / 1000)} s`);
  let timer = setTimeout(() => quiet.abort(timeout), input.timeoutMs);
  try {
    await brain.adapter.chat!({
      model: brain.model, system: input.system, messages: input.messages, tools: input.tools,
      effort: brain.effort, temperature: brain.temperature, maxOutputTokens: input.maxOutputTokens,
    }, (e) => {
      clearTimeout(timer);
      timer = setTimeout(() => quiet.abort(timeout), input.timeoutMs);
      if (e.type === 'text') for (const p of splitter.push(e.delta)) piece(p);
      else if (e.type === 'tool_call') out.calls.push(e.call);
      else if (e.type === 'usage') out.usage = { inputTokens: e.inputTokens, outputTokens: e.outputTokens };
    }, AbortSignal.any([input.signal, quiet.signal]));
  } catch (err) {
    if (input.signal.aborted) throw err;
    // Whole sentences the model had written still go out; a sentence it broke off in does not.
    for (const p of splitter.flush()) { if (!/[.!?…。！？]["'”’)\]]*$/.test(p)) break; piece(p); }
    throw quiet.signal.aborted ? timeout : err;
  } finally {
    clearTimeout(timer);
  }
  for (const p of splitter.flush()) piece(p);
  return out;
}
