/**
 * The fake MCP server over stdio: run as `node --import tsx test/fakes/mcp-stdio-server.ts`.
 * Same tools as the HTTP fake; `env` reports the environment the client gave this process.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildFakeMcpServer, newFakeMcpState } from './mcp-server.js';

const state = newFakeMcpState();
// Extra tools from the command line (--tool name), so a test can start a server with more tools.
for (let i = 2; i < process.argv.length; i++) if (process.argv[i] === '--tool') state.extraTools.push(process.argv[++i]);
await buildFakeMcpServer(state).connect(new StdioServerTransport());
