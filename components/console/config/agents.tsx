"use client";

import {
  clearReputationAction,
  createAgentAction,
  revokeAgentAction,
  updateAgentAction,
} from "@/lib/console/actions/agents";
import { Button, Field, FormError, useAction, useActionForm } from "../form";
import { ConfirmButton } from "../dialog";

/** The create-passport form: a display name and an optional description. */
export function CreateAgentForm() {
  const create = useActionForm(createAgentAction, { reset: true });
  return (
    <form {...create.formProps} className="space-y-3">
      <Field label="Display name" name="display" required maxLength={120} error={create.failure?.fields?.display} />
      <Field
        label="Description (optional)"
        name="description"
        maxLength={2000}
        error={create.failure?.fields?.description}
      />
      <FormError failure={create.failure?.fields ? null : create.failure} />
      <Button type="submit" pending={create.isPending}>
        Create agent
      </Button>
    </form>
  );
}

/** Suspend / reactivate / revoke one passport, and clear its reputation when it is not healthy. */
export function AgentActions({
  agentId,
  display,
  status,
  reputation,
}: {
  agentId: string;
  display: string;
  status: string;
  reputation: string | null;
}) {
  const update = useAction(updateAgentAction);
  const revoke = useAction(revokeAgentAction);
  const clear = useAction(clearReputationAction);
  if (status === "revoked") return <span className="text-xs text-zinc-600 dark:text-zinc-400">Revoked (final)</span>;
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          variant="secondary"
          pending={update.isPending}
          aria-label={`${status === "active" ? "Suspend" : "Reactivate"} ${display}`}
          onClick={() => update.mutate({ agentId, status: status === "active" ? "suspended" : "active" })}
        >
          {status === "active" ? "Suspend" : "Reactivate"}
        </Button>
        {reputation && reputation !== "healthy" ? (
          <Button
            type="button"
            variant="secondary"
            pending={clear.isPending}
            aria-label={`Clear reputation of ${display}`}
            onClick={() => clear.mutate({ agentId })}
          >
            Clear reputation
          </Button>
        ) : null}
        <ConfirmButton
          label="Revoke"
          ariaLabel={`Revoke ${display}`}
          pending={revoke.isPending}
          title={`Revoke the agent “${display}”?`}
          description="Its key is withdrawn from the JWKS and what is bound to it can no longer send. This cannot be undone."
          confirmLabel="Revoke agent"
          typeToConfirm={display}
          onConfirm={() => revoke.mutate({ agentId })}
        />
      </div>
      <FormError failure={update.failure ?? clear.failure ?? revoke.failure} />
    </div>
  );
}
