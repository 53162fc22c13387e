import type { AppContext } from '../app/context.js';
import type { Principal } from '../auth/principal.js';
import { forbidden, type ApiError } from '../kernel/errors.js';

/**
 * Who may have this server start a program as a stdio MCP server (docs/tools.md): the operator lists the programs
 * in MCP_STDIO_COMMANDS (unset: none), and only a signed-in admin or owner adds or changes one; never an API token.
 */
export function stdioRefusal(app: AppContext, principal: Principal | null, command: string | null): ApiError | null {
  const allowed = app.config.mcpStdioCommands;
  if (allowed.length === 0) {
    return forbidden('stdio MCP servers are off on this server: they start programs on the host. The operator can list the programs allowed in MCP_STDIO_COMMANDS (absolute paths, comma-separated) and restart; or connect the MCP server over HTTP instead');
  }
  if (principal?.kind !== 'session') {
    return forbidden('stdio MCP servers start programs on this server: an admin adds or changes them signed in to the admin panel, never with an API token; connect over HTTP to do it with a token');
  }
  if (principal.role !== 'admin' && principal.role !== 'owner') {
    return forbidden('stdio MCP servers start programs on this server: ask an admin or the owner of this workspace to add or change one');
  }
  if (!command || !allowed.includes(command)) {
    return forbidden(`command: ${command ? `${command} is not` : 'a stdio server needs a program that is'} one of the programs this server allows (MCP_STDIO_COMMANDS: ${allowed.join(', ')}); use one of those, or ask the operator to add it`);
  }
  return null;
}

/** A stored stdio server runs only while its program is still allowed (an operator who removes it stops it starting). */
export function stdioAllowed(app: AppContext, command: string | null): boolean {
  return !!command && app.config.mcpStdioCommands.includes(command);
}
