// A streaming XML scanner made for PlotViz files: fed byte chunks of UTF-8, it
// reports start tags (with attributes), end tags and, only when asked, text. It checks
// well-formedness (one root, nesting, attribute syntax, entities) but knows no
// DTDs or namespaces. Written instead of a general SAX parser because a plot is
// millions of tiny elements and the per-event cost decides the ingest rate.
// It reads the bytes themselves: only names (once each), the values asked for
// and wanted text become strings.

import { isAscii } from 'node:buffer';
import { COPIED_SUBSTRING, latin1, utf8 } from './chunks.ts';
import { parseFloat32, parseFloat32Text, parseIndex } from './numbers.ts';
import { clipped, quoted } from './reader.ts';

export interface XmlHandler {
  /** `attributes` is valid only during the call. */
  open(name: string, attributes: XmlAttributes): void;
  close(name: string): void;
  /** Character data (`text` is valid only during the call); only delivered while `wantText` is true. */
  text(text: XmlText): void;
  wantText: boolean;
}

export type XmlFail = (code: string, message: string, line: number) => never;

/** Returned by the token readers when the token continues in the next chunk. */
const NEED_MORE = -1;
/** Longest text or tag held while waiting for its end: a bound on memory for non-XML input. */
const MAX_PENDING_BYTES = 16 << 20;
const EMPTY = Buffer.alloc(0);

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const LT = 0;
const AMP = 1;
/** Element and attribute names are interned (reused, not sliced): a table indexed by length and end characters. */
const INTERN_SLOTS = 256;

/**
 * The attributes of the start tag being reported. Values stay spans of the
 * scanner's buffer until asked for, so numbers are read without a string each.
 */
export class XmlAttributes {
  count = 0;
  readonly names: string[] = [];
  starts = new Int32Array(8);
  ends = new Int32Array(8);
  private readonly hasEntity: boolean[] = [];
  buf: Buffer = EMPTY;

  constructor(private readonly decode: (raw: string) => string) {}

  indexOf(name: string): number {
    for (let i = 0; i < this.count; i++) if (this.names[i] === name) return i;
    return -1;
  }

  /** The value of attribute `name`, entities decoded, or undefined. */
  get(name: string): string | undefined {
    const i = this.indexOf(name);
    if (i < 0) return undefined;
    const raw = utf8(this.buf, this.starts[i], this.ends[i]);
    return this.hasEntity[i] ? this.decode(raw) : raw;
  }

  /** Attribute `name` read as a number rounded to Float32 (NaN if not a number), or undefined. */
  float32(name: string): number | undefined {
    const i = this.indexOf(name);
    if (i < 0) return undefined;
    const start = this.starts[i];
    const end = this.ends[i];
    if (this.hasEntity[i]) {
      const value = this.get(name)!.trim();
      return value.length === 0 ? NaN : parseFloat32Text(value);
    }
    return start === end ? NaN : parseFloat32(this.buf, start, end);
  }

  add(name: string, start: number, end: number, hasEntity: boolean): void {
    if (this.count === this.starts.length) {
      this.starts = Int32Array.from({ length: this.count * 2 }, (_, i) => this.starts[i] ?? 0);
      this.ends = Int32Array.from({ length: this.count * 2 }, (_, i) => this.ends[i] ?? 0);
    }
    this.names[this.count] = name;
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.hasEntity[this.count] = hasEntity;
    this.count++;
  }
}

/** The character data being reported: a span of the scanner's buffer, decoded when asked for. */
export class XmlText {
  buf: Buffer = EMPTY;
  /** buf as a string when it is ASCII (short text is cut from it: cheaper than decoding), else null. */
  chars: string | null = null;
  start = 0;
  end = 0;
  /** False for CDATA, whose "&" is a character. */
  entities = true;

  constructor(private readonly decode: (raw: string) => string) {}

  /** The text, entities decoded. */
  string(): string {
    const chars = this.chars;
    const short = chars !== null && this.end - this.start < COPIED_SUBSTRING;
    const raw = short ? chars.slice(this.start, this.end) : utf8(this.buf, this.start, this.end);
    return this.entities ? this.decode(raw) : raw;
  }

  /**
   * The unsigned integer the text is, when written exactly as String() writes
   * it ("7", not "07" or " 7"), without making a string; else -1.
   */
  index(): number {
    if (this.end - this.start > 1 && this.buf[this.start] === 48 /* 0 */) return -1;
    return parseIndex(this.buf, this.start, this.end);
  }

  set(buf: Buffer, chars: string | null, start: number, end: number, entities: boolean): XmlText {
    this.buf = buf;
    this.chars = chars;
    this.start = start;
    this.end = end;
    this.entities = entities;
    return this;
  }
}

export class XmlScanner {
  private buf: Buffer = EMPTY;
  /**
   * buf decoded as Latin-1: one character per byte, at the same positions.
   * Only for searching: String indexOf is several times faster than a loop
   * over the bytes (or Buffer's indexOf, for the short distances in markup).
   */
  private chars = '';
  /** True when buf is ASCII: then chars is also its UTF-8 decoding. */
  private ascii = true;
  private pos = 0;
  /** False until the first bytes have been checked for a byte-order mark. */
  private bomChecked = false;
  /** Line number of buf[countedTo]; advanced lazily when a line is asked for. */
  private countedLine = 1;
  private countedTo = 0;
  private tokenStart = 0;
  private readonly stack: string[] = [];
  private readonly attributes = new XmlAttributes((raw) => this.decode(raw));
  private readonly text = new XmlText((raw) => this.decode(raw));
  private readonly interned: (string | undefined)[] = new Array(INTERN_SLOTS);
  /** Last results of find(): positions of "<" and "&" (see find). */
  private readonly found = [-1, -1];
  private rootSeen = false;
  /** Chunks fed while a long unfinished token waits (see feed). */
  private held: Buffer[] = [];
  private heldBytes = 0;

  /**
   * `knownNames`: the element and attribute names the handler compares with.
   * Interning returns these very strings, so its comparisons are identity
   * checks rather than character by character.
   */
  constructor(
    private readonly handler: XmlHandler,
    private readonly fail: XmlFail,
    knownNames: readonly string[] = [],
  ) {
    for (const name of knownNames) {
      const slot = internSlot(name.length, name.charCodeAt(0), name.charCodeAt(name.length - 1));
      this.interned[slot] ??= name;
    }
  }

  /** 1-based line of the token being reported. */
  line(): number {
    const target = this.tokenStart;
    if (target <= this.countedTo) return this.countedLine;
    let nl = this.chars.indexOf('\n', this.countedTo);
    while (nl !== -1 && nl < target) {
      this.countedLine++;
      nl = this.chars.indexOf('\n', nl + 1);
    }
    this.countedTo = target;
    return this.countedLine;
  }

  feed(chunk: Buffer): void {
    // An unfinished token (text or markup) is scanned again from its start
    // when bytes are added: doing that for every chunk made one long text node
    // cost time quadratic in its length. Chunks wait until they at least match
    // the unfinished part, so each byte is rescanned a bounded number of times.
    const unfinished = this.buf.length - this.pos;
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes < unfinished) {
      if (unfinished + this.heldBytes > MAX_PENDING_BYTES) this.failTooLong();
      return;
    }
    this.takeHeld();
  }

  /** Joins the unfinished token and the held chunks into the buffer and scans it. */
  private takeHeld(): void {
    this.tokenStart = this.pos;
    this.line(); // count the lines of what is dropped
    const rest = this.buf.subarray(this.pos);
    this.buf = rest.length === 0 && this.held.length === 1 ? this.held[0] : Buffer.concat([rest, ...this.held]);
    this.held = [];
    this.heldBytes = 0;
    this.chars = latin1(this.buf, 0, this.buf.length);
    this.ascii = isAscii(this.buf);
    this.countedTo = 0;
    this.tokenStart = 0;
    this.pos = 0;
    this.found[LT] = this.found[AMP] = -1;
    if (!this.bomChecked && !this.skipBom(false)) return;
    this.scan(false);
    if (this.buf.length - this.pos > MAX_PENDING_BYTES) this.failTooLong();
  }

  private failTooLong(): never {
    this.tokenStart = this.pos;
    return this.fail('malformed_xml', `a tag or text longer than ${MAX_PENDING_BYTES} bytes`, this.line());
  }

  end(): void {
    if (this.held.length > 0) this.takeHeld();
    if (!this.bomChecked) this.skipBom(true);
    this.scan(true);
    this.tokenStart = this.buf.length;
    if (!this.rootSeen) this.fail('malformed_xml', 'no root element', this.line());
    if (this.stack.length > 0) {
      this.fail('malformed_xml', `unexpected end of file: <${clipped(this.stack[this.stack.length - 1])}> is not closed`, this.line());
    }
  }

  /** Skips a leading byte-order mark; false while the bytes so far could still become one. */
  private skipBom(final: boolean): boolean {
    const buf = this.buf;
    const length = Math.min(buf.length, BOM.length);
    if (!final && length < BOM.length && buf.subarray(0, length).equals(BOM.subarray(0, length))) return false;
    if (length === BOM.length && buf.subarray(0, length).equals(BOM)) this.pos = BOM.length;
    this.bomChecked = true;
    return true;
  }

  private scan(final: boolean): void {
    const buf = this.buf;
    while (true) {
      const lt = this.find(LT, this.pos);
      if (lt === buf.length) {
        // Text may continue (or an entity be cut) in the next chunk.
        if (final && this.pos < buf.length) this.onText(this.pos, buf.length);
        if (final) this.pos = buf.length;
        return;
      }
      if (lt > this.pos) this.onText(this.pos, lt);
      this.pos = lt;
      this.tokenStart = lt;
      const next = this.readToken(lt);
      if (next === NEED_MORE) {
        if (final) this.fail('malformed_xml', 'unexpected end of file inside a tag', this.line());
        return;
      }
      this.pos = next;
    }
  }

  private onText(from: number, to: number): void {
    if (this.stack.length === 0) {
      for (let i = from; i < to; i++) {
        const c = this.buf[i];
        if (c !== 32 && c !== 10 && c !== 13 && c !== 9) {
          this.tokenStart = i;
          this.fail('malformed_xml', 'text outside the root element', this.line());
        }
      }
    } else if (this.handler.wantText) {
      this.tokenStart = from;
      this.handler.text(this.text.set(this.buf, this.ascii ? this.chars : null, from, to, true));
    }
  }

  /** Reads the markup starting at buf[lt] === '<'; returns the position after it. */
  private readToken(lt: number): number {
    const buf = this.buf;
    if (lt + 1 >= buf.length) return NEED_MORE;
    const c = buf[lt + 1];
    if (c === 47 /* / */) return this.readEndTag(lt);
    if (c === 63 /* ? */) return skipPast(buf, '?>', lt + 2);
    if (c === 33 /* ! */) return this.readDeclaration(lt);
    return this.readStartTag(lt);
  }

  private readEndTag(lt: number): number {
    const buf = this.buf;
    // The usual end tag: exactly the name of the open element, then ">".
    const open = this.stack[this.stack.length - 1];
    if (open !== undefined && buf[lt + 2 + open.length] === 62 /* > */ && sameText(buf, lt + 2, open)) {
      this.stack.pop();
      this.handler.close(open);
      return lt + 3 + open.length;
    }
    const gt = this.chars.indexOf('>', lt + 2);
    if (gt === -1) return NEED_MORE;
    const expected = this.stack.pop();
    let after = lt + 2 + (expected?.length ?? 0);
    while (after < gt && isSpace(buf[after])) after++;
    if (expected === undefined || after !== gt || !sameText(buf, lt + 2, expected)) {
      // Not the same bytes (or a name beyond ASCII, whose bytes are not its characters).
      const name = utf8(buf, lt + 2, gt).replace(TRAILING_SPACE, '');
      if (name !== expected) {
        const want = expected === undefined ? 'no element is open' : `expected </${clipped(expected)}>`;
        this.fail('malformed_xml', `mismatched end tag </${clipped(name)}>: ${want}`, this.line());
      }
    }
    this.handler.close(expected);
    return gt + 1;
  }

  private readDeclaration(lt: number): number {
    const buf = this.buf;
    if (sameText(buf, lt + 1, '!--')) return skipPast(buf, '-->', lt + 4);
    if (sameText(buf, lt + 1, '![CDATA[')) {
      const close = buf.indexOf(']]>', lt + 9);
      if (close === -1) return NEED_MORE;
      if (this.stack.length === 0) this.fail('malformed_xml', 'CDATA outside the root element', this.line());
      if (this.handler.wantText) this.handler.text(this.text.set(buf, this.ascii ? this.chars : null, lt + 9, close, false));
      return close + 3;
    }
    if (sameText(buf, lt + 1, '!DOCTYPE')) {
      const gt = buf.indexOf(62 /* > */, lt);
      const bracket = buf.indexOf(91 /* [ */, lt);
      if (bracket !== -1 && (gt === -1 || bracket < gt)) {
        const close = buf.indexOf(93 /* ] */, bracket);
        return close === -1 ? NEED_MORE : skipPast(buf, '>', close);
      }
      return gt === -1 ? NEED_MORE : gt + 1;
    }
    if (buf.length - lt < 9) return NEED_MORE; // "<!DOCTYPE" or "<![CDATA[" may be cut
    return this.fail('malformed_xml', 'unexpected "<!"', this.line());
  }

  /**
   * A start tag ends before the next "<" (which may not appear inside it), so
   * that one search bounds the tag and also finds the token after it.
   */
  private readStartTag(lt: number): number {
    const buf = this.buf;
    const limit = this.find(LT, lt + 1);
    let i = lt + 1;
    i = nameEnd(buf, i, limit);
    if (i >= limit) return this.cutTag(limit);
    const name = this.intern(lt + 1, i);
    const attributes = this.attributes;
    attributes.count = 0;
    attributes.buf = buf;
    let selfClosing = false;
    while (true) {
      const before = i;
      while (i < limit && isSpace(buf[i])) i++;
      if (i >= limit) return this.cutTag(limit);
      const c = buf[i];
      if (c === 62 /* > */) break;
      if (c === 47 /* / */) {
        if (i + 1 >= limit) return this.cutTag(limit);
        if (buf[i + 1] !== 62) this.fail('malformed_xml', `expected "/>" in <${clipped(name)}>`, this.line());
        selfClosing = true;
        i++;
        break;
      }
      if (i === before) this.fail('malformed_xml', `expected a space before attribute in <${clipped(name)}>`, this.line());
      const nameStart = i;
      i = nameEnd(buf, i, limit);
      if (i >= limit) return this.cutTag(limit);
      const attribute = this.intern(nameStart, i);
      while (i < limit && isSpace(buf[i])) i++;
      if (i + 1 >= limit) return this.cutTag(limit);
      if (buf[i] !== 61 /* = */) this.fail('malformed_xml', `attribute ${clipped(attribute)} of <${clipped(name)}> has no value`, this.line());
      i++;
      while (i < limit && isSpace(buf[i])) i++;
      if (i >= limit) return this.cutTag(limit);
      const quote = buf[i];
      if (quote !== 34 && quote !== 39) this.fail('malformed_xml', `attribute ${clipped(attribute)} of <${clipped(name)}> is not quoted`, this.line());
      const close = this.chars.indexOf(quote === 34 ? '"' : "'", i + 1);
      if (close === -1 || close > limit) return this.cutTag(limit);
      if (attributes.indexOf(attribute) >= 0) this.fail('malformed_xml', `attribute ${clipped(attribute)} repeated in <${clipped(name)}>`, this.line());
      attributes.add(attribute, i + 1, close, this.find(AMP, i + 1) < close);
      i = close + 1;
    }
    if (this.stack.length === 0 && this.rootSeen) {
      this.fail('malformed_xml', `a second root element <${clipped(name)}>`, this.line());
    }
    this.rootSeen = true;
    this.handler.open(name, attributes);
    if (selfClosing) this.handler.close(name);
    else this.stack.push(name);
    return i + 1;
  }

  /** Running into the next "<" means the tag is cut by the chunk end, or malformed. */
  private cutTag(limit: number): number {
    if (limit === this.buf.length) return NEED_MORE;
    return this.fail('malformed_xml', 'unterminated start tag', this.line());
  }

  /**
   * Position of the first `character` (LT or AMP) at or after `from`, or the
   * buffer length. The last answer is kept: scanning moves forward, so one
   * search serves every question until that position is passed.
   */
  private find(character: typeof LT | typeof AMP, from: number): number {
    const known = this.found[character];
    if (known >= from) return known;
    const at = this.chars.indexOf(character === LT ? '<' : '&', from);
    return (this.found[character] = at === -1 ? this.buf.length : at);
  }

  /**
   * buf[start, end) as a name: the earlier equal name when there is one in its
   * slot (no decoding, no check), else decoded and checked to be an XML name.
   * Only ASCII names are kept, as their bytes are their characters.
   */
  private intern(start: number, end: number): string {
    const buf = this.buf;
    const length = end - start;
    const slot = internSlot(length, buf[start], buf[end - 1]);
    const known = this.interned[slot];
    if (known !== undefined && known.length === length && sameText(buf, start, known)) return known;
    const name = utf8(buf, start, end);
    if (!XML_NAME.test(name)) this.fail('malformed_xml', `${quoted(name)} is not an element or attribute name`, this.line());
    if (name.length === length && ASCII.test(name)) this.interned[slot] = name;
    return name;
  }

  private decode(raw: string): string {
    if (raw.indexOf('&') === -1) return raw;
    return raw.replace(/&([^;&<]*)(;?)/g, (whole, entity: string, semicolon: string) => {
      const value = semicolon === ';' ? decodeEntity(entity) : undefined;
      if (value === undefined) this.fail('malformed_xml', `bad entity ${quoted(whole)}`, this.line());
      return value;
    });
  }
}

function decodeEntity(entity: string): string | undefined {
  if (entity.charCodeAt(0) !== 35 /* # */) return ENTITIES[entity];
  const hex = entity[1] === 'x';
  const digits = entity.slice(hex ? 2 : 1);
  if (!(hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) return undefined;
  const code = parseInt(digits, hex ? 16 : 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/** Slot of a name in the intern table, from its length and end characters. */
function internSlot(length: number, first: number, last: number): number {
  return (length * 31 + first * 7 + last) & (INTERN_SLOTS - 1);
}

function skipPast(buf: Buffer, terminator: string, from: number): number {
  const at = buf.indexOf(terminator, from);
  return at === -1 ? NEED_MORE : at + terminator.length;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** XML names, loosely: ASCII letters, digits, "-", "_", ".", ":" and anything beyond ASCII. */
const XML_NAME = /^[A-Za-z_:\u0080-\uffff][-A-Za-z0-9_.:\u0080-\uffff]*$/;
const ASCII = /^[\0-\x7f]*$/;
const TRAILING_SPACE = /[ \t\r\n]+$/;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** End of the name starting at buf[i]: the first space, "/", ">", "=" or quote (validated later by XML_NAME). */
function nameEnd(buf: Buffer, i: number, limit: number): number {
  let c = buf[i];
  while (i < limit && c > 32 && c !== 62 && c !== 47 && c !== 61 && c !== 34 && c !== 39) c = buf[++i];
  return i;
}

/** True when buf holds `text` at `start` and `text` is ASCII (beyond it, bytes are not characters). */
function sameText(buf: Buffer, start: number, text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (code > 127 || buf[start + k] !== code) return false;
  }
  return true;
}
