/**
 * Page tools: functions the embedding page registered with ServiceChat.registerTool. The widget tells the
 * server which exist (page_tools frame) and runs one when the server sends tool_call; the answer goes back
 * as tool_result. The server checks names and arguments against tools.client.allow and the schema.
 */
import type { PageTool } from '../types.js';

/** Longest result text sent back; the server cuts further to tools.maxResultChars. */
const MAX_RESULT_CHARS = 64_000;

export function toolSpecs(tools: Map<string, PageTool>) {
  // The server takes at most 50, names up to 64 characters and descriptions up to 1024 (src/conversation/protocol.ts).
  return [...tools.values()].filter((t) => t.name.length <= 64).slice(0, 50).map((t) => ({
    name: t.name, description: String(t.description ?? '').slice(0, 1024), parameters: t.parameters ?? { type: 'object', properties: {} },
  }));
}

/** Runs the handler; a thrown error or a missing tool becomes an error result the model can read. */
export async function runPageTool(tools: Map<string, PageTool>, name: string, args: unknown): Promise<{ content: string; isError?: boolean }> {
  const tool = tools.get(name);
  if (!tool) return { content: `The page has no tool named ${name}.`, isError: true };
  try {
    const parsed = typeof args === 'string' ? JSON.parse(args || '{}') : args ?? {};
    const out = await tool.handler(parsed);
    const text = typeof out === 'string' ? out : out === undefined ? 'done' : JSON.stringify(out);
    return { content: text.slice(0, MAX_RESULT_CHARS) };
  } catch (err) {
    return { content: `The page tool ${name} failed: ${(err as Error)?.message ?? String(err)}`, isError: true };
  }
}
