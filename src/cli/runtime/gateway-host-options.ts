import { join } from 'node:path';
import { anchorPathFor } from '../../journal/sqlite/index.js';
import type { NodeHostOptions } from '../../node/index.js';
import type { ResolvedConfig } from '../config/config-types.js';

/** Where the gateway's host spills what it keeps: `runs/` (spilled outputs), `media/`, `bin/`. */
export function gatewaySpillDir(config: ResolvedConfig): string {
  return join(config.workspace, '.toolgate', 'spill');
}

/**
 * The Node host a configuration describes: jailed to the workspace at its
 * scope, its protected paths as the policy names them, and the gateway's
 * own files refused to every tool.
 */
export function gatewayHostOptions(config: ResolvedConfig): NodeHostOptions {
  return {
    workspace: config.workspace,
    scope: config.scope,
    spillDir: gatewaySpillDir(config),
    privatePaths: gatewayStatePaths(config),
    protectedPaths: config.policy.protectedPaths ?? [],
    readableProtectedPaths: config.policy.readableProtectedPaths ?? [],
    maskWalkLimit: {
      ...(config.limits.maskWalkEntries === undefined ? {} : { entries: config.limits.maskWalkEntries }),
      ...(config.limits.maskWalkMilliseconds === undefined ? {} : { milliseconds: config.limits.maskWalkMilliseconds }),
    },
  };
}

/**
 * The gateway's own files: its state directory (remembered rules, MCP pins,
 * spills), the journal and the configuration file, which may hold an
 * upstream server's credentials in `env`. No tool reads or writes them,
 * whatever the tier or an approval says: the host refuses them outright.
 */
function gatewayStatePaths(config: ResolvedConfig): string[] {
  const journal = config.journal.path;
  return ['.toolgate', journal, `${journal}-wal`, `${journal}-shm`, `${journal}-journal`, anchorPathFor(journal), ...(config.file === undefined ? [] : [config.file])];
}
