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

  /** One TypeScript project: a tsconfig's, or the inferred one. */
  class Project {
    constructor(name, configPath, parsed, root, registry) {
      this.name = name;
      this.configPath = configPath;
      this.options = parsed.options;
      this.fileNames = parsed.fileNames;
      this.fileSet = new Set(parsed.fileNames);
      this.projectReferences = parsed.projectReferences;
      this.configErrors = (parsed.errors || []).map(flatten);
      const host = {
        ...fsHost,
        useCaseSensitiveFileNames: () => true,
        getCompilationSettings: () => this.options,
        getScriptFileNames: () => this.fileNames,
        getProjectReferences: () => this.projectReferences,
        getScriptVersion: scriptVersion,
        getScriptSnapshot: (f) => {
          const text = ops.op_tsq_fs_read(f);
          return text === null || text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
        },
        getCurrentDirectory: () => root,
        getDefaultLibFileName: (o) => LIB_DIR + "/" + ts.getDefaultLibFileName(o),
        useSourceOfProjectReferenceRedirect: () => true,
        getNewLine: () => "\n",
      };
      this.service = ts.createLanguageService(host, registry);
    }

    program() {
      return this.service.getProgram();
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
      this.registry = ts.createDocumentRegistry(true, root);
      this.projects = [];
      this.solutions = [];
      this.configErrors = [];
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
        const p = new Project(configPath, configPath, parsed, root, this.registry);
        for (const f of p.fileNames) covered.add(f);
        this.projects.push(p);
      }
      this.outside = sourceFiles.filter((f) => !covered.has(f));
      if (this.outside.length) {
        const parsed = { options: INFERRED_OPTIONS, fileNames: this.outside, projectReferences: undefined, errors: [] };
        this.projects.push(new Project("inferred", null, parsed, root, this.registry));
      }
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

    /** The project that owns a file: a config project before the inferred one. */
    projectOf(fileName) {
      return this.projects.find((p) => p.fileSet.has(fileName)) || null;
    }

    describe() {
      return {
        projects: this.projects.map((p) => ({
          name: rel(p.name),
          configPath: p.configPath && rel(p.configPath),
          fileCount: p.fileNames.length,
          references: (p.projectReferences || []).map((r) => rel(ts.resolveProjectReferencePath(r))),
          composite: !!p.options.composite,
        })),
        solutions: this.solutions.map(rel),
        filesOutsideProjects: this.outside.map(rel).sort(),
        configErrors: this.configErrors.map((e) => e.split(this.root + "/").join("")),
      };
    }
  }

  let workspace = null;

  /** Paths in answers are relative to the workspace root. */
  function rel(path) {
    if (!workspace || !path) return path;
    const root = workspace.root.endsWith("/") ? workspace.root : workspace.root + "/";
    return path.startsWith(root) ? path.slice(root.length) : path;
  }

  const handlers = {
    load(req) {
      workspace = null;
      const w = new Workspace(req.root, req.configs, req.sourceFiles);
      workspace = w;
      return { kind: "loaded", workspace: workspace.describe() };
    },
    inspect(req) {
      if (!workspace) throw new Error("inspect before load");
      return { kind: "inspected", result: globalThis.tsqInspect(workspace, req) };
    },
    lookup(req) {
      if (!workspace) throw new Error("lookup before load");
      return { kind: "lookedUp", result: globalThis.tsqLookup(workspace, req) };
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
      return { files };
    },
  };
  globalThis.tsqRel = rel;
  /** Entry point Rust calls for service requests. */
  globalThis.tsqService = () => {
    const req = ops.op_tsq_service_request();
    requestEpoch++;
    let res;
    try {
      res = handlers[req.method](req);
    } catch (e) {
      const overflow = e instanceof RangeError;
      res = { kind: "failed", message: overflow ? `JS stack overflow: ${e.message}` : String(e && e.stack ? e.stack : e) };
    }
    ops.op_tsq_service_respond(res);
  };
})(globalThis);
