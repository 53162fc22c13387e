import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedVectors } from '../../src/store/vectors-embedded.js';
import { vectorsContract } from './vectors.contract.js';

// The embedded adapter always; Qdrant when QDRANT_URL points at a server (collections named per run, dropped after).
const dir = mkdtempSync(join(tmpdir(), 'sc-vec-'));
vectorsContract('embedded', {
  open: async () => openEmbeddedVectors(dir),
  prefix: '',
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});

const qdrantUrl = process.env.QDRANT_URL;
if (qdrantUrl) {
  const apiKey = process.env.QDRANT_API_KEY ?? null;
  const prefix = `sctest_${Date.now().toString(36)}_${process.pid}_`;
  const { openQdrantVectors, dropQdrantCollections } = await import('../../src/store/qdrant.js');
  vectorsContract('qdrant', {
    open: () => openQdrantVectors(qdrantUrl, apiKey),
    prefix,
    cleanup: () => dropQdrantCollections(qdrantUrl, apiKey, prefix),
  });
} else vectorsContract('qdrant', { skip: 'QDRANT_URL is not set' });
