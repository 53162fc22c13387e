/**
 * The fake MCP server over stdio: run as `node --import tsx test/fakes/mcp-stdio-server.ts`.
 * Same tools as the HTTP fake; `env` reports the environment the client gave this process.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkMcp } from './mcp-schemas.js';
import { buildFakeMcpServer, newFakeMcpState } from './mcp-server.js';

const state = newFakeMcpState();
// Extra tools from the command line (--tool name), so a test can start a server with more tools.
for (let i = 2; i < process.argv.length; i++) if (process.argv[i] === '--tool') state.extraTools.push(process.argv[++i]);
const transport = new StdioServerTransport();
await buildFakeMcpServer(state).connect(transport);
// Each message is checked by the fake (mcp-schemas.ts) before the SDK's server reads it; a refusal is answered here.
const sdk = transport.onmessage!;
transport.onmessage = (message: JSONRPCMessage) => {
  const wrong = checkMcp(message);
  if (!wrong) return sdk(message);
  void transport.send({ jsonrpc: '2.0', id: wrong.id ?? 0, error: { code: wrong.code, message: wrong.message } } as JSONRPCMessage);
};
