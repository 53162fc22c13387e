/**
 * What the team area is handed (the composition root makes both; `Services` has them under these names): the
 * conversation service, through which takeovers, team messages and handoff notices reach a conversation's actor,
 * and the workspace actors that time the handoffs waiting for a person.
 */
import type { ConversationService } from '../../actors/conversation/index.js';
import type { WorkspaceActors } from './workspace.js';

export interface TeamServices {
  conversations: Pick<ConversationService, 'ask' | 'send' | 'pushToVisitor'>;
  workspaceActors: WorkspaceActors;
}
