"use client";

import { useState } from "react";
import {
  changeRoleAction,
  inviteAction,
  removeMemberAction,
  revokeInvitationAction,
} from "@/lib/console/actions/members";
import { Button, Field, FormError, Select, useAction, useActionForm } from "./form";
import { ConfirmButton } from "./dialog";
import { Badge, Td, Time } from "./ui";
import { inputRules } from "@/components/console/contract-input";
import { invitationCreateBody } from "@/lib/organizations/contracts";

interface MemberView {
  userId: string;
  email: string;
  name: string | null;
  role: "owner" | "admin" | "member";
  createdAt: string;
}

/** One member with a role picker and a remove button (for those allowed; never for the last owner). */
export function MemberRow({
  member,
  isSelf,
  canManage,
  canManageOwners,
  lastOwner,
}: {
  member: MemberView;
  isSelf: boolean;
  canManage: boolean;
  canManageOwners: boolean;
  lastOwner: boolean;
}) {
  const role = useAction(changeRoleAction);
  const remove = useAction(removeMemberAction);
  const editable = canManage && !lastOwner && (member.role !== "owner" || canManageOwners);
  const failure = role.failure ?? remove.failure;
  return (
    <tr>
      <Td>
        <span className="font-medium">{member.name ?? member.email}</span>
        {member.name ? <span className="block text-xs text-zinc-600 dark:text-zinc-400">{member.email}</span> : null}
        {isSelf ? (
          <span className="ml-2">
            <Badge tone="blue">you</Badge>
          </span>
        ) : null}
        {failure ? <FormError failure={failure} /> : null}
      </Td>
      <Td>
        {editable ? (
          <label className="block">
            <span className="sr-only">Role of {member.email}</span>
            <select
              key={member.role}
              defaultValue={member.role}
              disabled={role.isPending}
              onChange={(e) => role.mutate({ userId: member.userId, role: e.target.value })}
              className="rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
            >
              {canManageOwners ? <option value="owner">owner</option> : null}
              <option value="admin">admin</option>
              <option value="member">member</option>
            </select>
          </label>
        ) : (
          <Badge>{member.role}</Badge>
        )}
        {lastOwner ? <span className="ml-2 text-xs text-zinc-600 dark:text-zinc-400">last owner</span> : null}
      </Td>
      <Td>
        <Time value={member.createdAt} />
      </Td>
      <Td className="text-right">
        {(editable || (isSelf && !lastOwner)) && (
          <ConfirmButton
            variant="secondary"
            label={isSelf ? "Leave" : "Remove"}
            pending={remove.isPending}
            title={isSelf ? "Leave this organization?" : `Remove ${member.email}?`}
            description={
              isSelf
                ? "You lose access to its inboxes, messages and settings until someone invites you again."
                : `${member.email} loses access to this organization at once. You can invite them again later.`
            }
            confirmLabel={isSelf ? "Leave organization" : "Remove member"}
            onConfirm={() => remove.mutate({ userId: member.userId })}
          />
        )}
      </Td>
    </tr>
  );
}

export function InvitationRow({
  invitation,
  canManage,
}: {
  invitation: { id: string; email: string; role: string; expiresAt: string };
  canManage: boolean;
}) {
  const revoke = useAction(revokeInvitationAction);
  return (
    <tr>
      <Td>{invitation.email}</Td>
      <Td>
        <Badge>{invitation.role}</Badge>
      </Td>
      <Td>
        <Time value={invitation.expiresAt} />
      </Td>
      <Td className="text-right">
        {canManage ? (
          <ConfirmButton
            variant="secondary"
            label="Revoke"
            pending={revoke.isPending}
            title={`Revoke the invitation of ${invitation.email}?`}
            description="The link in the invitation email stops working. You can invite them again later."
            confirmLabel="Revoke invitation"
            onConfirm={() => revoke.mutate({ invitationId: invitation.id })}
          />
        ) : null}
        <FormError failure={revoke.failure} />
      </Td>
    </tr>
  );
}

/** Invite by email; the invitation is a real email with an accept link. */
export function InviteForm({ canInviteOwner }: { canInviteOwner: boolean }) {
  const [sent, setSent] = useState<string | null>(null);
  const invite = useActionForm(inviteAction, { reset: true, onSuccess: (inv) => setSent(inv.email) });
  return (
    <form
      {...invite.formProps}
      aria-label="Invite a member"
      className="grid gap-4 sm:grid-cols-[1fr_12rem_auto] sm:items-end"
      onSubmit={(e) => {
        setSent(null);
        invite.formProps.onSubmit(e);
      }}
    >
      <Field
        label="Email"
        name="email"
        {...inputRules(invitationCreateBody, "email")}
        error={invite.fieldError("email")}
      />
      <Select label="Role" name="role" defaultValue="member" error={invite.fieldError("role")}>
        <option value="member">member</option>
        <option value="admin">admin</option>
        {canInviteOwner ? <option value="owner">owner</option> : null}
      </Select>
      <Button pending={invite.isPending}>Send invitation</Button>
      <div className="sm:col-span-3" aria-live="polite">
        {sent ? <p className="text-sm text-emerald-800 dark:text-emerald-300">Invitation sent to {sent}.</p> : null}
        <FormError failure={invite.failure && !invite.failure.param ? invite.failure : null} />
      </div>
    </form>
  );
}
