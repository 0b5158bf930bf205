"use server";

import { runAction } from "@/lib/console/action";
import {
  cancelLetter,
  createLetterTemplate,
  getLetterBatch,
  previewLetterTemplate,
  progressLetter,
  sendLetterBatch,
  updateLetterTemplate,
} from "@/lib/letters/operations";

const templateLabels = { name: "name", html: "HTML", variables: "variables" };

/** `POST /v1/letters/{letterId}/cancel`: allowed until processing ends; later the API's conflict names the status. */
export async function cancelLetterAction(input: unknown) {
  return runAction(cancelLetter, input, { then: (data) => ({ status: data.status }) });
}

/** `POST /v1/letters/{letterId}/progress`: a test letter moves to its next status at once. */
export async function progressLetterAction(input: unknown) {
  return runAction(progressLetter, input, { then: (data) => ({ status: data.status }) });
}

/** `POST /v1/letters/templates`: a new HTML letter template. */
export async function createLetterTemplateAction(input: unknown) {
  return runAction(createLetterTemplate, input, { labels: templateLabels, then: (data) => ({ id: data.id }) });
}

/** `PATCH /v1/letters/templates/{templateId}`: name, HTML, variables or status. */
export async function updateLetterTemplateAction(input: unknown) {
  return runAction(updateLetterTemplate, input, {
    labels: templateLabels,
    then: (data) => ({ id: data.id, status: data.status }),
  });
}

/** `POST /v1/letters/templates/{templateId}/preview` (inline): the rendered PDF and its checks; nothing is stored. */
export async function previewLetterTemplateAction(input: unknown) {
  return runAction(previewLetterTemplate, input);
}

/** `POST /v1/letters/batch`: one letter per recipient, made in the background (202 with the progress record). */
export async function sendLetterBatchAction(input: unknown) {
  return runAction(sendLetterBatch, input, { labels: { templateId: "template" } });
}

/** `GET /v1/letters/batch/{batchId}`: the batch's progress, polled by the upload page. */
export async function getLetterBatchAction(input: unknown) {
  return runAction(getLetterBatch, input);
}
