// tsq occurrence index, the service request: each file indexed with its
// owner project's program (js/occurrences/60_occurrences.js indexes one file), other
// holders that resolve its imports differently merged in, programs the
// request does not need released, and a full pass checked in slices so
// that no one checker holds a whole large project's types.
"use strict";

((globalThis) => {
  const L = globalThis.tsqLs;
  const { indexFile, occurrenceRows, contextualEdges, pacedBy } = globalThis.tsqOccurrences;
  const { moduleEdges, dependencies, programReads, parseAlone } = globalThis.tsqFileInputs;

  /** A file past its budget (`fileBudget`): recorded as the file's
   *  failure, with the reason; its answers come live. */
  class OverBudget extends Error {}

  /** A file's budget in the pass, as the check `pacedBy` calls with the
   *  work done since its last call, or null when `budget` sets none (0
   *  leaves either part unbounded). Work units: one per identifier and
   *  declaration visited, one more per container a declaration's id and
   *  answer name (they grow with its depth: 3,000 nested functions are 4.5
   *  million), and one per type and instantiation `checker` creates
   *  meanwhile (the checker's own counters). Past `work` units or
   *  `seconds`, the check throws `OverBudget`. It runs between the pass's
   *  own steps, never inside a checker call, so the checker is left whole
   *  (a single checker call is not interrupted; the time is seen at the
   *  next step). */
  function fileBudget(budget, checker) {
    const work = (budget && budget.work) || 0;
    const seconds = (budget && budget.seconds) || 0;
    if (!work && !seconds) return null;
    const started = Date.now();
    const made = () => checker.getTypeCount() + checker.getInstantiationCount();
    const madeBefore = made();
    let used = 0;
    let steps = 0;
    return (units) => {
      used += units;
      if (++steps % 16) return;
      const total = used + made() - madeBefore;
      const spent = (Date.now() - started) / 1000;
      if ((work && total > work) || (seconds && spent > seconds)) {
        throw new OverBudget(`over the per-file budget of the occurrence pass (${work} work units, TSQ_OCCURRENCE_FILE_WORK; ${seconds} s, ` +
          `TSQ_OCCURRENCE_FILE_SECONDS): stopped at ${total} units after ${spent.toFixed(1)} s; its answers are computed live`);
      }
    };
  }

  /** A file's failure message: the budget's, a stack overflow's, or the
   *  error with where it was thrown (a bug report's first line). */
  function failure(e) {
    if (e instanceof OverBudget) return e.message;
    if (globalThis.tsqDocuments.isStackOverflow(e)) return `JS stack overflow: ${e.message}`;
    const at = String((e && e.stack) || "").split("\n").find((l) => l.includes(" at ")) || "";
    return `${(e && e.message) || e}${at ? ` (${at.trim()})` : ""}`;
  }

  /** The other configured projects whose configs include `f` (a root
   *  catch-all tsconfig beside the file's own). */
  function otherHolders(ws, p, f) {
    return ws.projects.filter((q) => q !== p && q.configPath && q.fileSet.has(f));
  }

  /** A program's global environment: its default library files and its
   *  automatic type packages. Where two holders' differ (one lib
   *  declares `AsyncDisposable`, the other does not), the same file's
   *  names can resolve in one and not the other. Kept per program (a
   *  program never changes; a rebuilt one is a new key), since every
   *  pair of holders asks for both of theirs. */
  const environments = new WeakMap();
  function environment(program) {
    let known = environments.get(program);
    if (known === undefined) {
      const libs = program.getSourceFiles().filter((sf) => program.isSourceFileDefaultLibrary(sf)).map((sf) => sf.fileName).sort();
      const types = (program.getAutomaticTypeDirectiveNames ? program.getAutomaticTypeDirectiveNames() : []).slice().sort();
      known = JSON.stringify([libs, types]);
      environments.set(program, known);
    }
    return known;
  }

  /** Whether `q` has another global environment than `p`, or resolves
   *  any workspace file's imports that `p`'s
   *  program holds otherwise than `p` does: a file's types depend on its
   *  imports' imports too (a trpc example imports `./trpc`, which alone
   *  imports `@trpc/server`). Remembered per request (`differs`: p -> q
   *  -> answer), since programs change between requests. */
  function resolvesDifferently(p, q, differs) {
    if (!differs.has(p)) differs.set(p, new Map());
    const known = differs.get(p);
    if (known.has(q)) return known.get(q);
    const d = programsDiffer(p.program(), q.program());
    known.set(q, d);
    return d;
  }

  /** `resolvesDifferently` for two programs: whether `qp` has another
   *  global environment than `pp`, or resolves an import of a user file
   *  `pp` holds otherwise. */
  function programsDiffer(pp, qp) {
    if (environment(pp) !== environment(qp)) return true;
    for (const sf of pp.getSourceFiles()) {
      if (!L.isUserFile(sf.fileName)) continue;
      const qsf = qp.getSourceFile(sf.fileName);
      if (qsf && moduleEdges(pp, sf).imports.join("\n") !== moduleEdges(qp, qsf).imports.join("\n")) return true;
    }
    return false;
  }

  /** Live answers merge every project that holds a file, and a file can
   *  resolve differently in each (trpc's examples resolve `@trpc/client`
   *  only through the root config's `paths`; fixture `holder-lib`: a
   *  name only one holder's lib declares). Holders are the configs that
   *  include `f`; a program that reaches `f` only through `paths` or an
   *  import is not one (ARCHITECTURE.md lists the trpc case). Where
   *  another holder has another global environment, or resolves the
   *  owner's files' imports to other workspace files than the owner does,
   *  `f`'s identifiers are resolved in that holder too and their rows
   *  added, and its imports join the entry's (the builder rule then
   *  re-indexes `f` when those files' API changes), with the contextual
   *  properties its object literals' members get there. Declarations,
   *  items, calls and answers stay the owner's, as live answers compute
   *  them. */
  function mergeHolders(ws, p, entry, f, sf, used, differs, built, narrowly) {
    for (const q of otherHolders(ws, p, f)) {
      // A holder whose program is not built answers in a narrow one when
      // the file's imports are as its rows recorded (its programs' files
      // are then as recorded too).
      if (narrowly(q)) continue;
      const program = q.program();
      built.add(q);
      const qsf = program.getSourceFile(f);
      if (!qsf || !resolvesDifferently(p, q, differs)) continue;
      used.add(q);
      mergeFrom(ws, entry, program, qsf);
    }
  }

  /** Adds what `f` (`qsf`) resolves to in another holder's `program` to
   *  its `entry` (`mergeHolders`). */
  function mergeFrom(ws, entry, program, qsf, edges = moduleEdges(program, qsf)) {
    const seen = new Set(entry.occurrences.map((o) => `${o.line}:${o.column}:${o.symbol}:${o.role}`));
    for (const o of occurrenceRows(program, qsf)) {
      const k = `${o.line}:${o.column}:${o.symbol}:${o.role}`;
      if (!seen.has(k)) { seen.add(k); entry.occurrences.push(o); }
    }
    contextualEdges(program.getTypeChecker(), qsf, entry.bases);
    entry.imports = [...new Set(entry.imports.concat(edges.imports))].sort();
    entry.reexports = [...new Set(entry.reexports.concat(edges.reexports))].sort();
    const more = dependencies(program, qsf, ws.walked);
    entry.deps = [...new Set(entry.deps.concat(more.deps))].sort();
    entry.reads = [...new Set(entry.reads.concat(more.reads))].sort();
    entry.opaque = entry.opaque || more.opaque;
  }

  /** `mergeHolders` for a file checked in a narrow program (`pp`): the
   *  other holder `q` (not built) answers in the narrow program of the
   *  same file with `q`'s options. A file's rows depend on its closure
   *  alone, so the two closures differ where the whole programs differ
   *  for this file. False when `q` cannot decide it narrowly (an
   *  augmenter left out reaches its closure, it does not hold the file,
   *  or it resolves the file's imports to files the `recorded` rows do
   *  not name): the whole programs decide. */
  function mergeNarrowHolder(ws, pp, q, f, entry, scope, recorded) {
    const { roots, leftOut } = narrowRoots(q, [f], scope);
    const c = q.closure(roots);
    try {
      const qp = c.program();
      for (const targets of leftOut.values()) {
        if (targets.some((t) => qp.getSourceFile(t))) return false;
      }
      const qsf = qp.getSourceFile(f);
      if (!qsf) return false;
      // Where `q` resolves the file's imports to files its rows do not
      // name, `q`'s program holds other files than recorded: its whole
      // program decides (and is recorded).
      const edges = moduleEdges(qp, qsf);
      const within = (mine, rows) => mine.every((e) => rows.includes(e));
      if (recorded && !(within(edges.imports, recorded.imports) && within(edges.reexports, recorded.reexports))) return false;
      if (programsDiffer(pp, qp)) mergeFrom(ws, entry, qp, qsf, edges);
      return true;
    } finally {
      c.dispose();
    }
  }

  /** A project's program as the scope of live answers: the workspace
   *  files it holds (find-references and incoming calls search only the
   *  programs that hold the declaring file, js/answers/31_calls.js), and the
   *  imports it cannot resolve (an inspect answer's coverage), and every
   *  file it read that the walk does not index (`programReads`). */
  function programFiles(ws, p) {
    // User files and the workspace's declaration files (they have rows).
    const held = (f) => L.isUserFile(f) || (ts.isDeclarationFileName(f) && !f.includes("/node_modules/") && !f.startsWith("/__tsq__/"));
    const files = p.program().getSourceFiles().map((sf) => sf.fileName).filter(held);
    return { project: L.rel(p.name), files: files.map((f) => L.rel(f)).sort(), unresolved: p.unresolvedImports(), reads: programReads(p.program(), ws.walked) };
  }

  /** Whether a declaration file may affect files
   *  that do not import it: a script, a module with `declare global`,
   *  `declare module "x"` or `export as namespace`, or one with `///
   *  <reference>`s (what they bring in joins every program holding it).
   *  A plain module affects only its importers, which bring it in. */
  function declaresBeyondExports(f) {
    // Unreadable or too deep to parse: the programs hold it empty; a root is safe.
    const sf = parseAlone(f);
    if (!sf) return true;
    if (!sf.externalModuleIndicator) return true;
    if (sf.referencedFiles.length || sf.typeReferenceDirectives.length || sf.libReferenceDirectives.length) return true;
    return sf.statements.some((st) => ts.isNamespaceExportDeclaration(st) || (ts.isModuleDeclaration(st) && (ts.isStringLiteral(st.name) || !!(st.flags & ts.NodeFlags.GlobalAugmentation))));
  }

  /** The roots of `list`'s narrow program in `p`: the files, `p`'s files
   *  that affect every program holding them (`scope.globals`, by their
   *  rows, and declaration files that declare more than their exports),
   *  and `p`'s augmenters of the modules their closure holds (followed
   *  through the rows' imports, `scope.imports`, until no augmenter
   *  joins), in `p`'s root order. Also the augmenters left out, the
   *  augmenters that joined, and the roots and augmenters left out
   *  before any joined (`unjoined`). */
  function narrowRoots(p, list, scope) {
    const roots = new Set(list);
    for (const f of p.fileNames) {
      if (scope.globals.has(f) || (ts.isDeclarationFileName(f) && declaresBeyondExports(f))) roots.add(f);
    }
    const ordered = () => p.fileNames.filter((f) => roots.has(f)).concat(list.filter((f) => !p.fileSet.has(f)));
    const leftOut = new Map([...scope.augmenters].filter(([a]) => p.fileSet.has(a) && !roots.has(a)));
    const unjoined = { roots: ordered(), leftOut: new Map(leftOut) };
    const joined = [];
    const held = new Set();
    const work = [...roots];
    for (;;) {
      while (work.length) {
        const f = work.pop();
        if (held.has(f)) continue;
        held.add(f);
        for (const i of scope.imports.get(f) || []) work.push(i);
      }
      const joining = [...leftOut].filter(([, to]) => to.some((t) => held.has(t))).map(([a]) => a);
      if (!joining.length) break;
      for (const a of joining) {
        leftOut.delete(a);
        roots.add(a);
        work.push(a);
        joined.push(a);
      }
    }
    return { roots: ordered(), leftOut, unjoined, joined };
  }

  /** Indexes `list` (files `p` owns or holds, `p`'s program not built) in
   *  a program of their import closure (`narrowRoots`). A file's rows
   *  depend on nothing else, and a symbol's id on its canonical
   *  declaration alone. A file whose imports there differ from what its
   *  rows recorded (`hints`), or that fails, is returned: the whole
   *  program decides it, as it decides every file when the program holds
   *  a module that an augmenter left out augments (an edge the rows did
   *  not show: a declaration file's import, say). Another project that
   *  holds a file (not built either) answers for it in its own narrow
   *  program (`mergeNarrowHolder`). `fileIndex` keeps the file's place in
   *  the whole program (the answers' order).
   *
   *  Augmenters that join only because the closure holds the module they
   *  augment (vue's `ast.ts` reaches `@vue/reactivity` through
   *  `@vue/shared`, and `runtime-core` and `runtime-dom` augment it) are
   *  first left out, with a watch on what they augment
   *  (js/occurrences/58_augmentation_watch.js): a checker that reads none
   *  of it gives the answers the program with them gives. When it reads
   *  any, or a file imports such a module itself (it would), the files are
   *  checked in the program with the augmenters. */
  function indexNarrow(ws, p, pi, list, hints, scope, files, failed, budget) {
    const full = narrowRoots(p, list, scope);
    const augmented = new Set(full.joined.flatMap((a) => scope.augmenters.get(a)));
    const direct = list.some((f) => (scope.imports.get(f) || []).some((i) => augmented.has(i)));
    let got = null;
    if (full.joined.length && !direct) got = indexNarrowIn(ws, p, pi, list, hints, scope, full.unjoined, budget, true);
    got ||= indexNarrowIn(ws, p, pi, list, hints, scope, full, budget, false);
    files.push(...got.files);
    failed.push(...got.failed);
    return got.rest;
  }

  /** One narrow program over `roots`: its entries, failures and the files
   *  left for the whole program; with `watched`, null when the checker
   *  read what a left-out augmenter augments (or its names are not
   *  known), and the program's build log entry says which way it went. */
  function indexNarrowIn(ws, p, pi, list, hints, scope, { roots, leftOut }, budget, watched) {
    const q = p.closure(roots);
    const out = { files: [], failed: [], rest: [] };
    const fired = {};
    try {
      const program = q.program();
      const log = ws.buildLog[ws.buildLog.length - 1];
      let w = null;
      if (watched) {
        w = globalThis.tsqAugmentationWatch.watch(program, leftOut);
        if (!w) {
          if (log) log.note = "an augmenter's names are not known, or it augments an `export =` module: checked again with the augmenters";
          return null;
        }
      } else {
        for (const targets of leftOut.values()) {
          if (targets.some((t) => program.getSourceFile(t))) return { ...out, rest: list.slice() };
        }
      }
      for (const f of list) {
        const sf = program.getSourceFile(f);
        const h = hints.get(f);
        if (!sf || ws.registry.unparsable.has(f)) { out.rest.push(f); continue; }
        try {
          const entry = pacedBy(fileBudget(budget, program.getTypeChecker()), () => {
            let e;
            if (w) w.on();
            try {
              e = indexFile(program, sf, ws, ws.projectOf(f) === p ? q : null, pi, h.fileIndex);
            } finally {
              if (w) w.off();
            }
            if (w && w.state.fired) return fired;
            return otherHolders(ws, p, f).every((o) => mergeNarrowHolder(ws, program, o, f, e, scope, h)) ? e : null;
          });
          if (entry === fired) {
            if (log) log.note = `the augmenters left out, and the checker read what they augment (${w.state.fired}): checked again with them`;
            return null;
          }
          if (!entry || entry.global || entry.imports.join("\n") !== h.imports.join("\n") || entry.reexports.join("\n") !== h.reexports.join("\n")) {
            out.rest.push(f);
            continue;
          }
          entry.narrow = true;
          out.files.push(entry);
        } catch (e) {
          // Past its budget here, past it in the whole program too.
          if (e instanceof OverBudget) out.failed.push({ relativePath: L.rel(f), message: e.message });
          else out.rest.push(f);
        }
      }
      if (w && log) log.note = "the augmenters left out: the checker read nothing they augment";
      return out;
    } finally {
      q.dispose();
    }
  }

  /** The service request: each file indexed with its owner project's
   *  program. With `release`, the programs of projects this request does
   *  not need are dropped first (a full index, sent in path order, keeps
   *  about one program at a time; an empty request releases them all). */
  function indexFiles(ws, req) {
    // A full pass's slice with a bound: the bound paces the collections
    // (below), and the engine's own growth trigger is off meanwhile: it
    // only added collections below the bound, each tracing the live heap
    // (crates/tsq-engine/src/collector.rs).
    const paced = req.memoryMb > 0 && req.release;
    if (paced) Deno.core.ops.op_tsq_pace_collections(true);
    try {
      return indexFilesPaced(ws, req);
    } finally {
      if (paced) Deno.core.ops.op_tsq_pace_collections(false);
    }
  }

  function indexFilesPaced(ws, req) {
    const byProject = new Map();
    const failed = [];
    for (const f of req.files) {
      const p = ws.projectOf(f) || ws.visibleFrom(f).find((q) => q.program().getSourceFile(f));
      if (!p) {
        failed.push({ relativePath: L.rel(f), message: "no project holds this file" });
        continue;
      }
      if (!byProject.has(p)) byProject.set(p, []);
      byProject.get(p).push(f);
    }
    if (req.release) {
      const needed = new Set(byProject.keys());
      for (const [p, list] of byProject) for (const f of list) for (const q of otherHolders(ws, p, f)) needed.add(q);
      for (const p of ws.projects) {
        if (!needed.has(p) && p.built) {
          p.release();
          // The call memo holds every built program.
          ws.callMemo = undefined;
        }
      }
    }
    const files = [];
    const holders = new Set(); // other holders whose checkers resolved a file
    const built = new Set(); // other holders whose programs were built
    const programs = []; // each used project's workspace files (the live answers' scope)
    const differs = new Map(); // p -> q -> whether q resolves p's files otherwise
    // Every pass keeps the process near `memoryMb` (soft): past it the
    // engine collects garbage (QuickJS otherwise collects cycles only once
    // its heap grew half again), and if the checker's own types still
    // hold too much, the project goes on with a fresh checker (the old
    // one's types are collected; `fresh` counts them). `floor` is
    // what the last fresh checker left (programs and process), so that a
    // bound below it checks a light file with the same checker rather
    // than a new one per file. An incremental pass (`tsq serve` after an
    // edit whose API change cascades to hundreds of importers) keeps its
    // programs, so only the bound keeps one checker from holding the
    // types of every file it re-checks.
    const ops = Deno.core.ops;
    const bound = req.memoryMb > 0 ? req.memoryMb : 0;
    // What the last collection left, kept across requests (`ws.memory`):
    // freed memory mostly stays resident (the allocator keeps it), so a
    // server that a cascade left above the bound would otherwise collect
    // twice and start a fresh checker at every one-file request, each
    // collection as long as the heap is large (1.3-1.5 s for trpc's 581
    // MiB, 2.7 of a 3.0 s edit) and freeing nothing. A full pass starts
    // from nothing: it releases the programs the level was measured with.
    const memory = (ws.memory ||= { floor: 0, collected: 0 });
    if (req.release) memory.floor = memory.collected = 0;
    let floor = memory.floor;
    let fresh = 0;
    // What a file may add past `floor` before the bound acts (a bound
    // below it, in tests, acts at almost every file). Where the floor is
    // above the bound (vue's cascade in `tsq serve`: 1,027 MiB against
    // 1,000), floor + slack is the bound in effect: at 100 the server
    // peaked at 1,203-1,205 MiB, at 50 at 1,089-1,097 MiB, for 3% more time
    // (benches/runs/2026-11-30-bound-inside-file-issue47-pass7.md).
    const slack = Math.min(50, bound);
    const over = () => ops.op_tsq_rss_mb() > Math.max(bound, floor + slack);
    // What the request's last collection left: a collection inside a file
    // needs the file to have grown `slack` past it, so that live types
    // (which only a fresh checker between files frees) do not make it
    // collect at every check.
    let collected = memory.collected;
    const collect = () => {
      ops.op_tsq_collect_garbage();
      collected = memory.collected = ops.op_tsq_rss_mb();
      return collected;
    };
    // Inside a file (`pacedBy`): every 64th identifier or declaration reads
    // the resident size, and past the bound the engine collects there.
    let ticks = 0;
    let inside = 0;
    const check = () => {
      if (++ticks % 64) return;
      const rss = ops.op_tsq_rss_mb();
      if (rss > Math.max(bound, floor + slack, collected + slack)) {
        collect();
        inside++;
      }
    };
    // A few files of a project whose program is not built (a fresh
    // process's incremental sync): their import closure's program first.
    const narrow = req.narrow || {};
    const hints = new Map((narrow.files || []).map((h) => [h.file, h]));
    const scope = {
      globals: new Set(narrow.globals || []),
      augmenters: new Map((narrow.augmenters || []).map((a) => [a.file, a.augments])),
      imports: new Map(Object.entries(narrow.imports || {})),
    };
    for (const [p, all] of byProject) {
      const pi = ws.projects.indexOf(p);
      let list = all;
      if (hints.size && !req.release && !p.built && all.every((f) => hints.has(f) && otherHolders(ws, p, f).every((o) => !o.built))) {
        list = indexNarrow(ws, p, pi, all, hints, scope, files, failed, req.budget);
        // Every file answered: the whole program is not built, and the
        // files each program holds are as the rows recorded.
        if (!list.length) continue;
      }
      let program = p.program();
      const owns = (f) => ws.projectOf(f) === p;
      for (const f of list) {
        if (bound && over()) {
          // Past the bound: collect, unless a collection inside the last
          // file left about this much (another would free little).
          const rss = ops.op_tsq_rss_mb();
          const left = rss > collected + slack ? collect() : rss;
          if (left > Math.max(bound * 0.8, floor + slack)) {
            p.freshChecker();
            fresh++;
            ws.callMemo = undefined;
            // The new program first: until it is asked for, the Language
            // Service keeps the old one, and with it the old checker, so a
            // collection before it would free nothing.
            program = p.program();
            // Every other project checked since its last fresh checker goes
            // too: a cascade passes through several projects (vue's reaches
            // three of packages-private/ before packages/), and each
            // checker it left holds the types of the files it checked.
            for (const q of ws.projects) if (q !== p) q.dropChecker();
            floor = memory.floor = collect();
          }
        }
        const sf = program.getSourceFile(f);
        // Its checker is asked for (`Project.checkedSinceFresh`).
        p.uses++;
        if (!sf) {
          failed.push({ relativePath: L.rel(f), message: `project ${L.rel(p.name)} does not hold this file` });
          continue;
        }
        // Too deep to parse: every program holds it empty (no rows to
        // store; js/service/18_documents.js).
        const unparsable = ws.registry.unparsable.get(f);
        if (unparsable) {
          failed.push({ relativePath: L.rel(f), message: unparsable });
          continue;
        }
        const budget = fileBudget(req.budget, program.getTypeChecker());
        try {
          files.push(pacedBy(bound || budget ? (units) => {
            if (bound) check();
            if (budget) budget(units);
          } : null, () => {
            const entry = indexFile(program, sf, ws, owns(f) ? p : null, pi);
            // Its imports here as its rows recorded them: another holder
            // not built may answer narrowly (`mergeHolders`).
            const h = hints.get(f);
            const same = h !== undefined && entry.imports.join("\n") === h.imports.join("\n") && entry.reexports.join("\n") === h.reexports.join("\n");
            const narrowly = (q) => same && !q.built && mergeNarrowHolder(ws, program, q, f, entry, scope, h);
            mergeHolders(ws, p, entry, f, sf, holders, differs, built, narrowly);
            return entry;
          }));
        } catch (e) {
          failed.push({ relativePath: L.rel(f), message: failure(e) });
          // A stack overflow can leave a checker call halfway (a type
          // resolution pushed, never popped): the next file gets a fresh
          // checker, so that one deep file never changes another's rows.
          if (globalThis.tsqDocuments.isStackOverflow(e)) {
            p.freshChecker();
            fresh++;
            ws.callMemo = undefined;
            program = p.program();
            for (const q of ws.projects) if (q !== p) q.dropChecker();
          }
        }
      }
      programs.push(programFiles(ws, p));
      // A full pass checks each project in slices (one request each): the
      // next slice starts with a fresh checker, so one checker never
      // holds the types of a whole large project.
      if (req.release) {
        p.freshChecker();
        ws.callMemo = undefined;
      }
    }
    for (const q of built) if (!byProject.has(q)) programs.push(programFiles(ws, q));
    if (req.release) for (const q of holders) q.freshChecker();
    return { files, failed, programs, buildLog: ws.buildLog.splice(0), freshCheckers: fresh, collectedInside: inside };
  }

  globalThis.tsqAnswers.occurrences = indexFiles;
})(globalThis);
