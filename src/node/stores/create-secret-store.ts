import type { SecretsCapability } from '../../core/internal.js';
import type { NodeHostOptions, SecretStore } from '../node-host-types.js';

/** Normalise the `secrets` option (a map, a record or a store) into one store. */
export function createSecretStore(secrets: NodeHostOptions['secrets']): SecretStore {
  if (secrets === undefined) return { get: () => undefined };
  if (secrets instanceof Map) {
    const map = secrets as ReadonlyMap<string, string>;
    return { get: (ref) => map.get(ref) };
  }
  if (typeof (secrets as SecretStore).get === 'function') return secrets as SecretStore;
  const record = secrets as Readonly<Record<string, string>>;
  return { get: (ref) => (Object.hasOwn(record, ref) ? record[ref] : undefined) };
}

/** What a tool may learn about a credential: that it exists. */
export function createSecretsCapability(store: SecretStore): SecretsCapability {
  return {
    async has(ref) {
      return (await store.get(ref)) !== undefined;
    },
  };
}
