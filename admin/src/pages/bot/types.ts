/** Shapes the bot pages read from the API (GET /bots/{id} and friends); the config itself stays loose JSON. */
export type Json = Record<string, any>;

export interface BotFull {
  id: string; name: string; status: 'running' | 'paused'; revision: number;
  publishedVersion: number | null; publishedAt: number | null; createdAt: number; updatedAt: number;
  draft: Json;
  published: { version: number; config: Json; publishedAt: number } | null;
  versions: Array<{ version: number; publishedAt: number; publishedBy: { id: string; name: string } | null }>;
  hasIdentitySecret: boolean;
}

export interface Problem { path: string; message: string }
