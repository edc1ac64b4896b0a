/**
 * The fixed directories executables resolve in. Never the ambient `PATH`,
 * never the workspace, never `node_modules/.bin`: a model that can write
 * files must not be able to plant the program a later command runs.
 */
export const SYSTEM_PATH: readonly string[] =
  process.platform === 'darwin'
    ? ['/opt/homebrew/bin', '/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']
    : ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
