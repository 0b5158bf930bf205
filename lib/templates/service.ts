// The template service is split one file per verb (create.ts, read.ts, update.ts, publish.ts,
// render-template.ts; shared pieces in template.ts). This path stays only for the send path's
// import (lib/messages/stages/render.ts), which other branches are changing now; new code imports
// from ./render-template and ./template.
export { renderVersion } from "./render-template";
export { templateFailure } from "./template";
