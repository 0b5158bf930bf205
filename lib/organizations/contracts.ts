import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { ROLES } from "@/db/schema/organizations";
import { isoDate, uuidParam } from "@/lib/core/schemas";

/**
 * Organizations, members and invitations: operations of a signed-in console user (a session
 * cookie, never an API key). The console's forms validate with these same request schemas.
 */

export const roleSchema = z.enum(ROLES);

export const organizationSchema = z.object({
  id: z.string().nullable(),
  name: z.string(),
  slug: z.string(),
  vanitySlug: z.string().nullable(),
  role: roleSchema.nullable(),
});

export const organizationCreateBody = z.strictObject({
  name: z.string().trim().min(1, "Give the organization a name.").max(80),
});

export const organizationRenameBody = z.strictObject({
  name: organizationCreateBody.shape.name,
});

export const memberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: roleSchema,
  createdAt: isoDate,
});

export const invitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  status: z.enum(["pending", "accepted", "expired", "revoked"]),
  expiresAt: isoDate,
  createdAt: isoDate,
});

export const invitationCreateBody = z.strictObject({
  email: z.email("Enter a valid email address.").max(254),
  role: roleSchema.default("member"),
});

export const memberUpdateBody = z.strictObject({ role: roleSchema });

const orgParams = z.strictObject({ orgId: uuidParam });
const memberParams = z.strictObject({ orgId: uuidParam, userId: uuidParam });

export const listOrganizations = defineContract({
  id: "listOrganizations",
  method: "GET",
  path: "/v1/organizations",
  access: "session",
  tag: "Organizations",
  summary: "List my organizations",
  description: "The signed-in user's organizations with their role, oldest membership first.",
  response: z.object({ organizations: z.array(organizationSchema) }),
});

export const createOrganization = defineContract({
  id: "createOrganization",
  method: "POST",
  path: "/v1/organizations",
  access: "session",
  tag: "Organizations",
  summary: "Create an organization",
  description: "Creates an organization; the signed-in user becomes its `owner`.",
  body: organizationCreateBody,
  response: z.object({ organization: organizationSchema }),
  successStatus: 201,
  example: { name: "Acme" },
});

export const listMembers = defineContract({
  id: "listMembers",
  method: "GET",
  path: "/v1/organizations/{orgId}/members",
  access: "session",
  tag: "Organizations",
  summary: "List members",
  description: "Members of an organization the caller belongs to, and its pending invitations.",
  params: orgParams,
  response: z.object({ members: z.array(memberSchema), invitations: z.array(invitationSchema) }),
});

export const createInvitation = defineContract({
  id: "createInvitation",
  method: "POST",
  path: "/v1/organizations/{orgId}/invitations",
  access: "session",
  tag: "Organizations",
  summary: "Invite a member",
  description:
    "Emails an invitation with an accept link (valid 7 days). Needs `owner` or `admin`; only an owner may invite an owner. Inviting an address again replaces its pending invitation.",
  params: orgParams,
  body: invitationCreateBody,
  errors: ["conflict"],
  response: z.object({ invitation: invitationSchema }),
  successStatus: 201,
  example: { email: "new.member@example.com", role: "member" },
});

export const updateMember = defineContract({
  id: "updateMember",
  method: "PATCH",
  path: "/v1/organizations/{orgId}/members/{userId}",
  access: "session",
  tag: "Organizations",
  summary: "Change a member's role",
  description: "Needs `owner` or `admin`; only an owner grants or removes `owner`. The last owner cannot be demoted.",
  params: memberParams,
  body: memberUpdateBody,
  response: z.object({ member: memberSchema }),
  example: { role: "admin" },
});

export const removeMember = defineContract({
  id: "removeMember",
  method: "DELETE",
  path: "/v1/organizations/{orgId}/members/{userId}",
  access: "session",
  tag: "Organizations",
  summary: "Remove a member",
  description: "Needs `owner` or `admin`; only an owner removes an owner. The last owner cannot be removed.",
  params: memberParams,
  response: z.object({ deleted: z.boolean(), userId: z.string() }),
});

// Console-only operations (not on the HTTP API): the console invokes them with the signed-in user.

export const revokeInvitation = defineContract({
  id: "revokeInvitation",
  method: "DELETE",
  path: "/v1/organizations/{orgId}/invitations/{invitationId}",
  access: "session",
  tag: "Organizations",
  summary: "Withdraw an invitation",
  description: "Needs `owner` or `admin`. A withdrawn invitation's link stops working.",
  params: z.strictObject({ orgId: uuidParam, invitationId: uuidParam }),
  response: z.null(),
});

export const acceptInvitation = defineContract({
  id: "acceptInvitation",
  method: "POST",
  path: "/v1/invitations/accept",
  access: "session",
  tag: "Organizations",
  summary: "Accept an invitation",
  description: "As the signed-in user, who must own the invited address. Accepting twice is harmless.",
  body: z.strictObject({ token: z.string().min(1).max(200) }),
  example: { token: "inv_token" },
  errors: ["resource_not_found", "conflict"],
  response: z.object({ orgId: z.uuid() }),
});

export const renameOrganization = defineContract({
  id: "renameOrganization",
  method: "PATCH",
  path: "/v1/organizations/{orgId}",
  access: "session",
  tag: "Organizations",
  summary: "Rename an organization",
  description:
    "Owner or admin. Changes the organization's display name (its id and slug stay); the audit log records the old and new name.",
  params: z.strictObject({ orgId: uuidParam }),
  body: organizationRenameBody,
  example: { name: "Acme Robotics" },
  response: z.object({ organization: organizationSchema }),
});

export const deleteOrganization = defineContract({
  id: "deleteOrganization",
  method: "DELETE",
  path: "/v1/organizations/{orgId}",
  access: "session",
  tag: "Organizations",
  summary: "Delete an organization",
  description: "Owner only; `confirm` must be the organization's name. Deletes everything the organization owns.",
  params: z.strictObject({ orgId: uuidParam }),
  body: z.strictObject({ confirm: z.string().max(200).default("") }),
  example: { confirm: "Acme" },
  response: z.object({ deleted: z.literal(true), orgId: z.uuid() }),
});
