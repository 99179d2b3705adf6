/**
 * Which game a restore would write to, and the proof that it is the intended one. Whichever way the call was routed
 * (a daemon of several targets routes by `target`; on one target it is only a label), the
 * destination is proven by what that game reports, never by a name.
 */
import path from 'node:path';
import { McbridgeError, type ModReply, type ToolContext } from 'mcbridge';
import { isObject, num, str } from 'mcbridge/kit';

export interface EndpointReport {
  instance: string | null;
  modPort: number | null;
  worldDir?: string | null;
  levelName?: string | null;
  serverVersion?: string | null;
  tick?: number | null;
  players?: number | null;
  dimensions?: string[];
  error?: string;
  [key: string]: unknown;
}

export interface Expectations {
  instance?: string | null | undefined;
  worldDir?: string | null | undefined;
  level?: string | null | undefined;
}

/** STATE plus what the greeting said; a failed STATE is reported, not thrown. */
export async function endpointReport(ctx: Pick<ToolContext, 'request' | 'host'>): Promise<EndpointReport> {
  const status = ctx.host.status();
  const base = { instance: status.instance ?? null, modPort: status.mod.port ?? null };
  let state: ModReply;
  try {
    state = await ctx.request('STATE');
  } catch (err) {
    if ((err as McbridgeError).code === 'cancelled') throw err;
    return { ...base, error: (err as Error).message };
  }
  const levels = Array.isArray(state.levels) ? state.levels.filter(isObject) : [];
  return {
    ...base,
    worldDir: str(state.worldDir) ?? null,
    levelName: str(state.levelName) ?? null,
    serverVersion: str(state.serverVersion) ?? null,
    tick: num(state.tick) ?? null,
    players: num(state.players) ?? null,
    dimensions: levels.map((l) => str(l.dimension)).filter((d): d is string => d !== undefined),
  };
}

/** Absolute, normalised, and case-folded for Windows paths; a trailing separator or `/.` is fine. Symlinks are not resolved. */
export function normalizePath(p: string | null | undefined): string {
  if (!p) return '';
  const windows = /^[A-Za-z]:[\\/]/.test(p) || p.includes('\\');
  if (windows) return path.win32.normalize(p).replace(/\\+$/, '').toLowerCase();
  return path.resolve(p);
}

const given = (v: string | null | undefined): v is string => typeof v === 'string' && v !== '';

export interface EndpointCheck {
  verified: boolean;
  proofs: string[];
  overridden: boolean;
  reason?: string;
  action?: string;
  [key: string]: unknown;
}

/** Checks the expectations against the report; a mismatch or an unverifiable expectation is an error. */
export function endpointChecks(report: EndpointReport, expect: Expectations, allowUnproven: boolean): EndpointCheck {
  const wanted = given(expect.instance) || given(expect.worldDir) || given(expect.level);
  if (report.error !== undefined) {
    if (wanted && !allowUnproven) {
      throw new McbridgeError('mod_error', `cannot verify the destination endpoint: STATE failed (${report.error}); nothing was sent to the game`);
    }
    return { verified: false, reason: `STATE failed: ${report.error}`, proofs: [], overridden: allowUnproven };
  }
  const facts = { instance: report.instance, worldDir: report.worldDir ?? null, levelName: report.levelName ?? null };
  if (!wanted) {
    return {
      verified: false,
      reason: 'no expect_instance/expect_world_dir/expect_level was given; an apply is refused unless allow_unproven_destination=true',
      proofs: [],
      overridden: allowUnproven,
      ...facts,
    };
  }
  const mismatches: string[] = [];
  const proofs: string[] = [];
  if (given(expect.instance)) {
    if (!report.instance) mismatches.push(`expect_instance=${expect.instance} but the mod reported no instance`);
    else if (report.instance.toLowerCase() !== expect.instance.toLowerCase()) mismatches.push(`expect_instance=${expect.instance} but the mod is ${report.instance}`);
    else proofs.push('instance');
  }
  if (given(expect.worldDir)) {
    if (!report.worldDir) {
      mismatches.push(`expect_world_dir=${expect.worldDir} but STATE reports no worldDir (a client-vantage mod cannot prove which save a server owns)`);
    } else if (normalizePath(report.worldDir) !== normalizePath(expect.worldDir)) {
      mismatches.push(`expect_world_dir=${expect.worldDir} but the destination's world is ${report.worldDir}`);
    } else proofs.push('world_dir');
  }
  if (given(expect.level)) {
    if (!report.levelName) mismatches.push(`expect_level=${expect.level} but STATE reports no levelName`);
    else if (report.levelName !== expect.level) mismatches.push(`expect_level=${expect.level} but the destination's level is ${report.levelName}`);
    else proofs.push('level');
  }
  if (mismatches.length > 0) {
    throw new McbridgeError(
      'invalid_params',
      `destination endpoint check failed: ${mismatches.join('; ')}. Nothing was sent to the game. Check which game this call went to (\`mcbridge targets\` lists each target's world); ` +
        'call it with the target that holds the intended world, or point a bridge at that server.',
      { mismatches },
    );
  }
  return {
    verified: true,
    proofs,
    overridden: false,
    ...facts,
    expectInstance: expect.instance ?? null,
    expectWorldDir: expect.worldDir ?? null,
    expectLevel: expect.level ?? null,
  };
}

export interface DimensionCheck {
  ok: boolean;
  verified: boolean;
  expected: string | null;
  actual: string | null;
  reason?: string;
}

/** The recording's dimension (or `expect_dimension`) against the destination snapshot's. */
export function dimensionCheck(wanted: string | null | undefined, actual: string | null | undefined): DimensionCheck {
  const expected = wanted || null;
  const got = actual || null;
  if (!expected) return { ok: true, verified: false, expected, actual: got, reason: 'the fork records no dimension' };
  if (!got) return { ok: false, verified: false, expected, actual: got, reason: 'the destination snapshot reports no dimension' };
  if (expected !== got) return { ok: false, verified: true, expected, actual: got, reason: `recording is ${expected}, destination is ${got}` };
  return { ok: true, verified: true, expected, actual: got };
}
