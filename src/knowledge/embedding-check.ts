/** What Save embeds to check that a connection's model makes embeddings (the answer is not kept). */
export const EMBEDDING_CHECK_TEXT = 'A short passage to check that this model makes embeddings.';
