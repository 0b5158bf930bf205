/**
 * The code that runs INSIDE the sandbox (QuickJS or an isolated-vm isolate), bundled by
 * `../runtime.ts` with esbuild: React, React DOM's synchronous string renderer and the
 * react-email components, plus `__svc`, the only API the host calls. Nothing here can reach the
 * host: the sandbox has no I/O, no timers, no `require` and no `process`.
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

function isComponent(value: unknown): boolean {
  if (typeof value === "function") return true;
  // memo() and forwardRef() components are objects with a $$typeof tag.
  return typeof value === "object" && value !== null && "$$typeof" in value;
}

const svc = {
  /** Evaluates a compiled template module once and keeps its default export under `id`. */
  define(id: string, factory: Factory): void {
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
  has(id: string): boolean {
    return apply(mapHas, defined, [id]);
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
};

// Templates may log while they are written; the output goes nowhere.
const noop = () => undefined;
defineProperty(globalThis, "console", {
  value: freeze({ log: noop, info: noop, warn: noop, error: noop, debug: noop }),
  writable: false,
  configurable: false,
});
defineProperty(globalThis, "__svc", { value: freeze(svc), writable: false, configurable: false, enumerable: false });
