/** The Unicode Line Breaking Algorithm (UAX #14), as pdfkit uses it; the package ships no types. */
declare module 'linebreak' {
  interface Break {
    /** Where the next line may begin (a UTF-16 index into the text). */
    position: number;
    /** A break the text demands (after a line feed), not only allows. */
    required: boolean;
  }
  class LineBreaker {
    constructor(text: string);
    nextBreak(): Break | null;
  }
  export = LineBreaker;
}
