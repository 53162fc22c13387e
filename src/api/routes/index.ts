import type { ApiModule } from '../define.js';

/**
 * The API's areas. Each module file owns its routes (and sockets); this list is the only place they meet.
 * Add a module here when its area lands.
 */
export async function apiModules(): Promise<ApiModule[]> {
  return [];
}
