import { signalOf, sleep, type Cancellation } from './cancel.js';
import type { Vantage } from './link/discovery.js';
import type { Link } from './link/link.js';
import type { ModReply, RequestOptions } from './link/mod-link.js';
import type { Cursor, RecordedEvent } from './events/event-log.js';
import type { DeferredCleanup, EventsView, HostView, ToolContext } from './plugin-api.js';
import type { RegisteredTool, ToolRegistry } from './registry/registry.js';
import type { CallScope } from './call-scope.js';
import type { Logger } from '../util/log.js';

/** What a call's context needs of its host. */
export interface CallHost {
  readonly link: Link;
  readonly registry: ToolRegistry;
  readonly vantage: Vantage;
  readonly log: Logger;
  readonly configDir: string;
  call(name: string, args: unknown, options: CallContextOptions): Promise<unknown>;
  eventsView(signal: AbortSignal, scope?: CallScope): EventsView;
  view(): HostView;
}

export interface CallContextOptions {
  signal?: AbortSignal | Cancellation;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  lenientParams?: boolean;
}

type Request = ToolContext['request'];
type Call = ToolContext['call'];

/**
 * A tool call's context. Every call gets one and most use one or two of its parts, so each
 * part is made on first use: the functions (bound, so a context can be destructured), the
 * events view, the child logger, the host view, and the AbortSignal itself (the call's
 * Cancellation makes it when asked). Its clean-ups get another context with the same scope
 * and a signal of their own.
 */
export class CallContext implements ToolContext {
  readonly caps: ReadonlySet<string> | null;
  readonly config: unknown;
  private requestFn: Request | undefined;
  private callFn: Call | undefined;
  private eventsValue: EventsView | undefined;
  private logValue: Logger | undefined;
  private viewValue: HostView | undefined;
  private progressFn: ToolContext['progress'] | undefined;
  private waitForFn: ToolContext['waitFor'] | undefined;
  private sleepFn: ToolContext['sleep'] | undefined;
  private deferFn: ((cleanup: (ctx: this) => unknown) => DeferredCleanup) | undefined;

  constructor(
    private readonly owner: CallHost,
    private readonly tool: RegisteredTool,
    private readonly cancel: AbortSignal | Cancellation,
    private readonly options: CallContextOptions,
    private readonly scope: CallScope,
    config: unknown,
  ) {
    this.caps = owner.link.caps;
    this.config = config;
  }

  get configDir(): string {
    return this.owner.configDir;
  }

  get vantage(): Vantage {
    return this.owner.vantage;
  }

  get signal(): AbortSignal {
    return signalOf(this.cancel);
  }

  get request(): Request {
    return (this.requestFn ??= (line: string, opts?: Omit<RequestOptions, 'signal'>): Promise<ModReply> => {
      const refused = this.owner.registry.verbRefusal(line);
      if (refused) return Promise.reject(refused);
      return this.owner.link.request(line, opts === undefined ? { signal: this.cancel } : { ...opts, signal: this.cancel });
    });
  }

  get call(): Call {
    return (this.callFn ??= (other, args, opts) => this.owner.call(other, args ?? {}, { signal: opts?.signal ?? this.cancel, onProgress: this.options.onProgress }));
  }

  get events(): EventsView {
    return (this.eventsValue ??= this.owner.eventsView(this.signal, this.scope));
  }

  get log(): Logger {
    return (this.logValue ??= this.owner.log.child({ plugin: this.tool.plugin, tool: this.tool.name }));
  }

  get host(): HostView {
    return (this.viewValue ??= this.owner.view());
  }

  get startCursor(): Cursor {
    return this.scope.startCursor;
  }

  get progress(): ToolContext['progress'] {
    return (this.progressFn ??= (progress, total, message) => {
      this.options.onProgress?.({
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined ? { message } : {}),
      });
    });
  }

  get waitFor(): ToolContext['waitFor'] {
    return (this.waitForFn ??= (match: (event: RecordedEvent) => boolean, opts) => this.scope.waitFor(match, opts, this.signal));
  }

  get sleep(): ToolContext['sleep'] {
    return (this.sleepFn ??= (ms) => sleep(ms, this.signal));
  }

  get defer(): (cleanup: (ctx: this) => unknown) => DeferredCleanup {
    return (this.deferFn ??= (cleanup) => this.scope.defer(cleanup as (ctx: ToolContext) => unknown, (own) => new CallContext(this.owner, this.tool, own, this.options, this.scope, this.config)));
  }
}
