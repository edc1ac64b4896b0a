import { Option, type Command } from 'commander';
import { RECEIPT_STATUSES } from './option-choices.js';
import type { RunTask } from './run-task.js';

// Each command's module loads when the command runs: the program starts without the journal and the gateway.
const auditCommand = () => import('../commands/audit-command.js');

/** `audit tail`, `show`, `verify`, `unresolved`, `resolve`, `sign-tail`, `trust-key`, `trust-journal` and `export`: read, verify and settle the journal. */
export function addAuditCommands(program: Command, run: RunTask): void {
  const audit = program.command('audit').description('read and verify the journal');
  audit
    .command('tail')
    .description('the newest receipts')
    .option('-n, --lines <n>', 'how many', '20')
    .option('-f, --follow', 'keep printing new receipts')
    .option('--tool <tool>', 'only this tool')
    .addOption(new Option('--status <status>', 'only receipts with this status').choices([...RECEIPT_STATUSES]))
    .option('--agent <agent>', 'only this agent (cli for toolgate call)')
    .option('--run <run>', 'only this run (the serve banner names it; cli for toolgate call)')
    .action((options: { lines: string; follow?: boolean; tool?: string; status?: string; agent?: string; run?: string }) =>
      run(async (output, config) => {
        const controller = new AbortController();
        process.once('SIGINT', () => controller.abort());
        const filter = { ...(options.tool === undefined ? {} : { tool: options.tool }), ...(options.status === undefined ? {} : { status: options.status }), ...(options.agent === undefined ? {} : { agent: options.agent }), ...(options.run === undefined ? {} : { runId: options.run }) };
        return (await auditCommand()).runAuditTail(config(), { lines: Math.max(1, Number(options.lines) || 20), follow: options.follow === true, filter }, output, controller.signal);
      }),
    );
  audit
    .command('show <invocation>')
    .description('one receipt with its chain position')
    .action((id: string) => run(async (output, config) => (await auditCommand()).runAuditShow(config(), id, output)));
  audit
    .command('verify')
    .description('verify the hash chain and signatures against the anchored head; name the first bad row or how the file was cut or replaced')
    .option('--anchor <file>', 'check against this anchor (a copy kept elsewhere) instead of the journal\'s own .anchor file')
    .option('--no-anchor', 'walk the chain alone')
    .option('--strict', 'fail on rows beyond the anchor and on a missing anchor')
    .action((options: { anchor: string | boolean; strict?: boolean }) =>
      run(async (output, config) => (await import('../commands/audit-verify-command.js')).runAuditVerify(config(), { ...(options.anchor === false ? { anchor: false } : typeof options.anchor === 'string' ? { anchor: options.anchor } : {}), strict: options.strict === true }, output)),
    );
  audit
    .command('unresolved')
    .description('calls that claimed their effect and never settled (a crash, or a process still running): each refuses its action until resolved')
    .action(() => run(async (output, config) => (await auditCommand()).runAuditUnresolved(config(), output)));
  audit
    .command('resolve <claim>')
    .description('answer an unresolved claim, journaled: --as failed (the effect did not happen; the action may run again) or --as done (it happened)')
    .requiredOption('--as <outcome>', 'failed or done')
    .option('--note <text>', 'why, for the audit trail')
    .option('--force', 'resolve even though the pid that held the claim runs on this host (it may be another process now)')
    .action((claim: string, options: { as: string; note?: string; force?: boolean }) =>
      run(async (output, config) => (await auditCommand()).runAuditResolve(config(), claim, { as: options.as, ...(options.note === undefined ? {} : { note: options.note }), force: options.force === true }, output)),
    );
  audit
    .command('sign-tail')
    .description('sign over the unsigned rows a signed journal ends on (written while signing was off), which it refuses to link onto: names them and the hash they end on, and signs them over with --yes --head HASH')
    .option('--yes', 'sign them over: you checked them')
    .option('--head <hash>', 'with --yes: the hash of the row they end on, as the listing printed it; rows appended or rewritten since are not signed over')
    .action((options: { yes?: boolean; head?: string }) => run(async (output, config) => (await auditCommand()).runAuditSignTail(config(), { yes: options.yes === true, ...(options.head === undefined ? {} : { head: options.head }) }, output)));
  audit
    .command('trust-key')
    .description("record the journal's signing key as yours, for a key made before toolgate recorded the keys it makes: names it by its public key's fingerprint, and records it with --yes --fingerprint SHA256")
    .option('--yes', 'record it: you made this key')
    .option('--fingerprint <sha256>', 'with --yes: the fingerprint it printed; a key swapped since is not recorded')
    .action((options: { yes?: boolean; fingerprint?: string }) =>
      run(async (output, config) => (await import('../commands/trust-key-command.js')).runAuditTrustKey(config(), { yes: options.yes === true, ...(options.fingerprint === undefined ? {} : { fingerprint: options.fingerprint }) }, output)),
    );
  audit
    .command('trust-journal')
    .description("adopt the journal as yours, for one made before toolgate recorded the journals it makes, or your own from another machine: names it by its id and what it holds, and adopts it with --yes --id ID")
    .option('--yes', 'adopt it: your toolgate wrote this journal')
    .option('--id <id>', 'with --yes: the journal id it printed; a journal swapped since is not adopted')
    .action((options: { yes?: boolean; id?: string }) =>
      run(async (output, config) => (await import('../commands/trust-journal-command.js')).runAuditTrustJournal(config(), { yes: options.yes === true, ...(options.id === undefined ? {} : { id: options.id }) }, output)),
    );
  audit
    .command('export')
    .description('export every receipt')
    .addOption(new Option('--format <format>').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--out <file>', 'write to a file instead of standard output')
    .action((options: { format: string; out?: string }) => run(async (output, config) => (await auditCommand()).runAuditExport(config(), options.format, options.out, output)));
}
