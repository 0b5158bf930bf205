"use client";

import { useState } from "react";
import { cancelLetterAction, progressLetterAction } from "@/lib/console/actions/letters";
import type { LetterStatus } from "@/lib/letters/contracts";
import { LiveMessage } from "../config/shared";
import { ConfirmButton } from "../dialog";
import { Button, FormError, useAction } from "../form";
import { canCancelLetter, cancelRefusal, isFinalLetterStatus, LETTER_STATUS_WORDS } from "./words";

/**
 * A letter's actions: Cancel (confirmed in a dialog; offered only while the API allows it, else
 * why not in words) and, for a test letter that is not final, "Progress one step" (the simulated
 * print centre's next status at once).
 */
export function LetterActions({
  letterId,
  status,
  testMode,
  canSend,
}: {
  letterId: string;
  status: LetterStatus;
  testMode: boolean;
  canSend: boolean;
}) {
  const cancel = useAction(cancelLetterAction);
  const progress = useAction(progressLetterAction);
  const [done, setDone] = useState<string | null>(null);
  if (!canSend)
    return (
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Your role can read letters but not cancel or progress them; ask an admin.
      </p>
    );
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        {testMode && !isFinalLetterStatus(status) ? (
          <Button
            type="button"
            variant="secondary"
            pending={progress.isPending}
            onClick={() =>
              progress.mutate(
                { letterId },
                { onSuccess: (d) => setDone(`Moved to ${LETTER_STATUS_WORDS[d.status].toLowerCase()}.`) },
              )
            }
          >
            Progress one step
          </Button>
        ) : null}
        {canCancelLetter(status) ? (
          <ConfirmButton
            label="Cancel letter"
            title="Cancel this letter?"
            description="The letter will not be printed or posted, its price hold is released, and a letter.status_changed event records the cancellation. This cannot be undone."
            confirmLabel="Cancel letter"
            pending={cancel.isPending}
            onConfirm={() => cancel.mutate({ letterId }, { onSuccess: () => setDone("The letter is canceled.") })}
          />
        ) : null}
      </div>
      {canCancelLetter(status) ? null : (
        <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="cancel-refusal">
          {cancelRefusal(status)}
        </p>
      )}
      {testMode ? (
        isFinalLetterStatus(status) ? (
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            This test letter is in a final status: it has no next step.
          </p>
        ) : (
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            A test letter also moves on by itself on the simulated print centre&apos;s clock.
          </p>
        )
      ) : (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          A live letter moves with the print provider&apos;s events; it cannot be progressed by hand.
        </p>
      )}
      <FormError failure={cancel.failure ?? progress.failure} />
      <LiveMessage>{done}</LiveMessage>
    </div>
  );
}
