// Simulates a crash (power cut, OOM killer, kill -9) at one moment of the CLI's run, named by TG_CRASH_AT:
//  id-write    : just before the journal's id is written (after its schema committed)
//  first-row   : just after the journal-made row committed, before the record learns it
const where = process.env.TG_CRASH_AT;
const die = () => process.kill(process.pid, 'SIGKILL');
if (where === 'id-write') {
  const Database = require(require.resolve('better-sqlite3', { paths: [process.cwd(), __dirname] }));
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (sql, ...rest) {
    if (/INSERT OR IGNORE INTO meta \(name, value\) VALUES \('journal_id'/.test(sql)) die();
    return prepare.call(this, sql, ...rest);
  };
}
if (where === 'first-row') {
  const fs = require('node:fs');
  const rename = fs.renameSync;
  let seen = 0;
  fs.renameSync = function (from, to) {
    if (String(to).endsWith('journals.json') && ++seen === 2) die();
    return rename.call(this, from, to);
  };
}
