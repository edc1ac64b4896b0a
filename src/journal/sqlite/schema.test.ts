import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../core/internal.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';

describe('migrateSchema', () => {
  it('refuses a journal written by a newer toolgate as a configuration mistake, and leaves it untouched', () => {
    const db = new Database(':memory:');
    try {
      db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
      expect(() => migrateSchema(db)).toThrow(ConfigurationError);
      expect(() => migrateSchema(db)).toThrow(/newer than this toolgate/);
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
      expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});
