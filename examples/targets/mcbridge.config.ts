/**
 * One daemon, two game servers: `live` and `lab`, each an embedded simulated mod here (point
 * `serverDir` at real servers instead). `fork_to_lab` forks `live` and puts its entities back into
 * `lab` in their recorded order, checked at every step:
 *
 *   npx mcbridge run --config examples/targets/mcbridge.config.ts
 *   npx mcbridge targets
 *   npx mcbridge call fork_to_lab '{"name": "before"}'
 */
import { z } from 'zod';
import { defineComposite, defineConfig } from 'mcbridge';

interface Fork {
  snapshotDir: string;
  entities: number;
  orderHash: string;
}

/**
 * Each step names its target in its args; a composite's `ctx.call` runs on the call's own
 * target otherwise. The apply proves its destination with the lab's world folder, read from
 * the lab itself, so it can never write into `live`.
 */
export const forkToLab = defineComposite({
  name: 'fork_to_lab',
  description:
    'Fork the live server (snapshot + world copy) and restore its entities into the lab server in recorded tick order: ' +
    'a dry run, the apply with a proof of the lab world, then a verify. Answers each step and the verdict.',
  input: z
    .object({
      name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a fork name: letters, digits, . _ -'),
      from: z.string().default('live'),
      to: z.string().default('lab'),
      /** A lab is for trying things: entities it holds where the recording has its own are replaced. */
      replace: z.boolean().default(true),
    })
    .strict(),
  uses: ['fork', 'state', 'restore', 'verify'],
  run: async ({ args, call }) => {
    const fork = (await call('fork', { name: args.name, target: args.from })) as Fork;
    const lab = (await call('state', { target: args.to })) as { worldDir?: string };
    if (typeof lab.worldDir !== 'string') throw new Error(`the ${args.to} server did not say its world folder; cannot prove where the restore writes`);
    const dir = fork.snapshotDir;
    const dry = (await call('restore', { dir, target: args.to, replace_existing: args.replace })) as { verdict: string; count: number };
    const applied = (await call('restore', { dir, target: args.to, dry_run: false, expect_world_dir: lab.worldDir, replace_existing: args.replace })) as { verdict: string; issued: number };
    const verified = (await call('verify', { dir, target: args.to })) as { verdict: string };
    return {
      fork: { snapshotDir: dir, entities: fork.entities, orderHash: fork.orderHash },
      dryRun: { verdict: dry.verdict, count: dry.count },
      apply: { verdict: applied.verdict, issued: applied.issued },
      verify: { verdict: verified.verdict },
    };
  },
});

export default defineConfig({
  targets: {
    live: { sim: { seed: 1 } },
    lab: { sim: { seed: 2 }, default: true },
  },
  composites: [forkToLab],
});
