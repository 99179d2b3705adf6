/**
 * Scenarios: composites written as data (`scenarios: [...]` in any config format, JSON included).
 * Everything that can be known before a run is checked when the config loads, each problem
 * naming the scenario and step: the shape and its bounds, the input schema, every tool called,
 * every `${...}` reference, and each step's arguments against its tool's schema where no
 * reference stands in the way. A checked scenario becomes a composite with `uses` set to the
 * tools it calls, so its CAPS, annotations and hiding are derived like any composite's.
 */
import { z } from 'zod';
import { annotationsShape, TOOL_NAME, toolNameShape, toolScopeShape } from '../../host/define.js';
import { applyParamAliases, describeZodError } from '../../host/params.js';
import { CONDITION_OPERATORS, pathSegments, VALUE_PATH } from '../../kit/condition.js';
import type { CompositeSpec } from '../../authoring/config.js';
import type { ToolScope } from '../../host/plugin-api.js';
import { dataComposite, type ToolFacts } from './composites.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import { InputSchemaError, inputSchema } from './scenario-input.js';
import { eachString, jsonProblem, parseTemplate } from './scenario-refs.js';
import { expectCondition, runScenario, type CompiledStep } from './scenario-run.js';

export const MAX_SCENARIOS = 100;
export const MAX_STEPS = 100;
/** A whole run: ten minutes by default, an hour at most (a longer test is several calls). */
const DEFAULT_TIMEOUT_MS = 600_000;
const MAX_TIMEOUT_MS = 3_600_000;
/** The tool a `wait_for` step runs (plugins/wait-for): the step is that call, failing when nothing matched. */
const WAIT_TOOL = 'wait_for';

const stepName = z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'as must match ^[a-z][a-z0-9_]{0,31}$ (it is referred to as $' + '{steps.<as>.result})');
const argsShape = z.record(z.string(), z.unknown(), { error: 'must be an object of arguments' });
const STEP_SHAPES = {
  call: z.strictObject({ call: z.string().regex(TOOL_NAME, 'call must name a tool (^[a-z][a-z0-9_]{0,47}$)'), args: argsShape.optional(), as: stepName.optional() }),
  wait_for: z.strictObject({ wait_for: argsShape, as: stepName.optional() }),
  expect: z.strictObject({ expect: argsShape, as: stepName.optional() }),
};
const STEP_KINDS = Object.keys(STEP_SHAPES) as Array<keyof typeof STEP_SHAPES>;

const scenarioShape = z.strictObject({
  name: toolNameShape,
  description: z.string().trim().min(1, 'must say what the scenario does, for a model').max(4096),
  input: z.unknown().optional(),
  steps: z.array(z.unknown()).min(1, 'a scenario needs at least one step').max(MAX_STEPS, `at most ${MAX_STEPS} steps`),
  timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS, `timeout_ms is at most ${MAX_TIMEOUT_MS} (an hour)`).optional(),
  annotations: annotationsShape.optional(),
  only: toolScopeShape.optional(),
});

/** What the steps of a scenario may call, and what each takes. */
export interface ScenarioWorld {
  tools: ReadonlyMap<string, ToolFacts>;
  composites: readonly CompositeSpec[];
}

interface Checking {
  name: string;
  at: string;
  problems: ConfigProblem[];
}

function problem(c: Checking, step: number | null, label: string, path: string, reason: string, message: string): void {
  const where = step === null ? `scenario '${c.name}'` : `scenario '${c.name}' step ${step} (${label})`;
  c.problems.push({ path: `${c.at}${path}`, reason, message: `${where}: ${message}` });
}

const startsWith = (path: readonly PropertyKey[], prefix: readonly PropertyKey[]) => prefix.every((p, i) => path[i] === p);

/** Names an input schema declares, and whether it takes others. */
function inputNames(input: unknown): { names: Set<string>; open: boolean } {
  const schema = (input ?? {}) as { properties?: Record<string, unknown>; additionalProperties?: unknown };
  return { names: new Set(Object.keys(schema.properties ?? {})), open: schema.additionalProperties === true };
}

/** Why `ref` cannot be resolved from step `index`, or null. */
function refProblem(ref: string, inputs: { names: Set<string>; open: boolean }, earlier: ReadonlyMap<string, number>): string | null {
  const segs = pathSegments(ref);
  if (segs[0] === 'steps') {
    if (segs.length < 3 || segs[2] !== 'result') return `\${${ref}}: write \${steps.N.result...} or \${steps.<as>.result...}`;
    if (earlier.has(segs[1]!)) return null;
    const known = [...earlier.keys()];
    return `\${${ref}}: no earlier step is ${/^\d+$/.test(segs[1]!) ? 'numbered' : 'named'} '${segs[1]}' (earlier steps: ${known.length ? known.join(', ') : 'none'})`;
  }
  if (inputs.names.has(segs[0]!) || inputs.open) return null;
  return `\${${ref}}: the input has no property '${segs[0]}' (it has: ${[...inputs.names].join(', ') || 'none'})`;
}

/** Check the references in `value`; the key paths of the strings that hold any. */
function checkRefs(c: Checking, step: number, label: string, value: unknown, base: string, inputs: ReturnType<typeof inputNames>, earlier: ReadonlyMap<string, number>): PropertyKey[][] {
  const at: PropertyKey[][] = [];
  eachString(value, (text, keys) => {
    const parts = parseTemplate(text);
    const where = `${base}${keys.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('')}`;
    if (typeof parts === 'string') return problem(c, step, label, where, 'bad_reference', parts);
    const refs = parts.filter((p) => typeof p === 'object');
    if (refs.length === 0) return;
    at.push(keys);
    for (const { ref } of refs) {
      const why = refProblem(ref, inputs, earlier);
      if (why) problem(c, step, label, where, 'unknown_reference', why);
    }
  });
  return at;
}

/** Issues of `schema` for `value` that no reference could explain: those at or under a referenced value are left to run time. */
function argIssues(schema: z.ZodType, value: unknown, refsAt: readonly PropertyKey[][]): z.ZodError | null {
  const parsed = schema.safeParse(value);
  if (parsed.success) return null;
  const issues = parsed.error.issues.filter((i) => !refsAt.some((r) => startsWith(i.path, r) || (i.code === 'custom' && startsWith(r, i.path))));
  return issues.length > 0 ? new z.ZodError(issues) : null;
}

function inputOf(name: string, world: ScenarioWorld, scenarioInputs: ReadonlyMap<string, z.ZodType>): { found: boolean; input?: z.ZodType; aliases?: Record<string, string> } {
  const fact = world.tools.get(name);
  if (fact) return { found: true, input: fact.input, aliases: fact.paramAliases };
  const composite = world.composites.find((s) => s.name === name);
  if (composite) return { found: true, input: composite.input ?? z.strictObject({}) };
  if (scenarioInputs.has(name)) return { found: true, input: scenarioInputs.get(name) };
  return { found: false };
}

function checkStep(
  c: Checking,
  raw: unknown,
  index: number,
  world: ScenarioWorld,
  inputs: ReturnType<typeof inputNames>,
  earlier: Map<string, number>,
  scenarioInputs: ReadonlyMap<string, z.ZodType>,
): CompiledStep | null {
  const base = `.steps[${index}]`;
  const kinds = STEP_KINDS.filter((k) => typeof raw === 'object' && raw !== null && Object.hasOwn(raw, k));
  if (kinds.length !== 1) {
    problem(c, index, 'unknown kind', base, 'bad_step', `a step has exactly one of ${STEP_KINDS.join(', ')} (got ${kinds.length ? kinds.join(', ') : 'none'})`);
    return null;
  }
  const kind = kinds[0]!;
  const label = kind === 'call' ? String((raw as { call: unknown }).call).slice(0, 64) : kind;
  const parsed = STEP_SHAPES[kind].safeParse(raw);
  if (!parsed.success) {
    problem(c, index, label, base, 'bad_step', describeZodError(parsed.error, 'step'));
    return null;
  }
  const s = parsed.data as { call?: string; args?: Record<string, unknown>; wait_for?: Record<string, unknown>; expect?: Record<string, unknown>; as?: string };
  const before = c.problems.length;
  let step: CompiledStep;
  if (kind === 'expect') {
    const expect = s.expect!;
    const path = typeof expect.path === 'string' ? expect.path.trim() : '';
    if (!VALUE_PATH.test(path)) problem(c, index, label, `${base}.expect.path`, 'bad_reference', 'expect.path must be a reference path such as steps.0.result.tick or steps.spawn.result.output[0]');
    else {
      const why = refProblem(path, inputs, earlier);
      if (why) problem(c, index, label, `${base}.expect.path`, 'unknown_reference', why.replace(/^\$\{([^}]*)\}/, '$1'));
    }
    const refsAt = checkRefs(c, index, label, { ...expect, path: undefined }, `${base}.expect`, inputs, earlier);
    const operators = CONDITION_OPERATORS.filter((op) => expect[op] !== undefined);
    if (operators.length !== 1) {
      problem(c, index, label, `${base}.expect`, 'bad_expectation', `expect needs exactly one of ${CONDITION_OPERATORS.join(', ')} next to path (got ${operators.join(', ') || 'none'})`);
    } else {
      const issues = argIssues(expectCondition, { ...expect, path: path || 'x' }, refsAt);
      if (issues) problem(c, index, label, `${base}.expect`, 'bad_expectation', describeZodError(issues, 'expect'));
    }
    step = { kind: 'expect', expect: { ...expect, path } };
  } else {
    const tool = kind === 'call' ? s.call! : WAIT_TOOL;
    const args = (kind === 'call' ? s.args : s.wait_for) ?? {};
    const argsAt = kind === 'call' ? `${base}.args` : `${base}.wait_for`;
    const target = inputOf(tool, world, scenarioInputs);
    const refsAt = checkRefs(c, index, label, args, argsAt, inputs, earlier);
    if (!target.found) {
      problem(c, index, label, kind === 'call' ? `${base}.call` : base, 'unknown_tool', `no loaded plugin, composite or scenario defines the tool '${tool}'`);
    } else if (target.input) {
      try {
        const issues = argIssues(target.input, applyParamAliases(tool, args, target.aliases), refsAt);
        if (issues) problem(c, index, label, argsAt, 'bad_args', `invalid arguments for '${tool}': ${describeZodError(issues, 'args')}`);
      } catch (err) {
        problem(c, index, label, argsAt, 'bad_args', (err as Error).message);
      }
    }
    step = { kind: kind === 'call' ? 'call' : 'until', tool, args };
  }
  if (s.as !== undefined) {
    if (earlier.has(s.as)) problem(c, index, label, `${base}.as`, 'bad_step', `'${s.as}' already names step ${earlier.get(s.as)}`);
    earlier.set(s.as, index);
    step.as = s.as;
  }
  earlier.set(String(index), index);
  return c.problems.length === before ? step : null;
}

/**
 * Check the `scenarios` list against the tools it may call and turn each into a composite.
 * `taken` holds every tool name already used (plugins, composites), with its owner for messages.
 */
export function compileScenarios(entries: readonly unknown[], world: ScenarioWorld, taken: ReadonlyMap<string, string>, file: string | null): CompositeSpec[] {
  if (entries.length > MAX_SCENARIOS) throw new ConfigError(file, [{ path: 'scenarios', reason: 'too_large', message: `at most ${MAX_SCENARIOS} scenarios (got ${entries.length})` }]);
  const problems: ConfigProblem[] = [];
  const shaped: Array<{ c: Checking; spec: z.infer<typeof scenarioShape> }> = [];
  const scenarioInputs = new Map<string, z.ZodType>();
  for (const [i, entry] of entries.entries()) {
    const named = (entry as { name?: unknown } | null)?.name;
    const c: Checking = { name: typeof named === 'string' ? named.slice(0, 64) : `#${i}`, at: `scenarios[${i}]`, problems };
    const tooBig = jsonProblem(entry);
    if (tooBig) {
      problem(c, null, '', '', 'too_large', tooBig);
      continue;
    }
    const parsed = scenarioShape.safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problem(c, null, '', issue.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join(''), 'bad_shape', issue.message);
      continue;
    }
    const spec = parsed.data;
    const owner = taken.get(spec.name) ?? (scenarioInputs.has(spec.name) ? 'another scenario' : undefined);
    if (owner) {
      problem(c, null, '', '.name', 'name_taken', `the tool name '${spec.name}' is already taken by ${owner}; rename the scenario`);
      continue;
    }
    try {
      scenarioInputs.set(spec.name, inputSchema(spec.input));
      shaped.push({ c, spec });
    } catch (err) {
      if (!(err instanceof InputSchemaError)) throw err;
      problem(c, null, '', `.input.${err.at}`, 'bad_schema', `input: ${err.message}`);
    }
  }
  const compiled = shaped.map(({ c, spec }) => {
    const inputs = inputNames(spec.input);
    const earlier = new Map<string, number>();
    const steps = spec.steps.map((raw, j) => checkStep(c, raw, j, world, inputs, earlier, scenarioInputs));
    const uses = [...new Set(steps.flatMap((s) => (s && s.kind !== 'expect' ? [s.tool] : [])))];
    const scenario = { name: spec.name, steps: steps as CompiledStep[], timeoutMs: spec.timeout_ms ?? DEFAULT_TIMEOUT_MS };
    return dataComposite(
      {
        name: spec.name,
        description: spec.description,
        input: scenarioInputs.get(spec.name) as CompositeSpec['input'],
        uses,
        ...(spec.annotations ? { annotations: spec.annotations } : {}),
        ...(spec.only ? { only: spec.only as ToolScope } : {}),
      },
      c.at,
      (args, ctx) => runScenario(scenario, args as Record<string, unknown>, ctx),
    );
  });
  if (problems.length > 0) throw new ConfigError(file, problems);
  return compiled;
}
