import type { OperationOutput } from "@/lib/core/operation";
import type { getLetterRequirements } from "@/lib/letters/operations";
import type { PreviewGeometry } from "./pdf-preview";

/** The preview's overlay geometry from the requirements (`GET /v1/letters/requirements`, the checks' own source). */
export function previewGeometry(r: OperationOutput<typeof getLetterRequirements>): PreviewGeometry {
  const franking = r.keepOuts.find((k) => k.id === "franking_zone");
  const edge = r.keepOuts.find((k) => k.id === "edge_clearance");
  return {
    widthMm: r.pageSetup.widthMm,
    heightMm: r.pageSetup.heightMm,
    windows: { left: r.addressWindow.left, right: r.addressWindow.right },
    registered: r.addressWindow.registered,
    frankingZone: franking?.box ?? null,
    edgeClearanceMm: edge?.marginMm ?? 0,
  };
}
