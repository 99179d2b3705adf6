import type { Link } from './link/link.js';
import type { CapsView, RegisteredTool, ToolRegistry } from './registry/registry.js';

/**
 * Whether a tool may be called now, remembered per tool until anything the answer depends on
 * moves: the registry (tools, policy: its generation counts changes inside a batch too), the
 * mod's CAPS, the link's state and the greeting. Working the answer out walks the policy, the
 * scope and the CAPS of the tool and of those it uses; every call asks.
 */
export class UsableTools {
  private generation = -1;
  private caps: unknown = undefined;
  private connected = false;
  private capsSource: string | null = null;
  private instance: string | null = null;
  private minecraft: string | null = null;
  private readonly known = new Map<string, boolean>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly link: Link,
    private readonly view: () => CapsView,
  ) {}

  has(tool: RegisteredTool): boolean {
    const info = this.link.capsInfo();
    const caps = this.link.caps;
    const generation = this.registry.generation;
    if (
      generation !== this.generation ||
      caps !== this.caps ||
      info.connected !== this.connected ||
      info.capsSource !== this.capsSource ||
      info.instance !== this.instance ||
      info.minecraft !== this.minecraft
    ) {
      this.known.clear();
      this.generation = generation;
      this.caps = caps;
      this.connected = info.connected;
      this.capsSource = info.capsSource;
      this.instance = info.instance;
      this.minecraft = info.minecraft;
    }
    let usable = this.known.get(tool.name);
    if (usable === undefined) {
      usable = this.registry.availability(tool, this.view()).available;
      this.known.set(tool.name, usable);
    }
    return usable;
  }
}
