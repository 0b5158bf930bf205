import { InviteForm, InvitationRow, MemberRow } from "@/components/console/members";
import { Card, EmptyState, PageHeader, Table } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { listMembers } from "@/lib/organizations/operations";

export const metadata = { title: "Members — svc console" };

/** Members and invitations: everyone sees who is in; owners and admins invite, change roles and remove. */
export default async function MembersPage() {
  const ctx = await getConsole();
  const { members, invitations } = await ctx.invoke(listMembers, { params: { orgId: ctx.org.id } });
  const manage = ctx.can("members:manage");
  const owners = members.filter((m) => m.role === "owner").length;
  return (
    <>
      <PageHeader
        title="Members"
        description={`People in ${ctx.org.name}. Members read and send; admins also manage keys, domains, webhooks and members; owners also delete the organization.`}
      />
      <div className="space-y-6">
        <Table
          head={[
            "Member",
            "Role",
            "Joined",
            <span key="a" className="sr-only">
              Actions
            </span>,
          ]}
          caption="Members"
        >
          {members.map((m) => (
            <MemberRow
              key={m.userId}
              member={m}
              isSelf={m.userId === ctx.user.id}
              canManage={manage}
              canManageOwners={ctx.can("owners:manage")}
              lastOwner={m.role === "owner" && owners <= 1}
            />
          ))}
        </Table>
        {manage ? (
          <Card title="Invite a member">
            <InviteForm canInviteOwner={ctx.can("owners:manage")} />
          </Card>
        ) : null}
        <Card title="Pending invitations">
          {invitations.length === 0 ? (
            <EmptyState
              title="No pending invitations"
              description={manage ? "Invitations you send appear here until they are accepted." : undefined}
            />
          ) : (
            <Table
              head={[
                "Email",
                "Role",
                "Expires",
                <span key="a" className="sr-only">
                  Actions
                </span>,
              ]}
              caption="Pending invitations"
            >
              {invitations.map((inv) => (
                <InvitationRow key={inv.id} invitation={inv} canManage={manage} />
              ))}
            </Table>
          )}
        </Card>
      </div>
    </>
  );
}
