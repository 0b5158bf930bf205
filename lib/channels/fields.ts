import { z } from "zod";
import { customHeadersSchema, messageIdSchema } from "./email/headers";

/**
 * Request fields the channels share (pure zod, client-safe): the recipient lists of every channel,
 * and the options of message-shaped channels (email, and a2a whose copies are the same messages).
 */
const recipient = z.string().trim().min(1).max(320);
/** One address or a list; an entry may be a contact reference (`@alias`, `contact:<id>`, `@me`). */
export const recipientsSchema = z.union([recipient, z.array(recipient).min(1).max(50)]);

/** The options of a message with mail-style addressing and headers: email's, and a2a's (same messages). */
export const mailOptions = z.object({
  cc: recipientsSchema.optional(),
  bcc: recipientsSchema.optional(),
  replyTo: z.email().optional(),
  inReplyTo: messageIdSchema.optional(),
  references: z.array(messageIdSchema).max(32).optional(),
  headers: customHeadersSchema.optional(),
});
