/**
 * A scenario run as a tool: its steps in order, each step's result kept for the references of
 * later ones, the first failure stopping it as `scenario_failed` with the step, its tool and the
 * cause (the inner call's code and message, or the expectation with expected and actual).
 */
import { CONDITION_OPERATORS, conditionHolds, pathCondition, readPath } from '../../kit/condition.js';
import { describeZodError } from '../../host/params.js';
import { McbridgeError, toMcbridgeError } from '../../host/errors.js';
import type { ToolContext } from '../../host/plugin-api.js';
import { resolve, UnresolvedReference } from './scenario-refs.js';

export const expectCondition = pathCondition('expect', "the scenario's input and step results");

/** A step as checked when the config loaded. */
export type CompiledStep =
  | { kind: 'call'; tool: string; args: Record<string, unknown>; as?: string }
  | { kind: 'until'; tool: string; args: Record<string, unknown>; as?: string }
  | { kind: 'expect'; expect: Record<string, unknown> & { path: string }; as?: string };

export interface CompiledScenario {
  name: string;
  steps: CompiledStep[];
  /** The whole run's bound: a step still running then is cancelled. */
  timeoutMs: number;
}

/** What a step is called in messages: its tool, or `expect`. */
export function stepLabel(step: CompiledStep): string {
  return step.kind === 'expect' ? 'expect' : step.tool;
}

/** A value short enough for a message. */
function shown(value: unknown, max = 200): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A value small enough to carry in error details: the value itself, or its JSON cut short. */
function carried(value: unknown, max = 4000): unknown {
  const text = JSON.stringify(value ?? null);
  return text.length > max ? { truncated: `${text.slice(0, max)}…`, chars: text.length } : value;
}

class StepFailure extends Error {
  constructor(
    message: string,
    readonly detail: Record<string, unknown>,
  ) {
    super(message);
  }
}

const WORDS: Record<string, string> = { equals: 'equal', not_equals: 'not equal', gte: 'be >=', lte: 'be <=', contains: 'contain', exists: 'exist:' };

function checkExpectation(step: Extract<CompiledStep, { kind: 'expect' }>, scope: Record<string, unknown>): unknown {
  const parsed = expectCondition.safeParse(resolve(step.expect, scope));
  if (!parsed.success) throw new StepFailure(`the expectation is not valid once its references are filled in: ${describeZodError(parsed.error, 'expect')}`, { reason: 'bad_expectation' });
  const condition = parsed.data;
  const found = readPath(scope, condition.path);
  if (conditionHolds(condition, found)) return found.present ? found.value : null;
  const op = CONDITION_OPERATORS.find((k) => condition[k] !== undefined)!;
  const expected = condition[op];
  throw new StepFailure(`expected ${condition.path} to ${WORDS[op]} ${shown(expected)}, but it is ${found.present ? shown(found.value) : 'absent'}`, {
    reason: 'expectation',
    path: condition.path,
    operator: op,
    expected: carried(expected),
    actual: found.present ? carried(found.value) : null,
    present: found.present,
  });
}

async function runStep(step: CompiledStep, scope: Record<string, unknown>, ctx: ToolContext, since: number, signal: AbortSignal): Promise<unknown> {
  if (step.kind === 'expect') return checkExpectation(step, scope);
  const args = resolve(step.args, scope) as Record<string, unknown>;
  if (step.kind === 'call') return ctx.call(step.tool, args, { signal });
  // Events count from before the step ahead of it, so the answer to a command just sent is seen.
  const result = (await ctx.call(step.tool, { since, ...args }, { signal })) as Record<string, unknown>;
  if (result?.matched !== true) {
    throw new StepFailure(`nothing matched within ${shown(result?.waitedMs)} ms`, { reason: 'no_match', waitedMs: result?.waitedMs, seen: carried(result?.seen) });
  }
  return result;
}

/** Run the scenario with validated `args`; resolves to every step's result, or throws `scenario_failed`. */
export async function runScenario(scenario: CompiledScenario, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
  const results: Record<string, { result: unknown }> = {};
  const scope: Record<string, unknown> = { ...args, steps: results };
  const done: Array<Record<string, unknown>> = [];
  let before = ctx.events.lastSeq;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), scenario.timeoutMs);
  const signal = AbortSignal.any([ctx.signal, deadline.signal]);
  try {
    for (const [index, step] of scenario.steps.entries()) {
      const label = stepLabel(step);
      ctx.progress(index, scenario.steps.length, `step ${index} (${label})`);
      const startedAt = ctx.events.lastSeq;
      let result: unknown;
      try {
        if (deadline.signal.aborted) throw new McbridgeError('cancelled', 'the scenario ran out of time');
        result = await runStep(step, scope, ctx, before, signal);
      } catch (err) {
        if (deadline.signal.aborted && !ctx.signal.aborted)
          throw failed(scenario.name, index, label, new StepFailure(`the scenario ran past its timeout_ms (${scenario.timeoutMs} ms)`, { reason: 'timed_out', timeoutMs: scenario.timeoutMs }));
        throw failed(scenario.name, index, label, err);
      }
      results[String(index)] = { result };
      if (step.as) results[step.as] = { result };
      done.push({ step: index, [step.kind === 'expect' ? 'expect' : 'tool']: step.kind === 'expect' ? step.expect.path : label, ...(step.as ? { as: step.as } : {}), result });
      before = startedAt;
    }
  } finally {
    clearTimeout(timer);
  }
  ctx.progress(scenario.steps.length, scenario.steps.length, 'done');
  return { passed: true, steps: done };
}

function failed(scenario: string, step: number, tool: string, err: unknown): McbridgeError {
  const prefix = `scenario '${scenario}' step ${step} (${tool})`;
  const details = (cause: Record<string, unknown>) => ({ scenario, step, tool, cause });
  if (err instanceof StepFailure) return new McbridgeError('scenario_failed', `${prefix}: ${err.message}`, details(err.detail));
  if (err instanceof UnresolvedReference) return new McbridgeError('scenario_failed', `${prefix}: ${err.message}`, details({ reason: 'unresolved_reference', reference: err.ref }));
  const e = toMcbridgeError(err);
  if (e.code === 'cancelled') return e;
  // The inner write's outcome (retryable, resultUnknown) still tells the caller whether it may have run.
  return new McbridgeError('scenario_failed', `${prefix}: [${e.code}] ${e.message}`, details({ code: e.code, error: e.message, ...(e.details ? { details: e.details } : {}) }), e.outcome);
}
