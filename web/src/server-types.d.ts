/**
 * The app takes its types from the server's router (api.ts), which reaches server modules typed by
 * the server's own ambient declarations (src/types): this tsconfig sees them too.
 */
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- an ambient declaration, not a module: it can only be referenced
/// <reference path="../../src/types/linebreak.d.ts" />
