import type { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import type { Principal } from "@/lib/auth/principal";
import type { Actor, SessionCaller } from "./actor";
import type { AuditEntry } from "./audit";
import type { BinaryBody, Contract, ContractSpec, RawReply } from "./contract";

/**
 * An operation: a contract bound to the handler that serves it (usually one service call), plus
 * its audit policy and the surfaces that expose it. `invoke` runs it for any actor.
 */

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a handler sees as its caller: null for public operations, the console user for session ones. */
export type PrincipalFor<C extends ContractSpec> = C["access"] extends "public"
  ? Principal | null
  : C["access"] extends "session"
    ? SessionCaller
    : Principal;

export interface HandlerContext<C extends ContractSpec> {
  /** The database, handed to services. */
  db: Db;
  actor: Actor;
  principal: PrincipalFor<C>;
  params: Out<C["params"]>;
  query: Out<C["query"]>;
  body: Out<C["body"]>;
  requestId: string;
  ip: string | null;
  signal: AbortSignal | undefined;
  /** HTTP only (null elsewhere): the request's headers, origin and raw body (provider callbacks verify signatures over them). */
  request: { headers: Headers; origin: string; url: string; body: string } | null;
  /** The request's Idempotency-Key (header, else the contract's body field), when it has one. */
  idempotencyKey: string | null;
  /** Writes an audit row with the actor filled in, in the caller's transaction. */
  audit: (tx: DbOrTx, entry: Omit<AuditEntry, "orgId"> & { orgId?: string }) => Promise<void>;
}

export type HandlerResult<C extends ContractSpec> = C["binary"] extends true
  ? BinaryBody
  : z.input<C["response"]> | (C["rawReplies"] extends readonly string[] ? RawReply : never);

export type Handler<C extends ContractSpec> = (ctx: HandlerContext<C>) => Promise<HandlerResult<C>>;

/**
 * `required` (the default for every method but GET): a successful call must have written an audit
 * row (or said there was nothing to change). `{ none: why }` for operations that are not
 * control-plane changes (sends, dry runs, pings).
 */
export type AuditPolicy = "required" | { none: string };

export interface Surfaces {
  http?: boolean;
  mcp?: boolean | { name?: string; description?: string };
  cli?: boolean | { command?: string };
}

export interface OperationOptions {
  audit?: AuditPolicy;
  surfaces?: Surfaces;
}

export interface Operation<C extends ContractSpec = ContractSpec> {
  id: string;
  contract: Contract<C>;
  handler: Handler<C>;
  audit: AuditPolicy;
  surfaces: { http: boolean; mcp: Surfaces["mcp"]; cli: Surfaces["cli"] };
}

/**
 * An operation of any contract, as lists and registries hold them. The handler is a method so
 * that an operation of a specific contract fits (its context type is erased here).
 */
export interface AnyOperation {
  id: string;
  contract: Contract;
  handler(ctx: HandlerContext<ContractSpec>): Promise<unknown>;
  audit: AuditPolicy;
  surfaces: Operation["surfaces"];
}

/** What an operation answers with (its response schema's output, or bytes). */
export type OperationOutput<O> =
  O extends Operation<infer C> ? (C["binary"] extends true ? BinaryBody : z.output<C["response"]>) : never;

/** The input an operation takes, before parsing. */
export type OperationInput<O> =
  O extends Operation<infer C> ? { params?: In<C["params"]>; query?: In<C["query"]>; body?: In<C["body"]> } : never;

type In<T> = T extends z.ZodType ? z.input<T> : undefined;

export function defineOperation<C extends ContractSpec>(
  contract: Contract<C>,
  handler: Handler<C>,
  options: OperationOptions = {},
): Operation<C> {
  return {
    id: contract.id,
    contract,
    handler,
    audit: options.audit ?? "required",
    surfaces: {
      http: options.surfaces?.http ?? true,
      mcp: options.surfaces?.mcp ?? true,
      cli: options.surfaces?.cli ?? true,
    },
  };
}
