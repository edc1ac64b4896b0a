import { MAX_JSON_DEPTH } from '../dispatch/snapshot-json.js';
import type { JsonSchema } from './tool-types.js';

/**
 * The answer for a schema whose cost is this or more, or cannot be known
 * (a reference this walk does not resolve, a schema applied to its own value
 * in a loop): every figure above it means the same, too costly.
 */
export const CHECK_COST_CEILING = 1_000_000;

/** Keywords whose schemas apply to the value itself, as lists, as one schema, and as maps of schemas. */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_ONE = ['not', 'if', 'then', 'else'];
const IN_PLACE_MAPS = ['dependentSchemas', 'dependencies'];
const REFERENCES = ['$ref', '$recursiveRef', '$dynamicRef'];
/** Keywords whose schemas apply to an object's members or names, each member meeting one or all of them. */
const MEMBER_ONE = ['additionalProperties', 'propertyNames', 'unevaluatedProperties'];
/** Keywords whose schemas apply to an array's items. */
const ITEM_ONE = ['additionalItems', 'contains', 'unevaluatedItems'];

type SchemaObject = Readonly<Record<string, unknown>>;

/** One schema object, with what applies where: the schema graph the cost is counted on. */
interface SchemaNode {
  /** Schemas checked against the same value. */
  readonly inPlace: SchemaNode[];
  /** Schemas one member of an object meets: any one of `named` (by its name), and every one of `every`. */
  readonly named: SchemaNode[];
  readonly members: SchemaNode[];
  /** Schemas one item of an array meets: any one of `positional`, and every one of `items`. */
  readonly positional: SchemaNode[];
  readonly items: SchemaNode[];
  /** How many names its `properties` declare, `true` and `false` schemas included. */
  readonly names: number;
}

class Unknowable extends Error {}

/**
 * A schema whose reference names nothing it holds: a pointer to a part it
 * lacks, or a schema outside it (which no validator here fetches). ajv
 * refuses such a schema too; this says so before anything is compiled.
 */
export class UnresolvedReferenceError extends Error {
  constructor() {
    super('refers to a schema it does not hold');
    this.name = 'UnresolvedReferenceError';
  }
}

/** A schema refused for what checking a value against it could cost; its message says so, in words for a person. */
export class TooCostlySchemaError extends Error {
  constructor() {
    super(`could check one value against ${CHECK_COST_CEILING.toLocaleString('en-US')} or more of its schemas (unions that multiply at every level of the value, a schema applied to its own value in a loop, or a reference only a remote fetch resolves)`);
    this.name = 'TooCostlySchemaError';
  }
}

/**
 * The most schema objects that checking one value against `schema` can
 * check a single node of that value against, at any depth: an upper bound on
 * what a validator such as ajv does per node. A union of 300 shapes checks
 * each item of an array under it against up to 301; definitions that each
 * offer two ways down (`anyOf` of the one below and an array of it) double
 * it at every level, so a value 22 arrays deep costs four million checks.
 * What a whole value costs is at most this times its number of nodes.
 *
 * Local references (`#`, `#/json/pointer`) are followed. One by an anchor,
 * or inside a subschema with an `$id` of its own (however it is reached: by
 * its place, or by a pointer through it), makes the cost unknowable, and so
 * `CHECK_COST_CEILING`, as does a schema that applies to its own value in a
 * loop. One that names nothing the schema holds (a missing part, a schema
 * elsewhere) throws `UnresolvedReferenceError`. Depth counts down from
 * `MAX_JSON_DEPTH` levels of the value.
 * Linear in the schema's size times that depth.
 */
export function schemaCheckCost(schema: JsonSchema): number {
  let graph: { root: SchemaNode; nodes: SchemaNode[] };
  try {
    graph = buildGraph(schema);
  } catch (error) {
    if (error instanceof Unknowable) return CHECK_COST_CEILING;
    throw error;
  }
  const order = inPlaceOrder(graph.nodes);
  if (order === undefined) return CHECK_COST_CEILING;
  const capped = (value: number): number => Math.min(CHECK_COST_CEILING, value);
  // How many schema objects check the same value as a node, itself included.
  const tracked = tracksEvaluated(schema) ? trackingNodes(graph.nodes) : undefined;
  const widths = new Map<SchemaNode, number>();
  for (const node of order) {
    const own = tracked?.has(node) === true ? 1 + node.names : 1;
    widths.set(node, capped(node.inPlace.reduce((sum, next) => sum + widthOf(widths, next), own)));
  }
  // costs: the most checks of one node at most `depth` levels below a value checked once against each schema.
  let costs = widths;
  for (let depth = 1; depth <= MAX_JSON_DEPTH; depth += 1) {
    const below = new Map<SchemaNode, number>();
    const next = new Map<SchemaNode, number>();
    let changed = false;
    for (const node of order) {
      const own = Math.max(most(costs, node.named) + sum(costs, node.members), most(costs, node.positional) + sum(costs, node.items));
      const through = capped(node.inPlace.reduce((total, inPlace) => total + (below.get(inPlace) ?? 0), own));
      below.set(node, through);
      const cost = Math.max(widthOf(widths, node), through);
      next.set(node, cost);
      if (cost !== costs.get(node)) changed = true;
    }
    costs = next;
    if (!changed || widthOf(costs, graph.root) >= CHECK_COST_CEILING) break;
  }
  return widthOf(costs, graph.root);
}

/**
 * Whether ajv compiles `schema` with its evaluated members tracked: 2019-09
 * and 2020-12 (`unevaluatedProperties`), as `draftOf` reads the dialect,
 * whether the schema uses that keyword or not.
 */
function tracksEvaluated(schema: JsonSchema): boolean {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  return dialect.includes('2020-12') || dialect.includes('2019-09');
}

/**
 * The nodes where ajv may track the names an object's check evaluated at
 * run time, one name after another for each object: a node with schemas
 * checked in its place (`anyOf`, `oneOf`, `if`… make the set known only as
 * the value is checked) and each schema checked in another's place. Each
 * name its `properties` declare then costs about as much as a check: an
 * `anyOf` of `{ properties }` with 1,000 names (a 12 KB schema) held the
 * event loop 13 s over 20,000 empty objects, though `true` for every name
 * makes it a single object. A plain object schema's names are known as it
 * compiles, and cost nothing per object.
 */
function trackingNodes(nodes: readonly SchemaNode[]): ReadonlySet<SchemaNode> {
  const tracking = new Set<SchemaNode>();
  for (const node of nodes) {
    if (node.inPlace.length === 0) continue;
    tracking.add(node);
    for (const next of node.inPlace) tracking.add(next);
  }
  return tracking;
}

/** A node's figure; 1 for `true`, `false` and anything else that checks nothing further. */
function widthOf(figures: ReadonlyMap<SchemaNode, number>, node: SchemaNode): number {
  return figures.get(node) ?? 1;
}

const sum = (figures: ReadonlyMap<SchemaNode, number>, list: readonly SchemaNode[]): number => list.reduce((total, next) => total + widthOf(figures, next), 0);
const most = (figures: ReadonlyMap<SchemaNode, number>, list: readonly SchemaNode[]): number => list.reduce((max, next) => Math.max(max, widthOf(figures, next)), 0);

/**
 * The nodes, each after every node checked in its place; undefined when a
 * node is checked in its own place again (a loop with no end but the stack's).
 * Iterative: a chain of thousands of references is no deeper for it.
 */
function inPlaceOrder(nodes: readonly SchemaNode[]): SchemaNode[] | undefined {
  const order: SchemaNode[] = [];
  const state = new Map<SchemaNode, 'open' | 'done'>();
  for (const start of nodes) {
    if (state.has(start)) continue;
    const stack: { node: SchemaNode; next: number }[] = [{ node: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const child = top.node.inPlace[top.next];
      if (child === undefined) {
        stack.pop();
        state.set(top.node, 'done');
        order.push(top.node);
        continue;
      }
      top.next += 1;
      const seen = state.get(child);
      if (seen === 'open') return undefined;
      if (seen === undefined) {
        state.set(child, 'open');
        stack.push({ node: child, next: 0 });
      }
    }
  }
  return order;
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The graph of `schema`'s applicators, references resolved; throws
 * `Unknowable` on a reference it cannot follow, `UnresolvedReferenceError`
 * on one that names nothing. A node is an object and whether it lies inside
 * a subschema with an `$id` of its own (`scoped`): there a reference
 * resolves against that `$id`, not the root, so the same object shared by
 * both places is two nodes.
 */
function buildGraph(schema: JsonSchema): { root: SchemaNode; nodes: SchemaNode[] } {
  const nodes = { plain: new Map<unknown, SchemaNode>(), scoped: new Map<unknown, SchemaNode>() };
  const all: SchemaNode[] = [];
  const pending: { value: SchemaObject; node: SchemaNode; scoped: boolean }[] = [];
  const nodeOf = (value: unknown, outerScoped: boolean): SchemaNode => {
    const scoped = outerScoped || (isSchemaObject(value) && value !== schema && typeof value.$id === 'string');
    const seen = scoped ? nodes.scoped : nodes.plain;
    let node = seen.get(value);
    if (node === undefined) {
      node = { inPlace: [], named: [], members: [], positional: [], items: [], names: isSchemaObject(value) && isSchemaObject(value.properties) ? Object.keys(value.properties).length : 0 };
      // `true`, `false` and anything that is not a schema object check nothing further.
      if (isSchemaObject(value)) {
        seen.set(value, node);
        all.push(node);
        pending.push({ value, node, scoped });
      }
    }
    return node;
  };
  const root = nodeOf(schema, false);
  while (pending.length > 0) {
    const { value, node, scoped } = pending.pop()!;
    const add = (list: SchemaNode[], next: unknown): void => {
      list.push(nodeOf(next, scoped));
    };
    for (const keyword of IN_PLACE_LISTS) if (Array.isArray(value[keyword])) for (const next of value[keyword] as unknown[]) add(node.inPlace, next);
    for (const keyword of IN_PLACE_ONE) if (keyword in value) add(node.inPlace, value[keyword]);
    for (const keyword of IN_PLACE_MAPS) {
      const map = value[keyword];
      if (isSchemaObject(map)) for (const next of Object.values(map)) if (!Array.isArray(next)) add(node.inPlace, next);
    }
    for (const keyword of REFERENCES) {
      const reference = value[keyword];
      if (typeof reference !== 'string') continue;
      if (scoped) throw new Unknowable();
      const target = resolveLocal(schema, reference);
      node.inPlace.push(nodeOf(target.value, target.scoped));
    }
    if (isSchemaObject(value.properties)) for (const next of Object.values(value.properties)) add(node.named, next);
    if (isSchemaObject(value.patternProperties)) for (const next of Object.values(value.patternProperties)) add(node.members, next);
    for (const keyword of MEMBER_ONE) if (keyword in value) add(node.members, value[keyword]);
    if (Array.isArray(value.items)) for (const next of value.items as unknown[]) add(node.positional, next);
    else if ('items' in value) add(node.items, value.items);
    if (Array.isArray(value.prefixItems)) for (const next of value.prefixItems as unknown[]) add(node.positional, next);
    for (const keyword of ITEM_ONE) if (keyword in value) add(node.items, value[keyword]);
  }
  return { root, nodes: all };
}

/**
 * The subschema a local reference names (`#` or a JSON pointer from the root), and whether the pointer passes
 * through or ends on an object, other than the root, with an `$id` of its own: ajv resolves the references inside
 * it against that `$id`, so `#/definitions/a` there is not the root's `a`, and this walk cannot follow them.
 */
function resolveLocal(schema: JsonSchema, reference: string): { value: unknown; scoped: boolean } {
  if (reference === '#') return { value: schema, scoped: false };
  if (!reference.startsWith('#')) throw new UnresolvedReferenceError();
  // `#name`: an anchor, which `$anchor` or an `$id` anywhere in the schema may declare.
  if (!reference.startsWith('#/')) throw new Unknowable();
  let target: unknown = schema;
  let scoped = false;
  for (const raw of reference.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      throw new UnresolvedReferenceError();
    }
    if (Array.isArray(target) && /^(?:0|[1-9]\d*)$/.test(segment)) target = target[Number(segment)];
    else if (isSchemaObject(target) && Object.hasOwn(target, segment)) target = target[segment];
    else throw new UnresolvedReferenceError();
    if (isSchemaObject(target) && target !== schema && typeof target.$id === 'string') scoped = true;
  }
  return { value: target, scoped };
}
