import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compilePathGlob } from '../../core/policy/compile-path-glob.js';
import { createPathTextMatcher, withoutRoot } from '../../core/policy/protected-paths.js';
import { runRegexProgram } from '../../core/policy/run-regex-program.js';
import { isInside, realOrSelf } from './fs-jail.js';

/**
 * The system's own secrets, outside any home: host keys, the password and
 * group shadows, sudo's rules, what an orchestrator, a container runtime or
 * a cloud's first boot leaves on the machine for its own use (a cluster's
 * admin credentials, a pod's service account token, Docker and systemd
 * secrets, the instance's user data), TLS private keys, and the other
 * secrets an administrator keeps under `/etc`. In the `full` tier a tool
 * reaches the whole filesystem, and the gateway often runs as root (in
 * containers and CI), where every one of them is readable: `read_file
 * /etc/shadow` under `Read(**)`, an upstream filesystem server rooted at
 * `/`, and a `tar` of `/etc` a glob allowed returned them with nobody
 * asked. Each is protected like a key file of the workspace: a person
 * approves each read of it, by its real path, and the sandbox masks it.
 * Globs are read on absolute real paths, case-insensitively.
 */
export const SYSTEM_CREDENTIAL_PATHS: readonly string[] = Object.freeze([
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/security/opasswd',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/ssh/ssh_host_*_key',
  '/etc/ssl/private',
  '/etc/pki/tls/private',
  '/etc/letsencrypt',
  '/etc/krb5.keytab',
  '/etc/ipsec.secrets',
  '/etc/wireguard',
  '/etc/NetworkManager/system-connections',
  '/etc/environment',
  '/etc/kubernetes',
  '/etc/rancher',
  '/var/lib/kubelet',
  '/var/lib/rancher',
  '/var/run/secrets',
  '/run/secrets',
  '/run/credentials',
  '/etc/docker',
  '/var/lib/docker',
  '/var/lib/containers',
  '/var/lib/cloud',
]);

/**
 * The homes of the machine's other users, whose credential stores (the list
 * the host masks in its own home) are no less secret to a gateway that can
 * read them: root's home, and each folder of `/home`. A gateway run as root
 * with `HOME` elsewhere (a CI job's) left `/root`'s in sight of a `tar`.
 */
export const OTHER_HOMES: readonly string[] = Object.freeze(['/root', '/home/*']);

export interface CredentialPaths {
  /** Whether an absolute real path is, or is inside, one of the system's secrets (in `full`, or a home's store): protected. */
  readonly matches: (absolute: string) => boolean;
  /** Those and every home's stores (`homeStores`, in `home` and the other homes), each as one place, its glob read against the disk now: what the sandbox masks. */
  readonly places: readonly string[];
}

/**
 * The system's credential paths, and the places the sandbox masks, leaving
 * out any that holds the workspace: protecting it would protect the
 * workspace itself, and masking it would hide the workspace from its own
 * commands. A home's stores are masked in every tier, as the host user's
 * always were, and protected too in the `full` tier (`full`), the one tier
 * where a tool that reads a file itself (`read_file`, an upstream
 * filesystem server) reaches a home: there `read_file ~/.codex/auth.json`
 * under `Read(**)` returned the token with nobody asked. Elsewhere the jail
 * keeps a home out of those tools, and a command reads the store masked.
 */
export function credentialPaths(workspace: string, home: string, homeStores: readonly string[], full: boolean): CredentialPaths {
  // A glob holds the workspace only if the workspace begins with the glob's literal start: most are not compiled at all.
  const foldedWorkspace = workspace.toLowerCase();
  const holdsWorkspace = (glob: string): boolean => foldedWorkspace.startsWith(literalStart(glob)) && createPathTextMatcher([glob])(withoutRoot(workspace));
  // The home is a name, not a glob: a `[` or `*` in it is matched as itself.
  const ownStores = homeStores.map((store) => path.posix.join(home.replace(/[*?[\]{}()!+@\\]/g, '\\$&'), store));
  const stores = [...ownStores, ...OTHER_HOMES.flatMap((folder) => homeStores.map((store) => path.posix.join(folder, store)))].filter((glob) => !holdsWorkspace(glob));
  const system = SYSTEM_CREDENTIAL_PATHS.filter((glob) => !holdsWorkspace(glob));
  const matcher = createPathTextMatcher(full ? [...system, ...stores] : system);
  const literal = homeStores.map((store) => path.join(home, store));
  // Every path a governed call names is classified: the globs are matched only below their literal starts, so a
  // workspace elsewhere (`/tmp/…`, `/srv/…`) pays a few prefix checks, not the matcher.
  const starts = literalStarts(full ? [...system, ...OTHER_HOMES.map((folder) => `${folder}/`), ...literal] : system);
  return {
    matches: (absolute) => {
      const folded = absolute.toLowerCase();
      return starts.some((start) => folded.startsWith(start)) && matcher(withoutRoot(absolute));
    },
    places: [...new Set([...literal, ...[...system, ...stores.filter((glob) => !ownStores.includes(glob))].flatMap(expand)])].filter((place) => !isInside(realOrSelf(place), workspace)),
  };
}

/** A glob's text before its first glob character or escape, case-folded: every path it matches (all absolute) begins with it. */
function literalStart(glob: string): string {
  return glob.slice(0, glob.search(/[*?[\]{}()!+@\\]|$/)).toLowerCase();
}

/** Each glob's literal start, with none that a shorter one already begins. */
function literalStarts(globs: readonly string[]): string[] {
  const starts = globs.map(literalStart).sort((a, b) => a.length - b.length);
  return starts.filter((start, index) => !starts.slice(0, index).some((shorter) => start.startsWith(shorter)));
}

/** A glob's places as the disk holds them now, one segment at a time; a literal path as itself. */
function expand(glob: string): string[] {
  let places = ['/'];
  for (const segment of glob.split('/').filter((name) => name !== '')) {
    if (!/[*?[\]{}]/.test(segment)) {
      places = places.map((place) => path.join(place, segment));
      continue;
    }
    // As picomatch's matcher reads a name: never the empty one, the glob's own spelling, or what its reading matches.
    const { program } = compilePathGlob(segment, true);
    const isMatch = (name: string): boolean => name !== '' && (name === segment || runRegexProgram(program, name));
    places = places.flatMap((place) => listed(place).filter((name) => isMatch(name)).map((name) => path.join(place, name)));
  }
  return places;
}

/**
 * A folder's names. A `/home` of mode 0711 lets each user pass to a home by
 * its name and list none: a gateway run as a user listed nothing there, and
 * masked no other home's stores, which any command could read by name (a
 * `grep -r` of a home read its `.npmrc` token). There the homes the system's
 * users have stand in for the names.
 */
function listed(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return usersHomesIn(folder);
  }
}

/** The names in `folder` of the homes `/etc/passwd` gives the system's users. */
function usersHomesIn(folder: string): string[] {
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return [];
  }
  const homes = passwd.split('\n').map((line) => line.split(':')[5] ?? '');
  return homes.filter((home) => home !== folder && path.dirname(home) === folder).map((home) => path.basename(home));
}
