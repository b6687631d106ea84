// Newick trees (PHYLIP, FastTree, RAxML, IQ-TREE, MEGA): one rooted tree, `(A:0.1,(B,C)90:0.2);`.
// Read iteratively (a caterpillar tree of 100,000 leaves nests as deep), into nodes in preorder.
import { InputError } from './types.ts';
import { quoted } from './reader.ts';

export interface NewickTree {
  /** parent per node in preorder (node 0 is the root, -1) */
  parent: number[];
  /** branch length to the parent, null where none is given */
  length: (number | null)[];
  /** leaf or internal label, '' where none */
  name: string[];
}

/** Characters that end an unquoted label. */
const DELIMITERS = new Set(['(', ')', ',', ':', ';', '[', "'", '"']);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * Parses one Newick tree. Labels: unquoted (underscores kept: sequence ids use them), or quoted
 * with ' or " (the quote doubled inside); comments `[...]` are skipped wherever they are;
 * whitespace between tokens is ignored; a node may have any number of children. Every leaf
 * needs a name. Errors: InputError 400 `bad_newick`, "file: line L, column C: …".
 */
export function parseNewick(text: string): NewickTree {
  const parent: number[] = [], length: (number | null)[] = [], name: string[] = [];
  let pos = 0;
  const fail = (message: string, at = pos): never => {
    // Lines are counted only for an error.
    let l = 1, start = 0;
    for (let i = 0; i < at; i++) if (text[i] === '\n') { l++; start = i + 1; }
    throw new InputError('bad_newick', `file: line ${l}, column ${at - start + 1}: ${message}`, { line: l, field: 'file', status: 400 });
  };
  const skip = () => {
    for (;;) {
      while (pos < text.length && isSpace(text[pos]!)) pos++;
      if (text[pos] !== '[') return;
      const close = text.indexOf(']', pos + 1);
      if (close < 0) fail('a comment "[" is never closed by "]"');
      pos = close + 1;
    }
  };
  const label = (): string => {
    const quote = text[pos];
    if (quote === "'" || quote === '"') {
      const open = pos;
      let out = '';
      for (pos++; ; pos++) {
        const close = text.indexOf(quote, pos);
        if (close < 0) fail(`the label quoted at ${quote} is never closed`, open);
        out += text.slice(pos, close);
        pos = close + 1;
        if (text[pos] !== quote) return out; // a doubled quote is one quote character
        out += quote;
      }
    }
    const from = pos;
    while (pos < text.length && !DELIMITERS.has(text[pos]!) && !isSpace(text[pos]!)) pos++;
    return text.slice(from, pos);
  };
  const branchLength = (): number | null => {
    skip();
    if (text[pos] !== ':') return null;
    pos++;
    skip();
    const from = pos;
    while (pos < text.length && /[0-9eE.+-]/.test(text[pos]!)) pos++;
    const value = Number(text.slice(from, pos));
    if (from === pos || !Number.isFinite(value)) {
      pos = from;
      fail(`${quoted(label() || text[from] || 'nothing')} is not a branch length (a number after ":")`, from);
    }
    return value;
  };
  const newNode = (up: number) => {
    parent.push(up);
    length.push(null);
    name.push('');
    return parent.length - 1;
  };
  /** Label and length of node `i`; a leaf must have a name. */
  const finishNode = (i: number, leaf: boolean) => {
    skip();
    const at = pos;
    name[i] = label();
    if (leaf && name[i] === '') fail(text[pos] === undefined ? 'the file ends inside the tree (no ";")' : `expected a leaf name, found ${quoted(text[pos]!)}`, at);
    length[i] = branchLength();
    skip();
  };

  skip();
  if (pos >= text.length) fail('the file holds no tree');
  // The node whose children are being read, and whether one is expected next (after "(" or ",").
  let open = -1;
  for (;;) {
    skip();
    if (text[pos] === '(') {
      open = newNode(open);
      pos++;
      continue;
    }
    // A leaf (or, at the start, a one-node tree).
    finishNode(newNode(open), true);
    // Close as many nodes as the ")"s say; a "," starts the next sibling.
    for (;;) {
      const c = text[pos];
      if (c === ',') {
        if (open < 0) fail('"," outside any parentheses');
        pos++;
        break;
      }
      if (c === ')') {
        if (open < 0) fail('")" without a matching "("');
        pos++;
        finishNode(open, false);
        open = parent[open]!;
        continue;
      }
      if (c === ';') {
        if (open >= 0) fail(`";" before every "(" is closed`);
        pos++;
        skip();
        if (pos < text.length) fail('text after the tree\'s ";" (one tree per file)');
        return { parent, length, name };
      }
      if (c === undefined) fail(open >= 0 ? 'the file ends inside the tree: a "(" is never closed' : 'the tree does not end with ";"');
      fail(`expected ",", ")" or ";", found ${quoted(c!)}`);
    }
  }
}
