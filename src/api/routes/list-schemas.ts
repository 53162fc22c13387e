/**
 * The one envelope of every list answer (docs/decisions.md, Foundation): `{ items }`, and for a paged list
 * (one that takes `before`/`limit`) also `nextBefore`, null on the last page. Extra top-level fields are added
 * with `.extend()` only where they carry something that is not the list itself (webhooks' event names, open invites).
 */
import { z } from 'zod';

export const NextBefore = z.string().nullable()
  .describe('pass as the query parameter before to get the next (older) page; null on the last page');

/** `{ items }`: a list answer that is not paged. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

/** `{ items, nextBefore }`: a paged list answer, newest first. */
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextBefore: NextBefore });
