import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedStore } from '../../src/store/embedded.js';
import { documentsContract } from './documents.contract.js';

// The embedded adapter always; MongoDB when MONGODB_URL points at a server (a fresh database per run, dropped after).
const dir = mkdtempSync(join(tmpdir(), 'sc-docs-'));
documentsContract('embedded', {
  open: async () => openEmbeddedStore(dir),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  const dbName = `servicechat_test_${Date.now().toString(36)}_${process.pid}`;
  const { openMongoStore, dropMongoDatabase } = await import('../../src/store/mongo.js');
  documentsContract('mongo', {
    open: () => openMongoStore(mongoUrl, dbName),
    cleanup: () => dropMongoDatabase(mongoUrl, dbName),
  });
} else documentsContract('mongo', { skip: 'MONGODB_URL is not set' });
