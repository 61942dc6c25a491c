// tsq service: the project model and a warm Language Service per project.
//
// Loaded after typescript.js and 10_parser.js. All file access goes through
// Rust ops (`op_tsq_fs_*`); Rust decides what may be read. Resolvers live in
// 30_resolvers.js; this file builds and keeps the projects.
"use strict";

((globalThis) => {
  const ops = Deno.core.ops;
  const LIB_DIR = "/__tsq__/lib";

  /** The inferred project's options: what tsserver uses for loose files,
   *  with JS allowed. No `lib`: the target's default libs, DOM included, as
   *  in tsserver (without DOM, `performance.now()` and the like stop
   *  resolving, and call edges through them vanish). */
  const INFERRED_OPTIONS = {
    allowJs: true,
    allowNonTsExtensions: true,
    checkJs: false,
    jsx: ts.JsxEmit.Preserve,
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    resolveJsonModule: true,
    skipLibCheck: true,
    strict: true,
    noEmit: true,
  };

  const fsHost = {
    useCaseSensitiveFileNames: true,
    fileExists: (p) => ops.op_tsq_fs_file_exists(p),
    readFile: (p) => ops.op_tsq_fs_read(p) ?? undefined,
    directoryExists: (p) => ops.op_tsq_fs_dir_exists(p),
    getDirectories: (p) => ops.op_tsq_fs_entries(p).directories,
    realpath: (p) => ops.op_tsq_fs_realpath(p),
    readDirectory(rootDir, extensions, excludes, includes, depth) {
      return ts.matchFiles(rootDir, extensions, excludes, includes, true, rootDir, depth,
        (dir) => ops.op_tsq_fs_entries(dir), (p) => ops.op_tsq_fs_realpath(p));
    },
  };

  // Script versions, asked of Rust once per file per request: the Language
  // Service re-checks every version on each API call.
  let requestEpoch = 0;
  const versions = new Map();
  function scriptVersion(fileName) {
    const v = versions.get(fileName);
    if (v && v.epoch === requestEpoch) return v.version;
    const version = ops.op_tsq_fs_version(fileName);
    versions.set(fileName, { epoch: requestEpoch, version });
    return version;
  }

  function isUserFile(fileName) {
    return !fileName.endsWith(".d.ts") && !fileName.endsWith(".d.mts") && !fileName.endsWith(".d.cts") &&
      !fileName.includes("/node_modules/") && !fileName.startsWith(LIB_DIR);
  }

  function flatten(d) {
    return ts.flattenDiagnosticMessageText(d.messageText, "\n");
  }

  /** User files keep all their JSDoc: `references` (as tsserver) counts
   *  `{@link name}` in JSDoc, so ParseForTypeInfo would lose references
   *  (measured: 4 of 51 sampled rxjs declarations). Libs are parsed
   *  without JSDoc (nothing reads it; js/service/18_documents.js). */
  const USER_JSDOC = ts.JSDocParsingMode.ParseAll;

  /** One TypeScript project: a tsconfig's, or the inferred one. */
  class Project {
    constructor(name, configPath, parsed, root, registry, buildLog) {
      this.name = name;
      this.configPath = configPath;
      this.registry = registry;
      this.buildLog = buildLog;
      this.built = false;
      // How often the checker was asked for, and the count at its last
      // fresh start (`checkedSinceFresh`).
      this.uses = 0;
      this.usesAtFresh = 0;
      this.checkerEpoch = 0;
      this.setParsed(parsed);
      const host = {
        ...fsHost,
        useCaseSensitiveFileNames: () => true,
        getCompilationSettings: () => this.options,
        getScriptFileNames: () => this.fileNames,
        getProjectReferences: () => this.projectReferences,
        getScriptVersion: scriptVersion,
        // Unchanged files and file list: the Language Service skips its
        // file-by-file synchronization (Rust stats the files once).
        getProjectVersion: () => `${ops.op_tsq_fs_generation()}:${this.listVersion}`,
        getScriptSnapshot: (f) => {
          const text = ops.op_tsq_fs_read(f);
          return text === null || text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
        },
        getCurrentDirectory: () => root,
        getDefaultLibFileName: (o) => LIB_DIR + "/" + ts.getDefaultLibFileName(o),
        useSourceOfProjectReferenceRedirect: () => true,
        getNewLine: () => "\n",
        jsDocParsingMode: USER_JSDOC,
        // Files whose imports must be resolved again (`invalidate`).
        hasInvalidatedResolutions: (path) => this.invalidated.has(path),
      };
      this.invalidated = new Set();
      this.rootDir = root;
      this.host = host;
      this.service = ts.createLanguageService(host, registry);
    }

    /** A project with this one's name, options, references and document
     *  registry whose program holds only `roots` and what they import (the
     *  program a file's occurrence rows need, js/occurrences/61_occurrence_requests.js).
     *  Not one of the workspace's projects; `dispose()` it after use. */
    closure(roots) {
      const parsed = { options: this.options, fileNames: roots, projectReferences: this.projectReferences, errors: [] };
      return new Project(this.name, this.configPath, parsed, this.rootDir, this.registry, this.buildLog);
    }

    /** Releases this project's documents (a `closure` project's). */
    dispose() {
      this.service.dispose();
      this.built = false;
    }

    /** The next program resolves `files`' imports again (a package.json
     *  their resolution read changed), as TypeScript's watch mode does. */
    invalidate(files) {
      for (const f of files) this.invalidated.add(f);
      this.listVersion++;
    }

    /** The config's answer: options, root files, references. */
    setParsed(parsed) {
      this.listVersion = (this.listVersion || 0) + 1;
      this.options = parsed.options;
      this.fileNames = parsed.fileNames;
      this.fileSet = new Set(parsed.fileNames);
      this.projectReferences = parsed.projectReferences;
      this.configErrors = (parsed.errors || []).map(flatten);
    }

    /** The program, built on first use (only the projects a query needs
     *  are ever built); the first build is timed into the build log. */
    program() {
      this.uses++;
      if (this.built) {
        this.checkAffecting();
        return this.resolved(this.service.getProgram());
      }
      const started = Date.now();
      const libsBefore = this.registry.stats.libParses;
      const program = this.resolved(this.service.getProgram());
      program.getTypeChecker();
      this.built = true;
      this.recordAffecting(program);
      this.buildLog.push({
        project: rel(this.name),
        files: program.getSourceFiles().length,
        rootFiles: this.fileNames.length,
        libFilesParsed: this.registry.stats.libParses - libsBefore,
        ms: Date.now() - started,
      });
      return program;
    }

    /** `program`, once its invalidated resolutions were redone. */
    resolved(program) {
      if (this.invalidated.size) {
        this.invalidated.clear();
        if (this.built) this.recordAffecting(program);
      }
      return program;
    }

    /** The package.json files module resolution read for `program`
     *  (`affectingLocations`, js/service/19_resolution_inputs.js),
     *  with their text then and the files whose resolution read each. */
    recordAffecting(program) {
      const readers = new Map();
      for (const sf of program.getSourceFiles()) {
        if (!isUserFile(sf.fileName)) continue;
        for (const f of globalThis.tsqResolutionInputs(program, sf, rel).affecting) {
          const path = ts.getNormalizedAbsolutePath(f, this.rootDir);
          if (!readers.has(path)) readers.set(path, { text: ops.op_tsq_fs_read(path), files: [] });
          readers.get(path).files.push(sf.fileName);
        }
      }
      this.affecting = readers;
      this.affectingChecked = requestEpoch;
    }

    /** Once per request: the files whose resolution read a package.json
     *  that changed since resolve their imports again at the next program,
     *  whoever changed it and whichever process re-indexed (TypeScript's
     *  watch mode does this through `affectingLocations`). */
    checkAffecting() {
      if (!this.affecting || this.affectingChecked === requestEpoch) return;
      this.affectingChecked = requestEpoch;
      const changed = [];
      for (const [path, r] of this.affecting) {
        const now = ops.op_tsq_fs_read(path);
        if (now !== r.text) {
          r.text = now;
          changed.push(...r.files);
        }
      }
      if (changed.length) this.invalidate(changed);
    }

    /** Parses and binds this project's lib files in the shared lib
     *  registry, as its program build would (`options.lib`, else the default lib, then
     *  their `/// <reference lib>`s), without building the program. */
    parseLibs() {
      const o = this.options;
      if (o.noLib) return;
      const queue = o.lib ? o.lib.slice() : [ts.getDefaultLibFileName(o)];
      const seen = new Set();
      while (queue.length) {
        const name = queue.shift();
        if (!name || seen.has(name)) continue;
        seen.add(name);
        const fileName = LIB_DIR + "/" + name;
        const snapshot = this.host.getScriptSnapshot(fileName);
        if (!snapshot) continue;
        const sf = this.registry.acquireDocumentWithKey(fileName, fileName, o, "", snapshot, scriptVersion(fileName), ts.ScriptKind.TS, {});
        // Bound as the checker would bind it (it skips a bound file): the
        // binding of a shared lib file is reused by every program.
        ts.bindSourceFile(sf, o);
        for (const ref of sf.libReferenceDirectives || []) queue.push(ts.libMap.get(ts.toFileNameLowerCase(ref.fileName)));
      }
    }

    /** Drops the program (the occurrence pass keeps about one at a time);
     *  the next `program()` builds it again. */
    release() {
      if (!this.built) return;
      this.service.cleanupSemanticCache();
      // The host's project version must move, or the service would keep
      // its (now absent) program as up to date.
      this.listVersion = (this.listVersion || 0) + 1;
      this.built = false;
      // Nothing of this project may keep the program alive.
      this.unresolvedFor = undefined;
      this.unresolved = undefined;
    }

    /** A fresh checker over the same files. The next `program()` is a new
     *  program built from this one: TypeScript reuses every parsed and
     *  bound source file (its structure reuse, as after an edit) and checks
     *  from scratch, and the old checker's types become garbage. The
     *  occurrence pass checks a large project in slices this way, which
     *  bounds its heap. A changed options object is what tells the
     *  Language Service its program is out of date; `tsqCheckerEpoch` is
     *  no compiler option (TypeScript ignores it, and the document
     *  registry keys files by source-affecting options only). */
    freshChecker() {
      if (!this.built) return;
      this.checkerEpoch++;
      this.usesAtFresh = this.uses + 1;
      this.options = { ...this.options, tsqCheckerEpoch: this.checkerEpoch };
      // The project version must move too, or the service never looks.
      this.listVersion = (this.listVersion || 0) + 1;
      this.unresolvedFor = undefined;
      this.unresolved = undefined;
    }

    /** Whether the checker was asked for since its last fresh start (a
     *  built program no one asked for since `freshChecker` holds no types). */
    checkedSinceFresh() {
      return this.built && this.uses !== this.usesAtFresh;
    }

    /** A fresh checker now: the new program is built at once, so the old
     *  checker is garbage (until asked for, the Language Service keeps the
     *  old program, and with it the old checker). */
    dropChecker() {
      if (!this.checkedSinceFresh()) return;
      this.freshChecker();
      this.program();
    }

    /** Files a query may touch: this project's own source files. */
    userFiles() {
      return this.program().getSourceFiles().filter((sf) => isUserFile(sf.fileName));
    }

    /** Modules this project's files import and tsc could not resolve;
     *  computed once per program. */
    unresolvedImports() {
      const program = this.program();
      if (this.unresolvedFor === program) return this.unresolved;
      const out = [];
      for (const sf of this.userFiles()) {
        for (const spec of sf.imports || []) {
          const mode = program.getModeForUsageLocation(sf, spec);
          const r = program.getResolvedModule(sf, spec.text, mode);
          if (!r || !r.resolvedModule) out.push(`${rel(sf.fileName)}: cannot resolve '${spec.text}'`);
        }
      }
      this.unresolvedFor = program;
      this.unresolved = out;
      return out;
    }
  }

  /** All projects of a workspace, tsserver-style. */
  class Workspace {
    constructor(root, configs, sourceFiles) {
      this.root = root;
      this.registry = globalThis.tsqDocuments.sharedLibRegistry(root, USER_JSDOC);
      this.buildLog = [];
      this.projects = [];
      this.solutions = [];
      this.configErrors = [];
      this.load(configs, sourceFiles);
    }

    /** (Re)reads every config: a new or deleted file changes the projects'
     *  root files, and the Language Services rebuild incrementally. */
    load(configs, sourceFiles) {
      // The walked sources, relative: every other file a program reads
      // is an input of the files that reach it (js/occurrences/57_file_inputs.js).
      const root = this.root.endsWith("/") ? this.root : `${this.root}/`;
      this.walked = new Set(sourceFiles.map((f) => (f.startsWith(root) ? f.slice(root.length) : f)));
      const before = new Map(this.projects.map((p) => [p.configPath || "inferred", p]));
      this.projects = [];
      this.solutions = [];
      this.configErrors = [];
      this.visibility = null;
      this.owners = null;
      const covered = new Set();
      const seen = new Set();
      const queue = configs.slice();
      while (queue.length) {
        const configPath = queue.shift();
        if (seen.has(configPath)) continue;
        seen.add(configPath);
        const parsed = this.parseConfig(configPath);
        if (!parsed) continue;
        for (const ref of parsed.projectReferences || []) {
          queue.push(ts.resolveProjectReferencePath(ref));
        }
        if (parsed.fileNames.length === 0) {
          if ((parsed.projectReferences || []).length) this.solutions.push(configPath);
          continue;
        }
        const p = this.project(before, configPath, configPath, parsed);
        for (const f of p.fileNames) covered.add(f);
        this.projects.push(p);
      }
      this.outside = sourceFiles.filter((f) => !covered.has(f));
      if (this.outside.length) {
        const parsed = { options: INFERRED_OPTIONS, fileNames: this.outside, projectReferences: undefined, errors: [] };
        this.projects.push(this.project(before, "inferred", null, parsed));
      }
      for (const [key, old] of before) {
        if (!this.projects.includes(old)) old.service.dispose();
        before.delete(key);
      }
    }

    /** A project for a config, reusing the warm one when it exists. */
    project(before, name, configPath, parsed) {
      const old = before.get(configPath || "inferred");
      if (old) {
        old.setParsed(parsed);
        return old;
      }
      return new Project(name, configPath, parsed, this.root, this.registry, this.buildLog);
    }

    /** The projects that can see `fileName`, from the config graph alone
     *  (no program is built): its owners, the projects that reference an
     *  owner (transitively), and those whose `paths` map into an owner's
     *  directory; plus any built program that already holds the file. */
    visibleFrom(fileName) {
      // The file's default project, as tsserver picks it: the nearest
      // config above it that includes it. Broader configs that also happen
      // to include it (a root catch-all tsconfig) are not loaded for that
      // alone; they are when a file of theirs imports it (importers below).
      const owner = this.projectOf(fileName);
      const out = new Set(owner ? [owner] : []);
      const queue = [...out];
      const refs = this.referencedBy();
      while (queue.length) {
        const p = queue.shift();
        for (const q of refs.get(p) || []) if (!out.has(q)) { out.add(q); queue.push(q); }
      }
      // Projects of files that import it through relative paths (Rust
      // finds them for the request, without a parse).
      for (const f of this.importers || []) {
        const p = this.projectOf(f);
        if (p) out.add(p);
      }
      for (const p of this.projects) {
        if (out.has(p)) continue;
        if (pathTargets(p).some((dir) => fileName.startsWith(dir))) out.add(p);
        else if (p.built && p.service.getProgram().getSourceFile(fileName)) out.add(p);
      }
      return this.projects.filter((p) => out.has(p));
    }

    /** Project -> the projects whose configs reference it. */
    referencedBy() {
      if (this.visibility) return this.visibility;
      const byConfig = new Map(this.projects.filter((p) => p.configPath).map((p) => [p.configPath, p]));
      const map = new Map();
      for (const p of this.projects) {
        for (const r of p.projectReferences || []) {
          const target = byConfig.get(ts.resolveProjectReferencePath(r));
          if (!target) continue;
          if (!map.has(target)) map.set(target, []);
          map.get(target).push(p);
        }
      }
      this.visibility = map;
      return map;
    }

    parseConfig(configPath) {
      let unrecoverable = null;
      const host = {
        ...fsHost,
        getCurrentDirectory: () => this.root,
        onUnRecoverableConfigFileDiagnostic: (d) => { unrecoverable = flatten(d); },
      };
      const parsed = ts.getParsedCommandLineOfConfigFile(configPath, undefined, host);
      if (!parsed || unrecoverable) {
        this.configErrors.push(`${configPath}: ${unrecoverable || "unreadable"}`);
        return null;
      }
      for (const e of parsed.errors) {
        // "No inputs were found" is normal for a solution-style config.
        if (e.code !== 18003) this.configErrors.push(`${configPath}: ${flatten(e)}`);
      }
      return parsed;
    }

    /** A file's default project, as tsserver picks it: the nearest config
     *  above it that includes it, else the inferred project. Cached until
     *  the configs are read again. */
    projectOf(fileName) {
      if (!this.owners) this.owners = new Map();
      if (this.owners.has(fileName)) return this.owners.get(fileName);
      const owners = this.projects.filter((p) => p.fileSet.has(fileName));
      const configured = owners.filter((p) => p.configPath);
      configured.sort((a, b) => dirOf(b.configPath).length - dirOf(a.configPath).length);
      const owner = configured[0] || owners[0] || null;
      this.owners.set(fileName, owner);
      return owner;
    }

    describe() {
      return {
        buildLog: this.buildLog.splice(0),
        projects: this.projects.map((p) => ({
          name: rel(p.name),
          configPath: p.configPath && rel(p.configPath),
          fileCount: p.fileNames.length,
          references: (p.projectReferences || []).map((r) => rel(ts.resolveProjectReferencePath(r))),
          composite: !!p.options.composite,
          extends: ((p.options.configFile && p.options.configFile.extendedSourceFiles) || []).map(rel),
        })),
        solutions: this.solutions.map(rel),
        filesOutsideProjects: this.outside.map(rel).sort(),
        configErrors: this.configErrors.map((e) => e.split(this.root + "/").join("")),
      };
    }
  }

  /** The directory of a path, with its trailing slash. */
  function dirOf(path) {
    return path.slice(0, path.lastIndexOf("/") + 1);
  }

  /** Directories a project's `paths` patterns point into (`*` dropped). */
  function pathTargets(p) {
    if (p.pathTargetsFor === p.options) return p.pathTargets;
    const base = p.options.pathsBasePath || p.options.baseUrl || (p.configPath ? p.configPath.slice(0, p.configPath.lastIndexOf("/")) : "");
    const out = [];
    for (const targets of Object.values(p.options.paths || {})) {
      for (const t of targets) {
        const abs = ts.getNormalizedAbsolutePath(t.replace(/\*.*$/, ""), base);
        out.push(abs.endsWith("/") ? abs : abs.slice(0, abs.lastIndexOf("/") + 1));
      }
    }
    p.pathTargetsFor = p.options;
    p.pathTargets = out;
    return out;
  }

  let workspace = null;

  /** Paths in answers are relative to the workspace root. */
  function rel(path) {
    if (!workspace || !path) return path;
    const root = workspace.root.endsWith("/") ? workspace.root : workspace.root + "/";
    return path.startsWith(root) ? path.slice(root.length) : path;
  }

  /** The requests later files answer (js/answers/39_inspect.js,
   *  50_lookup.js, js/occurrences/61_occurrence_requests.js), each under
   *  its method: method -> (workspace, request) -> result. A registry, so
   *  that this file, loaded before them, reads none of their globals. */
  const answers = {};

  /** Collects; what it leaves is where the next request's memory bound
   *  starts (`ws.memory`, js/occurrences/61_occurrence_requests.js): a
   *  one-file request after a cascade then neither collects nor starts a
   *  fresh checker only to find the same level. */
  function collectNow() {
    Deno.core.ops.op_tsq_collect_garbage();
    const rss = Deno.core.ops.op_tsq_rss_mb();
    workspace.memory = { floor: rss, collected: rss };
    return { kind: "warmed", built: 0, buildLog: [] };
  }

  const handlers = {
    load(req) {
      workspace = null;
      const w = new Workspace(req.root, req.configs, req.sourceFiles);
      workspace = w;
      return { kind: "loaded", workspace: workspace.describe() };
    },
    refresh(req) {
      if (!workspace) throw new Error("refresh before load");
      workspace.load(req.configs, req.sourceFiles);
      return { kind: "loaded", workspace: workspace.describe() };
    },
    inspect(req) {
      if (!workspace) throw new Error("inspect before load");
      return { kind: "inspected", result: answers.inspect(workspace, req) };
    },
    lookup(req) {
      if (!workspace) throw new Error("lookup before load");
      return { kind: "lookedUp", result: answers.lookup(workspace, req) };
    },
    occurrences(req) {
      if (!workspace) throw new Error("occurrences before load");
      return { kind: "occurrences", ...answers.occurrences(workspace, req) };
    },
    owners(req) {
      if (!workspace) throw new Error("owners before load");
      return { kind: "owners", projects: req.files.map((f) => workspace.projects.indexOf(workspace.projectOf(f))) };
    },
    invalidate(req) {
      if (!workspace) throw new Error("invalidate before load");
      for (const p of workspace.projects) p.invalidate(req.files);
      return { kind: "warmed", built: 0, buildLog: [] };
    },
    libs(req) {
      if (!workspace) throw new Error("libs before load");
      const done = new Set();
      for (const f of req.files) {
        const p = workspace.projectOf(f);
        if (!p || done.has(p)) continue;
        done.add(p);
        p.parseLibs();
      }
      return { kind: "warmed", built: 0, buildLog: [] };
    },
    settle() {
      if (!workspace) throw new Error("settle before load");
      for (const p of workspace.projects) p.dropChecker();
      workspace.callMemo = undefined;
      return collectNow();
    },
    collect() {
      if (!workspace) throw new Error("collect before load");
      return collectNow();
    },
    warm(req) {
      if (!workspace) throw new Error("warm before load");
      let built = 0;
      for (const f of req.files) {
        const p = workspace.projectOf(f);
        if (!p) continue;
        if (!p.built) built++;
        p.program().getTypeChecker();
      }
      return { kind: "warmed", built, buildLog: workspace.buildLog.splice(0) };
    },
    analyze(req) {
      if (!workspace) throw new Error("analyze before load");
      const run = globalThis.tsqAnalyses[req.analysis];
      if (!run) throw new Error(`unknown analysis '${req.analysis}' (known: ${Object.keys(globalThis.tsqAnalyses).sort().join(", ")})`);
      return { kind: "analyzed", result: run(workspace, req) };
    },
  };

  globalThis.tsqIsUserFile = isUserFile;
  /** Extended analyses register here: name -> (workspace, request) -> JSON. */
  globalThis.tsqAnalyses = {
    "project-structure": (ws) => ws.describe(),
    // Internal: builds every program and binds it (the benchmark's
    // program-build and incremental-update figures).
    "program-build": (ws) => {
      let files = 0;
      for (const p of ws.projects) {
        const program = p.program();
        program.getTypeChecker();
        files += program.getSourceFiles().length;
      }
      return { files, buildLog: ws.buildLog.splice(0) };
    },
  };
  globalThis.tsqRel = rel;
  globalThis.tsqAnswers = answers;
  /** Entry point Rust calls for service requests. */
  globalThis.tsqService = () => {
    const req = ops.op_tsq_service_request();
    requestEpoch++;
    let res;
    try {
      res = handlers[req.method](req);
    } catch (e) {
      const overflow = globalThis.tsqDocuments.isStackOverflow(e);
      res = { kind: "failed", message: overflow ? `JS stack overflow: ${e.message}` : String(e && e.stack ? e.stack : e) };
      // A checker the overflow left halfway (a type resolution pushed and
      // never popped) must not answer the next request: fresh ones.
      if (overflow && workspace) {
        for (const p of workspace.projects) p.freshChecker();
        workspace.callMemo = undefined;
      }
    }
    // An occurrence batch travels as JSON text (js/protocol.d.ts).
    if (res.kind === "occurrences") ops.op_tsq_service_respond_json(JSON.stringify(res));
    else ops.op_tsq_service_respond(res);
  };
})(globalThis);
