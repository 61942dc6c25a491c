// tsq inspect: the entry point that runs the resolvers for every
// declaration a query names and adds the coverage behind the answer.
"use strict";

((globalThis) => {
  const L = globalThis.tsqLs;
  const { rel, findDeclarations, scopeOf, symbolRef, signature, modifiers, members, typeHierarchy } = L;
  const { callHierarchy, references } = globalThis.tsqCalls;
  const { typeFlows } = globalThis.tsqTypeFlows;

  globalThis.tsqAnswers.inspect = (workspace, req) => {
    workspace.importers = req.importers || [];
    const scope = scopeOf(workspace);
    const matches = [];
    const projectsUsed = new Set();
    const partial = [];
    const decls = findDeclarations(workspace, req);
    for (const { project, sf, node } of decls) {
      const checker = project.program().getTypeChecker();
      projectsUsed.add(rel(project.name));
      const want = (r) => !req.resolvers || req.resolvers.includes(r);
      const depth = req.callDepth;
      const meta = {
        symbol: symbolRef(sf, node),
        project: rel(project.name),
        signature: want("signature") ? signature(checker, node) : "",
        modifiers: modifiers(node),
        outgoingCalls: want("outgoingCalls") ? callHierarchy(scope, sf, node, depth, "out") : [],
        incomingCallers: want("incomingCallers") ? callHierarchy(scope, sf, node, depth, "in") : [],
        references: want("references") ? references(scope, sf, node) : { totalCount: 0, fileCount: 0, files: [] },
      };
      const th = want("typeHierarchy") && typeHierarchy(workspace, project, node);
      if (th) meta.typeHierarchy = th;
      const m = want("members") && members(checker, node);
      if (m) meta.members = m;
      const tf = want("typeFlows") && typeFlows(checker, sf, node);
      if (tf) meta.typeFlows = tf;
      matches.push(meta);
      for (const p of scope.holders(sf.fileName)) {
        for (const u of p.unresolvedImports()) if (!partial.includes(u)) partial.push(u);
      }
    }
    return {
      matches,
      buildLog: workspace.buildLog.splice(0),
      coverage: {
        projectsLoaded: workspace.projects.filter((p) => p.built).map((p) => rel(p.name)),
        projectsNotLoaded: workspace.projects.filter((p) => !p.built).map((p) => rel(p.name)),
        projectsUsed: [...projectsUsed],
        filesOutsideProjects: workspace.outside.length,
        partial,
        configErrors: workspace.configErrors.map((e) => e.split(workspace.root + "/").join("")),
      },
    };
  };
})(globalThis);
