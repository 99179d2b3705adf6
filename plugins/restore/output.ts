/**
 * Output schemas of restore, verify and order (MCP outputSchema + structuredContent). The main
 * fields are typed; nested reports stay open objects so their details pass through unchanged.
 */
import { z } from 'zod';

const open = z.looseObject({});
const issue = z.object({ code: z.string(), message: z.string(), line: z.number().nullable() });
const verdict = z.enum(['ok', 'failed', 'unverified', 'dry-run']);

const compareReport = z.looseObject({
  ok: z.boolean(),
  strict: z.boolean(),
  orderHash: z.object({ expected: z.string(), actual: z.string(), match: z.boolean() }),
  counts: z.looseObject({ match: z.boolean() }),
  missing: z.object({ count: z.number(), sample: z.array(z.string()) }),
  unexpected: z.object({ count: z.number(), sample: z.array(z.string()) }),
  matched: z.number(),
  failures: z.record(z.string(), z.boolean()),
});

const tickReport = z.looseObject({
  prior: z.enum(['frozen', 'running', 'unknown']),
  priorSource: z.enum(['caller', 'query']).nullable(),
  frozenByBridge: z.boolean(),
  clearedWhileRunning: z.boolean(),
  restored: z.boolean().nullable().describe('the game was unfrozen again after this restore froze it'),
  preserved: z.boolean().nullable().optional().describe('the game ends in the tick state it had before (null: freeze=false)'),
});

export const restoreResult = z.looseObject({
  directory: z.string(),
  target: z.string().nullable(),
  targetIsLabel: z.literal(true),
  orderHash: z.string(),
  dimension: z.string().nullable(),
  levelName: z.string().nullable(),
  count: z.number().describe('entities in the recording'),
  summonable: z.number().describe('restorable records: one summon each'),
  skipped: z.array(z.object({ index: z.number(), uuid: z.string(), reason: z.string() })).describe('passengers: they come back inside their vehicle'),
  playersExcluded: z.number().nullable(),
  warnings: z.array(issue),
  endpoint: open.describe('what the destination reported (STATE and the greeting)'),
  checks: z.looseObject({ endpoint: open, dimension: open.nullable(), existing: open.nullable(), tick: tickReport.nullable() }),
  dryRun: z.boolean(),
  commands: z.array(z.string()).optional().describe('dry run: the summons an apply would send, in order'),
  issued: z.number().optional(),
  failed: z.array(z.looseObject({ index: z.number(), uuid: z.string(), command: z.string(), error: z.string() })).optional(),
  notAttempted: z.number().optional(),
  partial: z.boolean().optional(),
  verification: z
    .union([compareReport, z.object({ ok: z.literal(false), error: z.string() })])
    .nullable()
    .optional(),
  tick: tickReport.optional(),
  ok: z.boolean().nullable(),
  verified: z.boolean(),
  verdict: verdict.describe('ok only when a comparison ran and matched and the tick state is back as it was'),
  note: z.string().optional(),
});

const side = z.object({ orderHash: z.string(), count: z.number(), dimension: z.string().nullable() });

export const verifyResult = z.object({
  directory: z.string(),
  target: z.string().nullable(),
  targetIsLabel: z.literal(true),
  snapshotDir: z.string(),
  expected: side,
  actual: side,
  warnings: z.array(issue),
  actualIssues: z.array(issue),
  verification: compareReport,
  ok: z.boolean(),
  verdict: z.enum(['ok', 'failed']).describe("restore's word for the same answer: ok when the destination matches the recording"),
});

export const orderResult = z.object({
  match: z.boolean().describe('the fresh snapshot has the recorded tick order (hash only: an inventory change still matches)'),
  expected: z.string(),
  actual: z.string().nullable(),
  entities: z.number(),
  directory: z.string(),
  snapshotDir: z.string(),
  target: z.string().nullable(),
});
