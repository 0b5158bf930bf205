import { type EventType, eventType } from "inngest";
import type { z } from "zod";
import { issueParam } from "@/lib/core/issues";

/**
 * Workflow events as domains declare them (`lib/<domain>/workflow-events.ts`, listed in the
 * domain's manifest): a name and a zod schema of the payload. The payload is validated twice:
 * - when published: `create(data)` parses it, so a service cannot publish a bad payload (the
 *   error is thrown inside the service's transaction, which rolls back with it);
 * - when handled: `trigger` is the Inngest `EventType` carrying the same schema, which a
 *   function lists in its `triggers`; the Inngest SDK validates the run's event against it before
 *   the handler runs — on every call, before any step — and fails the run without retries
 *   (`EventValidationError`), so an event that arrived some other way (the event API, an old
 *   publisher) never half-runs.
 * Schemas are plain objects without transforms (the SDK refuses transforms; what is validated is
 * what is stored).
 */
export interface WorkflowEvent<N extends string = string, S extends z.ZodObject = z.ZodObject> {
  readonly name: N;
  readonly schema: S;
  readonly trigger: EventType<N, S>;
  /** The event to publish (`publishWorkflowEvents`), its payload parsed; `id` deduplicates. */
  create(data: z.input<S>, options?: { id?: string }): PublishableEvent;
}

/** An event whose payload was validated against its declared schema (only `create` makes one). */
export interface PublishableEvent {
  readonly id?: string;
  readonly name: string;
  readonly data: Record<string, unknown>;
  readonly [validated]: true;
}

declare const validated: unique symbol;

/**
 * Thrown when a payload does not match its event's schema: a bug in the publisher (an API request
 * answers 500 and it is logged), named precisely, without the values.
 */
export class WorkflowEventError extends Error {
  constructor(
    readonly eventName: string,
    issues: readonly z.core.$ZodIssue[],
  ) {
    super(
      `Workflow event ${eventName} has an invalid payload (${issues.map((i) => `${issueParam(i, "data") ?? "data"}: ${i.message}`).join("; ")}).`,
    );
    this.name = "WorkflowEventError";
  }
}

export function defineWorkflowEvent<const N extends string, S extends z.ZodObject>(
  name: N,
  schema: S,
): WorkflowEvent<N, S> {
  if (!/^svc\/[a-z][a-z0-9_.-]*$/.test(name)) throw new Error(`Workflow event names are svc/<noun>.<verb>: ${name}`);
  return {
    name,
    schema,
    trigger: eventType(name, { schema: schema as never }),
    create(data, options = {}) {
      const parsed = schema.safeParse(data);
      if (!parsed.success) throw new WorkflowEventError(name, parsed.error.issues);
      return {
        ...(options.id ? { id: options.id } : {}),
        name,
        data: parsed.data as Record<string, unknown>,
      } as unknown as PublishableEvent;
    },
  };
}
