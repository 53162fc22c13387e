/**
 * What every settings group reads: the draft being edited, the saved draft it started from, the schema rules,
 * the errors by setting path (from the API's details), and whether the person may change anything.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Json } from './types.js';

export interface Connection { id: string; kind: string; letter: 'A' | 'B' | 'C' | 'D'; name: string }

export interface Editor {
  botId: string;
  draft: Json;
  saved: Json;
  schema: Json | null;
  errors: Record<string, string>;
  canEdit: boolean;
  set(path: string, value: unknown): void;
  /** Provider connections of the workspace (for brain, voice and vision pickers). */
  connections: Connection[] | null;
}

export const EditorContext = createContext<Editor | null>(null);

export function useEditor(): Editor {
  const e = useContext(EditorContext);
  if (!e) throw new Error('useEditor outside the settings editor');
  return e;
}

/** The element id of a setting's input, so a problem elsewhere on the page can link to it. */
export const fieldId = (path: string) => `set-${path.replace(/[^\w]/g, '-')}`;
