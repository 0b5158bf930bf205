/**
 * Which apps this process serves, by serve URL: filled when a registration for that URL is
 * accepted (the SDK's sync reaches the executor's register endpoint in the same process). An
 * executor drives only runs of functions its own serve endpoint serves, and calls only that
 * endpoint. Kept on `globalThis` because server.ts and the Next.js route bundles load this module
 * as separate instances in one process.
 */
const KEY = Symbol.for("svc.workflows.registry");
type Registry = { apps: Map<string, Set<string>>; generation: number };
type Holder = { [KEY]?: Registry };

function registry(): Registry {
  const holder = globalThis as Holder;
  holder[KEY] ??= { apps: new Map(), generation: 0 };
  return holder[KEY];
}

function key(serveUrl: string): string {
  const u = new URL(serveUrl);
  return `${u.origin}${u.pathname.replace(/\/$/, "")}`;
}

export function recordServedApp(serveUrl: string, appId: string): void {
  const r = registry();
  const k = key(serveUrl);
  const set = r.apps.get(k) ?? new Set<string>();
  set.add(appId);
  r.apps.set(k, set);
  r.generation++;
}

/** The app ids registered for `serveUrl` in this process. */
export function servedApps(serveUrl: string): string[] {
  return [...(registry().apps.get(key(serveUrl)) ?? [])];
}

/** Bumped whenever a registration is accepted in this process (function caches reload). */
export function registryGeneration(): number {
  return registry().generation;
}

export function bumpRegistryGeneration(): void {
  registry().generation++;
}

/**
 * The app's `serve()` POST handler, by serve URL, registered by the module that serves it
 * (app/api/inngest/route.ts, the test harness). When present, the executor hands its signed
 * `Request` to the handler in-process instead of sending it over loopback HTTP: the same SDK
 * protocol and signature check, without the HTTP hop.
 */
export type ServeHandler = (request: Request) => Promise<Response>;
const HANDLERS = Symbol.for("svc.workflows.serveHandlers");
type HandlerHolder = { [HANDLERS]?: Map<string, ServeHandler> };

function handlers(): Map<string, ServeHandler> {
  const holder = globalThis as HandlerHolder;
  holder[HANDLERS] ??= new Map();
  return holder[HANDLERS];
}

export function registerServeHandler(serveUrl: string, handler: ServeHandler): void {
  handlers().set(key(serveUrl), handler);
}

export function serveHandler(serveUrl: string): ServeHandler | null {
  return handlers().get(key(serveUrl)) ?? null;
}
