/**
 * The code that runs INSIDE the sandbox (QuickJS or an isolated-vm isolate), bundled by
 * `../runtime.ts` with esbuild: React, React DOM's synchronous string renderer and the
 * react-email components, plus the host API (`define`, `render`). Nothing here can reach the
 * host: the sandbox has no I/O, no timers, no `require` and no `process`.
 *
 * The boundary, in order: the runtime puts its API on `globalThis.__svc`; the host takes handles
 * to `define` and `render` and calls `seal()`, which deletes `__svc` and hardens the context
 * (below) before any template code runs. Template code therefore never sees the host API: it
 * lives on in the host's handles and in this bundle's closure. A module id is defined once.
 *
 * Hardening (`seal`): every intrinsic reachable from the global object (constructors, their
 * prototypes, hidden ones such as %IteratorPrototype% and the generator prototypes), the libraries
 * handed to templates (`react`, its JSX runtimes, the react-email components) and the global object
 * itself are frozen, so prototypes and globals are the same before every render: a template that
 * writes `Object.prototype.x` or replaces `JSON.parse` changes nothing (an error in strict code).
 * Assigning an inherited `constructor`, `toString`, `valueOf`, `name` or `message` to one's own
 * object still works (they become accessors that define the property on the receiver).
 *
 * `@react-email/tailwind`, `@react-email/code-block` and `@react-email/render` are stubbed out by
 * the build: Tailwind suspends (the synchronous renderer cannot wait) and, with the code-block
 * themes, would make the sandbox's runtime six times larger and its cold start seconds long.
 */
import * as React from "react";
import * as jsxRuntime from "react/jsx-runtime";
// Redirected by the build to React DOM's legacy browser renderer (synchronous, no MessageChannel).
import { renderToString } from "react-dom/server";
import * as emailComponents from "@react-email/components";

// No engine extras: WebAssembly would allocate memory outside the sandbox heap's accounting, and
// shared memory with Atomics.wait could block the thread.
for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics"]) {
  delete (globalThis as Record<string, unknown>)[name];
}

const DOCTYPE =
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';

// Captured before any template runs, so a template that replaces them cannot change what the host sees.
/* eslint-disable @typescript-eslint/unbound-method -- called through Reflect.apply with their receiver */
const jsonParse = JSON.parse;
const hasOwn = Object.prototype.hasOwnProperty;
const freeze = Object.freeze;
const defineProperty = Object.defineProperty;
const apply = Reflect.apply;
const mapGet = Map.prototype.get;
const mapSet = Map.prototype.set;
const mapHas = Map.prototype.has;
const stringReplace = String.prototype.replace;
const createElement = React.createElement;
/* eslint-enable @typescript-eslint/unbound-method */

/**
 * JSON.stringify in JavaScript. The engine's own recurses in C, where neither the time limit (the
 * interrupt handler) nor QuickJS's stack limit reliably applies: a 10^4-deep object kept a worker
 * busy for seconds and a 10^6-deep one overflowed the worker thread's native stack. Here every
 * level is a JavaScript call, so deep input is the template's `stack_overflow` and a slow one its
 * `timeout`. Same output as the built-in for everything JSON can express (strings are quoted by it).
 */
const nativeStringify = JSON.stringify;
const isArray = Array.isArray;
const objectKeys = Object.keys;

function quote(s: string): string {
  return nativeStringify(s);
}

function jsonStringify(value: unknown, replacer?: unknown, space?: unknown): string | undefined {
  let indent = "";
  let spaceValue = space;
  if (spaceValue instanceof Number) spaceValue = Number(spaceValue);
  else if (spaceValue instanceof String) spaceValue = String(spaceValue);
  if (typeof spaceValue === "number") indent = " ".repeat(Math.min(10, Math.max(0, Math.trunc(spaceValue) || 0)));
  else if (typeof spaceValue === "string") indent = spaceValue.slice(0, 10);
  const replaceFn =
    typeof replacer === "function" ? (replacer as (this: unknown, k: string, v: unknown) => unknown) : null;
  let allow: string[] | null = null;
  if (!replaceFn && isArray(replacer)) {
    allow = [];
    for (const item of replacer as unknown[]) {
      let name: string | undefined;
      if (typeof item === "string") name = item;
      else if (typeof item === "number" || item instanceof Number || item instanceof String) name = String(item);
      if (name !== undefined && !allow.includes(name)) allow.push(name);
    }
  }
  const open = new Set<object>();
  const serialize = (holder: Record<string, unknown>, key: string, gap: string): string | undefined => {
    let v: unknown = holder[key];
    if ((typeof v === "object" && v !== null) || typeof v === "bigint") {
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") v = apply(toJSON, v, [key]);
    }
    if (replaceFn) v = apply(replaceFn, holder, [key, v]);
    if (typeof v === "object" && v !== null) {
      if (v instanceof Number) v = Number(v);
      else if (v instanceof String) v = String(v);
      else if (v instanceof Boolean) v = v.valueOf();
    }
    if (v === null) return "null";
    if (v === true) return "true";
    if (v === false) return "false";
    if (typeof v === "string") return quote(v);
    if (typeof v === "number") return Number.isFinite(v) ? String(v) : "null";
    if (typeof v === "bigint") throw new TypeError("BigInt value can't be serialized in JSON");
    if (typeof v !== "object") return undefined;
    if (open.has(v)) throw new TypeError("circular reference");
    open.add(v);
    const inner = gap + indent;
    const parts: string[] = [];
    let out: string;
    if (isArray(v)) {
      for (let i = 0; i < v.length; i++)
        parts.push(serialize(v as unknown as Record<string, unknown>, String(i), inner) ?? "null");
      out =
        parts.length === 0
          ? "[]"
          : indent
            ? `[\n${inner}${parts.join(`,\n${inner}`)}\n${gap}]`
            : `[${parts.join(",")}]`;
    } else {
      const obj = v as Record<string, unknown>;
      for (const k of allow ?? objectKeys(obj)) {
        const item = serialize(obj, k, inner);
        if (item !== undefined) parts.push(`${quote(k)}:${indent ? " " : ""}${item}`);
      }
      out =
        parts.length === 0
          ? "{}"
          : indent
            ? `{\n${inner}${parts.join(`,\n${inner}`)}\n${gap}}`
            : `{${parts.join(",")}}`;
    }
    open.delete(v);
    return out;
  };
  return serialize({ "": value }, "", "");
}
defineProperty(JSON, "stringify", { value: jsonStringify, writable: true, configurable: true, enumerable: false });

class SandboxError extends Error {
  constructor(code: string, message: string) {
    super(message);
    // The host reads the code from the name (`SvcError:<code>`): dumped errors keep name and message.
    this.name = `SvcError:${code}`;
  }
}

const UNAVAILABLE: Record<string, string> = {
  Tailwind: "Tailwind is not available in templates (it needs an asynchronous renderer); use inline `style` props",
  CodeBlock: "CodeBlock is not available in templates; use CodeInline or a <pre> with inline styles",
  render: "render() is not available inside a template; export the component and the service renders it",
  renderAsync: "renderAsync() is not available inside a template",
  pretty: "pretty() is not available inside a template",
  toPlainText: "toPlainText() is not available inside a template; the service derives the text part",
};

const components: Record<string, unknown> = {};
for (const key of Object.keys(emailComponents)) {
  components[key] = (emailComponents as Record<string, unknown>)[key];
}
for (const [key, message] of Object.entries(UNAVAILABLE)) {
  defineProperty(components, key, {
    enumerable: false,
    get() {
      throw new SandboxError("unavailable_component", message);
    },
  });
}
for (const value of Object.values(components)) {
  if (typeof value === "function") freeze(value);
}
freeze(components);

const modules: Record<string, unknown> = {
  react: React,
  "react/jsx-runtime": jsxRuntime,
  "react/jsx-dev-runtime": jsxRuntime,
  "@react-email/components": components,
};

function requireAllowed(name: unknown): unknown {
  if (typeof name === "string" && apply(hasOwn, modules, [name])) return modules[name];
  throw new SandboxError(
    "import_not_allowed",
    `import of "${String(name)}" is not allowed; templates may import only react and @react-email/components`,
  );
}

type Factory = (
  module: { exports: Record<string, unknown> },
  exports: Record<string, unknown>,
  require: (name: unknown) => unknown,
) => void;

const defined = new Map<string, unknown>();

const getPrototypeOf = Object.getPrototypeOf;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ownKeys = Reflect.ownKeys;
const isFrozen = Object.isFrozen;

/** Properties an ordinary object may assign for itself even though a frozen prototype has them. */
const OVERRIDABLE = ["constructor", "toString", "valueOf", "toLocaleString", "name", "message", "toJSON"];

function enableOverride(obj: object, key: string): void {
  const desc = getOwnPropertyDescriptor(obj, key);
  if (!desc || !("value" in desc) || !desc.configurable) return;
  const value: unknown = desc.value;
  defineProperty(obj, key, {
    get() {
      return value;
    },
    set(this: object, next: unknown) {
      if (this === obj) throw new TypeError(`Cannot assign to read only property '${key}'`);
      defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
    },
    enumerable: desc.enumerable,
    configurable: false,
  });
}

// Accessors are collected to be frozen, never called.
/* eslint-disable @typescript-eslint/unbound-method */
/** Freezes `roots` and everything reachable from them (own properties, accessors, prototypes). */
function harden(roots: unknown[], skip: Set<unknown>): void {
  const seen = new Set<unknown>();
  const queue: object[] = [];
  const add = (v: unknown) => {
    if ((typeof v !== "object" || v === null) && typeof v !== "function") return;
    if (seen.has(v) || skip.has(v)) return;
    seen.add(v);
    queue.push(v);
  };
  for (const root of roots) add(root);
  while (queue.length > 0) {
    const obj = queue.pop() as object;
    add(getPrototypeOf(obj));
    const isPrototype = apply(hasOwn, obj, ["constructor"]) === true;
    for (const key of ownKeys(obj)) {
      const desc = getOwnPropertyDescriptor(obj, key);
      if (!desc) continue;
      if ("value" in desc) add(desc.value);
      else {
        add(desc.get);
        add(desc.set);
      }
      if (typeof key === "string" && (isPrototype || obj === Error.prototype) && OVERRIDABLE.includes(key)) {
        enableOverride(obj, key);
      }
    }
    if (!isFrozen(obj)) freeze(obj);
  }
}

function intrinsics(): unknown[] {
  const g = globalThis as Record<string, unknown>;
  const roots: unknown[] = [];
  for (const key of ownKeys(g)) {
    const desc = getOwnPropertyDescriptor(g, key);
    if (!desc) continue;
    if ("value" in desc) roots.push(desc.value);
    else roots.push(desc.get, desc.set);
  }
  // Intrinsics no global names: reachable only from instances.
  roots.push(
    function* () {},
    async function () {},
    async function* () {},
    [][Symbol.iterator](),
    new Map()[Symbol.iterator](),
    new Set()[Symbol.iterator](),
    ""[Symbol.iterator](),
    "".matchAll(/x/g),
    getPrototypeOf(Int8Array),
  );
  const throwTypeError = getOwnPropertyDescriptor(Function.prototype, "caller")?.get;
  if (throwTypeError) roots.push(throwTypeError);
  return roots;
}
/* eslint-enable @typescript-eslint/unbound-method */

function isComponent(value: unknown): boolean {
  if (typeof value === "function") return true;
  // memo() and forwardRef() components are objects with a $$typeof tag.
  return typeof value === "object" && value !== null && "$$typeof" in value;
}

const svc = {
  /** Evaluates a compiled template module and keeps its default export under `id` (once per id). */
  define(id: string, factory: Factory): void {
    if (typeof id !== "string" || apply(mapHas, defined, [id])) {
      throw new SandboxError("already_defined", `module ${String(id)} is already defined`);
    }
    if (typeof factory !== "function") throw new SandboxError("invalid_export", "the module is not a function");
    const module = { exports: {} as Record<string, unknown> };
    factory(module, module.exports, requireAllowed);
    const exported = module.exports;
    const component = exported && typeof exported === "object" && "default" in exported ? exported.default : exported;
    if (!isComponent(component)) {
      throw new SandboxError(
        "invalid_export",
        "the template must export a React component as its default export (export default function Email(props) { … })",
      );
    }
    apply(mapSet, defined, [id, component]);
  },
  /** Renders the module `id` with JSON props to an HTML document (react-email's doctype). */
  render(id: string, propsJson: string, maxChars: number): string {
    const component = apply(mapGet, defined, [id]) as Parameters<typeof createElement>[0] | undefined;
    if (component === undefined) throw new SandboxError("not_defined", `module ${id} is not loaded`);
    const props = jsonParse(propsJson) as Record<string, unknown>;
    const markup: unknown = renderToString(createElement(component, props));
    if (typeof markup !== "string") throw new SandboxError("render_error", "the renderer returned no markup");
    if (markup.length > maxChars) {
      throw new SandboxError(
        "output_too_large",
        `the rendered HTML has ${markup.length} characters; the limit is ${maxChars}`,
      );
    }
    return DOCTYPE + (apply(stringReplace, markup, [/<!DOCTYPE.*?>/, ""]) as string);
  },
  /**
   * Called by the host once it holds `define` and `render`, before any template runs: removes the
   * API from the global object and freezes the intrinsics, the libraries and the global object.
   */
  seal(): void {
    delete (globalThis as Record<string, unknown>).__svc;
    const libraries: unknown[] = [React, jsxRuntime, components];
    // React's shared internals hold the current dispatcher, which the renderer swaps on every render:
    // sealed (no new or redefined properties) rather than frozen.
    const skip = new Set<unknown>();
    for (const lib of [React as unknown as Record<string, unknown>]) {
      for (const key of Object.keys(lib)) {
        if (key.startsWith("__")) {
          const internals = lib[key];
          if (typeof internals === "object" && internals !== null) {
            Object.seal(internals);
            skip.add(internals);
          }
        }
      }
    }
    harden([...intrinsics(), ...libraries], skip);
    freeze(globalThis);
  },
};

// Templates may log while they are written; the output goes nowhere.
const noop = () => undefined;
defineProperty(globalThis, "console", {
  value: freeze({ log: noop, info: noop, warn: noop, error: noop, debug: noop }),
  writable: false,
  configurable: false,
});
// Removed again by `seal()` before any template runs (see the top of this file).
defineProperty(globalThis, "__svc", { value: freeze(svc), writable: false, configurable: true, enumerable: false });
