// `toolgate/sqlite`: the embedded journal (better-sqlite3 12), retention and audit helpers.
export { createSqliteJournal, DEFAULT_JOURNAL_PATH, journalFilesProblem, type SqliteJournalOptions } from './create-sqlite-journal.js';
export { SqliteJournal } from './sqlite-journal.js';
export { WalCheckpointer } from './wal-checkpointer.js';
export type { ResolveClaimOptions } from './journal-claims.js';
export type { ChainHead } from './chain-store.js';
export type { CompactOptions, CompactResult } from './compact-journal.js';
export type { SqliteVerifyResult, VerifyOptions } from './verify-chain.js';
export { anchorPathFor, readJournalAnchor, type JournalAnchor } from './journal-anchor.js';
export type { AnchorCase } from './describe-anchor-case.js';
export type { AnchorFinding, AnchoredVerifyResult } from './verify-against-anchor.js';
export { sweepRetention, type SweepRetentionOptions, type SweepRetentionResult, type RetentionDirectory } from '../sweep-retention.js';
export { readJournalFile, type JournalFileReading } from './read-journal-file.js';
export { verifyJournalFile } from './verify-journal-file.js';
export { createJournalAudit, describeVerification, type AuditEntry, type AuditFilter, type JournalAudit } from './create-journal-audit.js';
