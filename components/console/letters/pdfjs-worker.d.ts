/** pdf.js's worker module, imported for its side effect (it sets `globalThis.pdfjsWorker`, so pdf.js runs it in this thread). */
declare module "pdfjs-dist/build/pdf.worker.min.mjs";
