// What `tsc` reads for `@ideally/contracts/openapi.json` (the "types" condition of package.json's
// exports): the document's outline (document.ts), checked against the file by the generator and the
// contract's tests. Bun and its bundler load openapi.json itself.
import type { OpenApiDocument } from "./document.ts";

declare const document: OpenApiDocument;
export default document;
