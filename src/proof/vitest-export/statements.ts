import type { TypeScriptWriter } from '../code-writer.js';

/**
 * A statement of a step, with the names of the file it reads (`TypeScriptWriter.reading`). The file declares only what
 * it reads (it type-checks under `noUnusedLocals`), so two kinds wait for the whole file to be written: `sets`, a
 * variable of the file (an identifier read from this answer), kept only when a later step reads that variable, else
 * `otherwise` (its value, still asserted) or nothing; `declares`, a constant of the step (`answer`), written as
 * `otherwise` when no statement after it reads it.
 */
export interface Statement {
  code: string;
  reads: ReadonlySet<string>;
  sets?: string;
  declares?: string;
  otherwise?: string;
}

/** One `it` of the file: its name, the tenant's instant it ran at, its statements; or why it cannot be replayed. */
export interface ReplayStep {
  title: string;
  tenantAt: number | null;
  /** How the clock gets to `tenantAt`: by the time that passed (what was due in it happens), or set there. */
  clock?: 'advance' | 'set';
  statements: Statement[];
  skipped?: string;
}

/** A statement the writer writes now, with what it reads. */
export function statement(w: TypeScriptWriter, write: () => string): Statement {
  const { written, names } = w.reading(write);
  return { code: written, reads: names };
}

/** `const answer = await <call>;`, or the call alone when nothing after it reads the answer. */
export function answerOf(w: TypeScriptWriter, call: () => string): Statement {
  const { written, names } = w.reading(call);
  return { code: `const answer = await ${written};`, reads: names, declares: 'answer', otherwise: `await ${written};` };
}

/** `<variable> = <value>;` when the file reads the variable; else the value alone (`keepValue`: asserts) or nothing */
export function assignment(w: TypeScriptWriter, variable: string, value: () => string, keepValue: boolean): Statement {
  const { written, names } = w.reading(value);
  return {
    code: `${variable} = ${written};`,
    reads: names,
    sets: variable,
    ...(keepValue && { otherwise: `${written};` }),
  };
}

/**
 * A step's statements as written once the file is: assignments of variables no step reads left out (or their values
 * alone), a step constant no later statement reads left undeclared. Answers the lines and the names they read.
 */
export function resolved(
  statements: readonly Statement[],
  fileReads: (name: string) => boolean,
): { lines: string[]; reads: Set<string> } {
  const lines: string[] = [];
  const reads = new Set<string>();
  for (let i = statements.length - 1; i >= 0; i--) {
    const s = statements[i]!;
    let code: string | undefined = s.code;
    if (s.sets !== undefined && !fileReads(s.sets)) code = s.otherwise;
    else if (s.declares !== undefined && !reads.has(s.declares)) code = s.otherwise;
    if (code === undefined) continue;
    for (const name of s.reads) reads.add(name);
    lines.push(code);
  }
  return { lines: lines.reverse(), reads };
}
