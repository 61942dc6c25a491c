// tsq analysis "unicode-identifiers": declared identifiers with non-ASCII
// characters (after tsc resolves `\uXXXX` escapes), per workspace file
// (.d.ts included; node_modules and libs not):
//   scripts            the Unicode scripts of the name's letters, in order of
//                      first use: Latin, Cyrillic, Greek, CJK, Hangul, Arabic,
//                      Devanagari, Hebrew, Thai, Armenian, Georgian, Emoji,
//                      Symbol, Other (digits, `_`, `$`, combining marks and
//                      invisible characters belong to none)
//   isMixedScript      more than one script
//   hasZeroWidth       U+200B-U+200D, U+2060, U+FEFF inside the name
//   hasBidiOverride    a bidirectional control (U+061C, U+200E/F,
//                      U+202A-U+202E, U+2066-U+2069) inside the name
//   normalized         the NFC form; isNormalized when the name is NFC already
//   confusableWith     other names declared in the file with the same
//                      skeleton (NFKC, invisible characters dropped, Cyrillic
//                      and Greek look-alikes mapped to Latin)
//   scope              file | function:X | class:X | interface:X | enum:X |
//                      namespace:X | type:X (the nearest named container)
//   severity           critical (confusable, zero-width, Bidi), warning
//                      (mixed scripts), info (anything else non-ASCII)
// confusablePairs lists each look-alike pair once (ASCII names included);
// bidiControls lists Bidi control characters anywhere in the file's text
// (comments and strings too: "Trojan Source"); not with a symbol query.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = () => globalThis.tsqLs;

  const fileMatches = (fileName, file) => globalThis.tsqLs.fileMatches(fileName, file);

  const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff]);
  const BIDI = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
  const BIDI_RE = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

  const SCRIPTS = [
    ["Latin", /\p{Script=Latin}/u],
    ["Cyrillic", /\p{Script=Cyrillic}/u],
    ["Greek", /\p{Script=Greek}/u],
    ["CJK", /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}]/u],
    ["Hangul", /\p{Script=Hangul}/u],
    ["Arabic", /\p{Script=Arabic}/u],
    ["Devanagari", /\p{Script=Devanagari}/u],
    ["Hebrew", /\p{Script=Hebrew}/u],
    ["Thai", /\p{Script=Thai}/u],
    ["Armenian", /\p{Script=Armenian}/u],
    ["Georgian", /\p{Script=Georgian}/u],
    ["Emoji", /\p{Extended_Pictographic}/u],
    ["Symbol", /\p{S}/u],
  ];
  const NO_SCRIPT = /[\p{M}\p{Nd}\p{Pc}\p{Cf}$]/u;

  /** The script a character counts for, or null (digits, `_`, `$`, marks, invisibles). */
  function scriptOf(ch, cp) {
    if (cp < 0x80) return /[A-Za-z]/.test(ch) ? "Latin" : null;
    if (NO_SCRIPT.test(ch)) return null;
    for (const [name, re] of SCRIPTS) if (re.test(ch)) return name;
    return "Other";
  }

  // Look-alikes of Latin letters (a subset of Unicode's confusables.txt).
  const CONFUSABLES = {
    // Cyrillic
    "а": "a", "с": "c", "ԁ": "d", "е": "e", "ё": "ë", "һ": "h", "і": "i", "ї": "ï", "ј": "j", "ӏ": "l", "о": "o",
    "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "у": "y", "ѵ": "v", "ԝ": "w", "х": "x", "ү": "y",
    "А": "A", "В": "B", "С": "C", "Е": "E", "Ё": "Ë", "Н": "H", "І": "I", "Ї": "Ï", "Ј": "J", "К": "K", "М": "M",
    "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "l",
    // Greek
    "α": "a", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "χ": "x",
    "ω": "w",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X",
    // Latin look-alikes of ASCII letters
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g",
  };
  const CONFUSABLE_SCRIPT = (ch) => /\p{Script=Cyrillic}/u.test(ch) ? "Cyrillic" : /\p{Script=Greek}/u.test(ch) ? "Greek" : "Latin";

  function hex(cp) {
    return "U+" + cp.toString(16).toUpperCase().padStart(4, "0");
  }

  function safeNormalize(s, form) {
    try { return s.normalize(form); } catch (_) { return s; }
  }

  function skeleton(name) {
    let out = "";
    for (const ch of safeNormalize(name, "NFKC")) {
      const cp = ch.codePointAt(0);
      if (ZERO_WIDTH.has(cp) || BIDI.has(cp)) continue;
      out += CONFUSABLES[ch] || ch;
    }
    return safeNormalize(out, "NFC");
  }

  /** Why two names with one skeleton look alike. */
  function pairReason(a, b) {
    const parts = [];
    const describe = (name) => {
      for (const ch of name) {
        const cp = ch.codePointAt(0);
        if (CONFUSABLES[ch]) parts.push(`'${name}' has ${CONFUSABLE_SCRIPT(ch)} '${ch}' (${hex(cp)}) that looks like Latin '${CONFUSABLES[ch]}'`);
        else if (ZERO_WIDTH.has(cp)) parts.push(`'${name}' has an invisible zero-width character (${hex(cp)})`);
        else if (BIDI.has(cp)) parts.push(`'${name}' has an invisible Bidi control character (${hex(cp)})`);
      }
    };
    describe(a);
    describe(b);
    if (parts.length === 0) parts.push("they differ only in Unicode normalization (NFC/NFKC)");
    return [...new Set(parts)].join("; ");
  }

  // ---- declarations ---------------------------------------------------------

  const DECL_KIND = {
    [SK.VariableDeclaration]: "variable", [SK.BindingElement]: "variable", [SK.Parameter]: "parameter",
    [SK.FunctionDeclaration]: "function", [SK.FunctionExpression]: "function", [SK.ClassDeclaration]: "class",
    [SK.ClassExpression]: "class", [SK.InterfaceDeclaration]: "interface", [SK.TypeAliasDeclaration]: "type",
    [SK.EnumDeclaration]: "enum", [SK.EnumMember]: "enumMember", [SK.ModuleDeclaration]: "namespace",
    [SK.PropertyDeclaration]: "property", [SK.PropertySignature]: "property", [SK.MethodDeclaration]: "method",
    [SK.MethodSignature]: "method", [SK.GetAccessor]: "getter", [SK.SetAccessor]: "setter",
    [SK.TypeParameter]: "typeParameter", [SK.ImportSpecifier]: "import", [SK.ImportClause]: "import",
    [SK.NamespaceImport]: "import", [SK.ImportEqualsDeclaration]: "import",
  };

  function containerName(node) {
    if (node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name) || ts.isStringLiteral(node.name))) {
      return node.name.text;
    }
    if (node.kind === SK.Constructor) return "constructor";
    // `const f = () => {}`, `const C = class {}`
    const p = node.parent;
    if (p && (p.kind === SK.VariableDeclaration || p.kind === SK.PropertyDeclaration || p.kind === SK.PropertyAssignment) &&
        p.name && ts.isIdentifier(p.name)) return p.name.text;
    return "<anonymous>";
  }

  function scopeOf(decl) {
    for (let p = decl.parent; p && p.kind !== SK.SourceFile; p = p.parent) {
      if (ts.isFunctionLike(p) && p.kind !== SK.FunctionType && p.kind !== SK.ConstructorType &&
          p.kind !== SK.CallSignature && p.kind !== SK.ConstructSignature && p.kind !== SK.IndexSignature &&
          p.kind !== SK.MethodSignature) {
        return "function:" + containerName(p);
      }
      if (p.kind === SK.ClassDeclaration || p.kind === SK.ClassExpression) return "class:" + containerName(p);
      if (p.kind === SK.InterfaceDeclaration) return "interface:" + containerName(p);
      if (p.kind === SK.EnumDeclaration) return "enum:" + containerName(p);
      if (p.kind === SK.ModuleDeclaration) return (p.flags & ts.NodeFlags.GlobalAugmentation ? "global" : "namespace:" + containerName(p));
      if (p.kind === SK.TypeAliasDeclaration) return "type:" + containerName(p);
    }
    return "file";
  }

  /** Every declared name in a file: {name, kind, line, scope, pos}. */
  function declaredNames(sf) {
    const ls = L();
    const out = [];
    const visit = (node) => {
      const kind = DECL_KIND[node.kind];
      const n = node.name;
      if (kind && n && (n.kind === SK.Identifier || n.kind === SK.PrivateIdentifier)) {
        out.push({ name: ts.idText(n), kind, line: ls.line(sf, n.getStart(sf)), scope: scopeOf(node), pos: n.getStart(sf) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    return out;
  }

  function analyzeName(name) {
    const scripts = [];
    const codePoints = [];
    let hasZeroWidth = false;
    let hasBidiOverride = false;
    for (const ch of name) {
      const cp = ch.codePointAt(0);
      if (cp >= 0x80 && !codePoints.includes(hex(cp))) codePoints.push(hex(cp));
      if (ZERO_WIDTH.has(cp)) hasZeroWidth = true;
      if (BIDI.has(cp)) hasBidiOverride = true;
      const s = scriptOf(ch, cp);
      if (s && !scripts.includes(s)) scripts.push(s);
    }
    return { scripts, codePoints, hasZeroWidth, hasBidiOverride };
  }

  function fileReport(sf, target) {
    const text = sf.text;
    if (!/[^\x00-\x7f]/.test(text) && !text.includes("\\u")) return null;
    const decls = declaredNames(sf);

    // Confusable pairs: distinct names with one skeleton, first declarations.
    const firstOf = new Map();
    for (const d of decls) if (!firstOf.has(d.name)) firstOf.set(d.name, d);
    const bySkeleton = new Map();
    for (const d of firstOf.values()) {
      const k = skeleton(d.name);
      if (!bySkeleton.has(k)) bySkeleton.set(k, []);
      bySkeleton.get(k).push(d);
    }
    const pairs = [];
    const partners = new Map();
    for (const [k, group] of bySkeleton) {
      if (group.length < 2) continue;
      group.sort((a, b) => a.pos - b.pos);
      for (let i = 0; i < group.length; i++) {
        for (let j = i + 1; j < group.length; j++) {
          const a = group[i];
          const b = group[j];
          pairs.push({
            first: { name: a.name, line: a.line, scope: a.scope },
            second: { name: b.name, line: b.line, scope: b.scope },
            skeleton: k,
            reason: pairReason(a.name, b.name),
          });
          for (const [x, y] of [[a, b], [b, a]]) {
            if (!partners.has(x.name)) partners.set(x.name, []);
            partners.get(x.name).push(y.name);
          }
        }
      }
    }

    const identifiers = [];
    for (const d of decls) {
      if (!/[^\x00-\x7f]/.test(d.name)) continue;
      const info = analyzeName(d.name);
      const normalized = safeNormalize(d.name, "NFC");
      const confusableWith = partners.get(d.name) || [];
      const reasons = [];
      if (confusableWith.length) reasons.push(`confusable with ${confusableWith.map((n) => `'${n}'`).join(", ")}`);
      if (info.hasZeroWidth) reasons.push("contains a zero-width character");
      if (info.hasBidiOverride) reasons.push("contains a Bidi control character");
      if (info.scripts.length > 1) reasons.push(`mixes scripts: ${info.scripts.join(", ")}`);
      if (normalized !== d.name) reasons.push("not NFC-normalized");
      const severity = confusableWith.length || info.hasZeroWidth || info.hasBidiOverride ? "critical"
        : info.scripts.length > 1 ? "warning" : "info";
      if (reasons.length === 0) reasons.push(`non-ASCII (${info.scripts.join(", ") || "no script"})`);
      identifiers.push({
        name: d.name,
        kind: d.kind,
        line: d.line,
        scope: d.scope,
        scripts: info.scripts,
        isMixedScript: info.scripts.length > 1,
        hasZeroWidth: info.hasZeroWidth,
        hasBidiOverride: info.hasBidiOverride,
        normalized,
        isNormalized: normalized === d.name,
        codePoints: info.codePoints,
        confusableWith,
        severity,
        reasons,
        pos: d.pos,
      });
    }
    identifiers.sort((a, b) => a.pos - b.pos);
    for (const i of identifiers) delete i.pos;

    const bidiControls = [];
    for (const m of text.matchAll(BIDI_RE)) {
      const lc = sf.getLineAndCharacterOfPosition(m.index);
      bidiControls.push({ line: lc.line + 1, column: lc.character + 1, codePoint: hex(m[0].codePointAt(0)) });
    }

    let ids = identifiers;
    let ps = pairs;
    if (target !== null) {
      const nt = safeNormalize(target, "NFC");
      ids = identifiers.filter((i) => i.name === target || i.normalized === nt);
      ps = pairs.filter((p) => [p.first.name, p.second.name].some((n) => n === target || safeNormalize(n, "NFC") === nt));
    }
    ps.sort((a, b) => a.first.line - b.first.line || a.second.line - b.second.line);
    const bidi = target === null ? bidiControls : [];
    if (ids.length === 0 && ps.length === 0 && bidi.length === 0) return null;
    return { filePath: L().rel(sf.fileName), identifiers: ids, confusablePairs: ps, bidiControls: bidi };
  }

  globalThis.tsqAnalyses["unicode-identifiers"] = (workspace, req) => {
    const target = req.names && req.names.length ? req.names[req.names.length - 1] : null;
    const out = [];
    for (const p of workspace.projects) {
      // The workspace's own files, declaration files included.
      for (const sf of p.program().getSourceFiles()) {
        if (sf.fileName.includes("/node_modules/") || sf.fileName.startsWith("/__tsq__/")) continue;
        if (workspace.projectOf(sf.fileName) !== p) continue;
        if (req.file && !fileMatches(sf.fileName, req.file)) continue;
        const r = fileReport(sf, target);
        if (r) out.push(r);
      }
    }
    out.sort((a, b) => a.filePath.localeCompare(b.filePath));
    return out;
  };
})(globalThis);
