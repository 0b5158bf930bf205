"use client";

import { useRouter } from "next/navigation";
import { acceptInvitationAction } from "@/lib/console/actions/organizations";
import { Button, FormError, useAction } from "./form";

export function AcceptInvitationButton({ token }: { token: string }) {
  const router = useRouter();
  const action = useAction(acceptInvitationAction, { onSuccess: () => router.push("/") });
  return (
    <div className="space-y-3">
      <FormError failure={action.failure} />
      <Button pending={action.isPending} className="w-full" onClick={() => action.mutate(token)} type="button">
        Accept invitation
      </Button>
    </div>
  );
}
